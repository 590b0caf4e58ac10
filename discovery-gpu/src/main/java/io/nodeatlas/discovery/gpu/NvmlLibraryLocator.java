package io.nodeatlas.discovery.gpu;

import io.nodeatlas.discovery.gpu.nvml.JnaNvmlLibrary;
import io.nodeatlas.discovery.gpu.nvml.NvmlException;
import io.nodeatlas.discovery.gpu.nvml.NvmlLibrary;
import io.nodeatlas.discovery.gpu.nvml.NvmlReturn;
import io.nodeatlas.discovery.host.HostContext;
import io.nodeatlas.discovery.host.HostFileException;
import io.nodeatlas.discovery.host.HostFs;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.Optional;

/**
 * Where {@code libnvidia-ml.so.1} comes from, in this order:
 * <ol>
 *   <li>{@value #NVML_LIBRARY} ({@code --nvml-library FILE}): exactly that file on this machine;</li>
 *   <li>the driver root {@value #DRIVER_ROOT} ({@code --nvidia-driver-root}, default {@code /}), read
 *       through the host root and searched in NVIDIA's DRA driver's directory order (nvml.md §1.1);</li>
 *   <li>only when no driver root was given: the usual library path ({@code jna.library.path}, then the
 *       dynamic linker's). With an explicit driver root we never fall back, because a library from
 *       another installation would not match the driver files we mount into containers.</li>
 * </ol>
 */
public final class NvmlLibraryLocator {

  public static final String NVML_LIBRARY = "gpu.nvmlLibrary";
  public static final String DRIVER_ROOT = "gpu.driverRoot";
  public static final String DEFAULT_DRIVER_ROOT = "/";

  private static final int MAX_LINK_HOPS = 8;

  private NvmlLibraryLocator() {}

  /** The driver root as the host sees it. */
  public static String driverRoot(HostContext host) {
    return host.options().get(DRIVER_ROOT).orElse(DEFAULT_DRIVER_ROOT);
  }

  /** The default {@link NvmlLoader}. */
  public static NvmlLibrary load(HostContext host) throws NvmlException {
    Optional<String> explicit = host.options().get(NVML_LIBRARY);
    if (explicit.isPresent()) {
      Path file = Path.of(explicit.get()).toAbsolutePath();
      if (!Files.isRegularFile(file)) {
        throw notFound(NVML_LIBRARY + "=" + explicit.get() + ": no such file");
      }
      return JnaNvmlLibrary.load(file);
    }
    Optional<Path> underRoot = findUnderDriverRoot(host.fs(), driverRoot(host));
    if (underRoot.isPresent()) {
      return JnaNvmlLibrary.load(underRoot.get());
    }
    if (host.options().get(DRIVER_ROOT).isPresent()) {
      throw notFound("no " + JnaNvmlLibrary.SONAME + " under driver root " + driverRoot(host)
          + " (searched " + String.join(", ", searched(driverRoot(host))) + ")");
    }
    return JnaNvmlLibrary.loadFromLibraryPath();
  }

  /** The first {@code libnvidia-ml.so.1} under the driver root, symlinks resolved within the host tree. */
  static Optional<Path> findUnderDriverRoot(HostFs fs, String driverRoot) {
    for (String hostPath : searched(driverRoot)) {
      Path local = fs.fromHostPath(hostPath);
      try {
        Optional<Path> resolved = resolve(fs, local);
        if (resolved.isPresent()) {
          return resolved;
        }
      } catch (HostFileException e) {
        // An unreadable candidate is no candidate; the next directory may still have the library.
      }
    }
    return Optional.empty();
  }

  private static List<String> searched(String driverRoot) {
    String root = driverRoot.endsWith("/") ? driverRoot : driverRoot + "/";
    List<String> paths = new ArrayList<>();
    for (String dir : NvidiaHostFiles.LIBRARY_DIRS) {
      paths.add(root + (dir.isEmpty() ? "" : dir + "/") + JnaNvmlLibrary.SONAME);
    }
    return paths;
  }

  /** Follows links the way {@link HostFs#resolveLink} does, so an absolute host link stays in the host tree. */
  private static Optional<Path> resolve(HostFs fs, Path path) {
    Path current = path;
    for (int hop = 0; hop < MAX_LINK_HOPS; hop++) {
      Optional<Path> next = fs.resolveLink(current);
      if (next.isEmpty()) {
        return Files.isRegularFile(current) ? Optional.of(current) : Optional.empty();
      }
      current = next.get();
    }
    return Optional.empty();
  }

  private static NvmlException notFound(String why) {
    return new NvmlException("load NVML", NvmlReturn.ERROR_LIBRARY_NOT_FOUND.code(), why);
  }
}
