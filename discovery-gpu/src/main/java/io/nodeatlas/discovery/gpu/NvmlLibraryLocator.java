package io.nodeatlas.discovery.gpu;

import io.nodeatlas.discovery.gpu.nvml.JnaNvmlLibrary;
import io.nodeatlas.discovery.gpu.nvml.NvmlException;
import io.nodeatlas.discovery.gpu.nvml.NvmlLibrary;
import io.nodeatlas.discovery.gpu.nvml.NvmlReturn;
import io.nodeatlas.discovery.host.Excerpt;
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
 *   <li>{@link GpuDiscoverySource#NVML_LIBRARY} ({@code --nvml-library FILE}): exactly that file on
 *       this machine;</li>
 *   <li>the driver root {@link GpuDiscoverySource#DRIVER_ROOT} ({@code --nvidia-driver-root}, default
 *       the host root), read through the host root, or where
 *       {@link GpuDiscoverySource#CONTAINER_DRIVER_ROOT} says it is mounted, and searched in the
 *       directory order of NVIDIA's DRA driver and then the other usual directories
 *       ({@link NvidiaHostFiles#LIBRARY_DIRS}), then, for a driver root given, where its
 *       {@code /etc/ld.so.cache} says; the file found, links resolved, must lie inside the host root
 *       or the driver root, because it is loaded into this process;</li>
 *   <li>only when no driver root was given and the NVIDIA kernel driver is loaded: the usual library
 *       path ({@code jna.library.path}, then the dynamic linker's). With an explicit driver root we
 *       never fall back, because a library from another installation would not match the driver files
 *       we mount into containers.</li>
 * </ol>
 */
public final class NvmlLibraryLocator {

  public static final String DEFAULT_DRIVER_ROOT = "/";

  private static final int MAX_LINK_HOPS = 8;

  private NvmlLibraryLocator() {}

  /** The driver root as the host sees it: an absolute, normalised path ({@code /} when not set). */
  public static String driverRoot(HostContext host) {
    return host.options().path(GpuDiscoverySource.DRIVER_ROOT)
        .map(p -> Path.of(DEFAULT_DRIVER_ROOT).resolve(p).normalize().toString())
        .orElse(DEFAULT_DRIVER_ROOT);
  }

  /** {@link GpuDiscoverySource#CONTAINER_DRIVER_ROOT}, absolute and normalised, when set. */
  static Optional<Path> containerDriverRoot(HostContext host) {
    return host.options().path(GpuDiscoverySource.CONTAINER_DRIVER_ROOT)
        .map(p -> p.toAbsolutePath().normalize());
  }

  /**
   * The driver root as {@link #driverFs} names it: {@code /} of the container driver root's own file
   * system when one is given, else the driver root as the host names it.
   */
  static String readRoot(HostContext host) {
    return containerDriverRoot(host).isPresent() ? DEFAULT_DRIVER_ROOT : driverRoot(host);
  }

  /**
   * The file system to read the driver installation through. With a container driver root, that
   * directory is the file system's root: what lies there is the driver root. Otherwise a driver root
   * is named as the host sees it and read under the host root; when the host's path leads out of the
   * host root (a link to a driver container's root file system), that place becomes one more root, so
   * the driver files are not refused as lying outside. Never a root that would let reads go anywhere
   * ({@code /}).
   */
  public static HostFs driverFs(HostContext host) {
    HostFs fs = host.fs();
    Optional<Path> mounted = containerDriverRoot(host);
    if (mounted.isPresent()) {
      return HostFs.of(mounted.get());
    }
    if (host.options().path(GpuDiscoverySource.DRIVER_ROOT).isEmpty()) {
      return fs;
    }
    Path local = fs.fromHostPath(driverRoot(host));
    try {
      fs.realPath(local);
      return fs; // inside the roots, or missing: nothing to widen
    } catch (HostFileException outside) {
      HostFs wider = fs.withRoot(local);
      return wider.isConfined(Path.of("/")) ? fs : wider;
    }
  }

  /** The default {@link NvmlLoader}. */
  public static NvmlLibrary load(HostContext host) throws NvmlException {
    Optional<Path> explicit;
    Optional<Path> givenRoot;
    try {
      explicit = host.options().path(GpuDiscoverySource.NVML_LIBRARY);
      givenRoot = host.options().path(GpuDiscoverySource.DRIVER_ROOT);
    } catch (IllegalArgumentException e) {
      throw notFound(e.getMessage());
    }
    if (explicit.isPresent()) {
      Path file = explicit.get().toAbsolutePath();
      if (!Files.isRegularFile(file)) {
        throw notFound(GpuDiscoverySource.NVML_LIBRARY.flag() + " " + explicit.get() + ": no such file");
      }
      return JnaNvmlLibrary.load(file);
    }
    String root = driverRoot(host);
    Optional<Path> mounted = containerDriverRoot(host);
    List<String> refused = new ArrayList<>();
    HostFs driverFs = driverFs(host);
    List<String> candidates = new ArrayList<>(searched(readRoot(host)));
    Optional<Path> underRoot = findUnderDriverRoot(driverFs, candidates, refused);
    if (underRoot.isEmpty() && (givenRoot.isPresent() || mounted.isPresent())) {
      // Where the driver root's own loader cache says (/usr/local/nvidia/lib64, say), as its libraries
      // are found for containers (NvidiaHostFiles); without a driver root the dynamic linker below
      // reads the host's cache itself.
      List<String> named = cacheNamed(driverFs, readRoot(host));
      candidates.addAll(named);
      underRoot = findUnderDriverRoot(driverFs, named, refused);
    }
    if (underRoot.isPresent()) {
      return JnaNvmlLibrary.load(underRoot.get());
    }
    if (givenRoot.isPresent() || mounted.isPresent() || !refused.isEmpty()) {
      // Named as this process reads them: under the container driver root when there is one.
      List<String> searched = candidates.stream()
          .map(p -> mounted.map(m -> driverFs.fromHostPath(p).toString()).orElse(p)).toList();
      throw notFound("no " + JnaNvmlLibrary.SONAME + " under driver root " + root
          + mounted.map(m -> " (mounted at " + m + ")").orElse("")
          + " (searched " + String.join(", ", searched) + ")"
          + (refused.isEmpty() ? "" : "; refused " + String.join("; ", refused)));
    }
    if (!hasNvidiaKernelDriver(host.fs())) {
      // Without the kernel driver NVML cannot initialise (nvmlInit_v2 returns
      // NVML_ERROR_DRIVER_NOT_LOADED), so a host without it is told so here, before JNA unpacks its
      // native dispatcher and asks the dynamic linker for a library that such a host rarely has: on a
      // node without NVIDIA GPUs that attempt was about 100 ms of CPU of every plain `discover`.
      throw new NvmlException("load NVML", NvmlReturn.ERROR_DRIVER_NOT_LOADED.code(),
          "no NVIDIA kernel driver loaded (no /sys/module/nvidia, /proc/driver/nvidia or /dev/dxg) and no "
              + JnaNvmlLibrary.SONAME + " under " + root + "; on a GPU node, load the driver, or give "
              + GpuDiscoverySource.DRIVER_ROOT.flag() + " or " + GpuDiscoverySource.NVML_LIBRARY.flag());
    }
    return JnaNvmlLibrary.loadFromLibraryPath();
  }

  /**
   * Whether a kernel driver NVML can talk to is there: the {@code nvidia} module's
   * {@code /sys/module/nvidia} directory (Documentation/ABI/testing/sysfs-module) or the driver's
   * {@code /proc/driver/nvidia}; or, under WSL2, the paravirtual GPU device {@code /dev/dxg}, through
   * which the library in {@code /usr/lib/wsl/lib} (found on the dynamic linker's path) reaches the GPU
   * without any nvidia module.
   */
  static boolean hasNvidiaKernelDriver(HostFs fs) {
    return !fs.isAbsent(fs.sys("module/nvidia")) || !fs.isAbsent(fs.proc("driver/nvidia"))
        || !fs.isAbsent(fs.dev("dxg"));
  }

  /**
   * The first {@code libnvidia-ml.so.1} under the driver root, as its real path. Links are followed
   * the way {@link HostFs#resolveLink} does, so an absolute link stays in the host tree; a candidate
   * whose real path lies outside the roots is refused and named in {@code refused}.
   */
  static Optional<Path> findUnderDriverRoot(HostFs fs, List<String> hostPaths, List<String> refused) {
    for (String hostPath : hostPaths) {
      Path local = fs.fromHostPath(hostPath);
      try {
        Optional<Path> resolved = resolve(fs, local);
        if (resolved.isPresent()) {
          return resolved;
        }
      } catch (HostFileException e) {
        // An unusable candidate is no candidate; the next directory may still have the library.
        refused.add(Excerpt.scrub(hostPath + ": " + e.reason()));
      }
    }
    return Optional.empty();
  }

  private static List<String> searched(String driverRoot) {
    List<String> paths = new ArrayList<>();
    for (String dir : NvidiaHostFiles.LIBRARY_DIRS) {
      paths.add(NvidiaHostFiles.under(driverRoot, "/" + (dir.isEmpty() ? "" : dir + "/") + JnaNvmlLibrary.SONAME));
    }
    return paths;
  }

  /**
   * The {@code libnvidia-ml.so.1} files the driver root's {@code ld.so.cache} names for this JVM's
   * architecture, as host paths; none when it has no cache or one not understood (the discovery warns
   * about that when it mounts the libraries).
   */
  private static List<String> cacheNamed(HostFs fs, String driverRoot) {
    try {
      return fs.readBytes(NvidiaHostFiles.ldSoCacheFile(fs, driverRoot)).map(LdSoCacheParser::parse)
          .map(c -> c.findLibrary("libnvidia-ml", LdSoCacheParser.THIS_JVM).stream()
              .filter(e -> e.soname().equals(JnaNvmlLibrary.SONAME))
              .map(e -> NvidiaHostFiles.under(driverRoot, e.path())).toList())
          .orElse(List.of());
    } catch (HostFileException | IllegalArgumentException e) {
      return List.of();
    }
  }

  /** Follows links lexically, then confines: the real path of a regular file inside the roots. */
  private static Optional<Path> resolve(HostFs fs, Path path) {
    Path current = path;
    for (int hop = 0; hop < MAX_LINK_HOPS; hop++) {
      Optional<Path> next = fs.resolveLink(current);
      if (next.isEmpty()) {
        return fs.realPath(current).filter(Files::isRegularFile);
      }
      current = next.get();
    }
    return Optional.empty();
  }

  private static NvmlException notFound(String why) {
    return new NvmlException("load NVML", NvmlReturn.ERROR_LIBRARY_NOT_FOUND.code(), why);
  }
}
