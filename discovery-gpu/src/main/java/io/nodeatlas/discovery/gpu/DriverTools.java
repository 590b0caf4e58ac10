package io.nodeatlas.discovery.gpu;

import io.nodeatlas.discovery.host.HostContext;
import io.nodeatlas.discovery.host.HostFs;
import io.nodeatlas.discovery.host.SourceSetting;
import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Optional;

/**
 * The driver's own tools that a claim's sharing runs ({@code nvidia-smi}, {@code nvidia-cuda-mps-control}),
 * as NVIDIA's DRA driver runs them from a mounted driver root ({@code cmd/gpu-kubelet-plugin/root.go}
 * {@code getNvidiaSMIPath}, {@code nvlib.go} {@code setTimeSlice}): the flag's file when one is given; else,
 * when a driver root is given ({@code --nvidia-driver-root} or {@code --container-driver-root}), the first
 * executable of that name in its {@code /opt/bin}, {@code /usr/bin}, {@code /usr/sbin}, {@code /bin},
 * {@code /sbin}, links followed only inside the roots, run with the driver's {@code libnvidia-ml.so.1}
 * (and, for MPS, {@code libcuda.so.1}, which the MPS server it starts inherits) in {@code LD_PRELOAD} and its
 * own directory first on {@code PATH}; else the name on the agent's {@code PATH}. Looked up at each use, so
 * a driver root that appears after the agent started is found.
 */
final class DriverTools {

  /** A command to run: the file, and what its environment gains. */
  record Tool(String command, Map<String, String> env) {}

  static final String NVIDIA_SMI = "nvidia-smi";
  static final String MPS_CONTROL = "nvidia-cuda-mps-control";
  /** NVIDIA's DRA driver's search order for the driver's binaries. */
  static final List<String> BIN_DIRS = List.of("opt/bin", "usr/bin", "usr/sbin", "bin", "sbin");

  private final HostContext host;

  DriverTools(HostContext host) {
    this.host = host;
  }

  Tool nvidiaSmi() throws IOException {
    return tool(GpuDiscoverySource.NVIDIA_SMI, NVIDIA_SMI, List.of("libnvidia-ml.so.1"));
  }

  Tool mpsControl() throws IOException {
    return tool(GpuDiscoverySource.MPS_CONTROL, MPS_CONTROL, List.of("libnvidia-ml.so.1", "libcuda.so.1"));
  }

  /** The file name a running control daemon's command has: the flag's, else the tool's. */
  String mpsControlName() {
    return host.options().get(GpuDiscoverySource.MPS_CONTROL).map(p -> {
      Path name = Path.of(p).getFileName();
      return name == null ? p : name.toString();
    }).orElse(MPS_CONTROL);
  }

  private Tool tool(SourceSetting flag, String name, List<String> preload) throws IOException {
    Optional<String> explicit = host.options().get(flag);
    if (explicit.isPresent()) {
      return new Tool(explicit.get(), Map.of());
    }
    if (host.options().get(GpuDiscoverySource.DRIVER_ROOT).isEmpty()
        && host.options().get(GpuDiscoverySource.CONTAINER_DRIVER_ROOT).isEmpty()) {
      return new Tool(name, Map.of());
    }
    HostFs fs = NvmlLibraryLocator.driverFs(host);
    String root = NvmlLibraryLocator.readRoot(host);
    List<String> refused = new ArrayList<>();
    List<String> searched = new ArrayList<>();
    Path found = null;
    for (String dir : BIN_DIRS) {
      String candidate = NvidiaHostFiles.under(root, "/" + dir + "/" + name);
      searched.add(fs.fromHostPath(candidate).toString());
      Optional<Path> file = NvmlLibraryLocator.findUnderDriverRoot(fs, List.of(candidate), refused);
      if (file.isPresent() && Files.isExecutable(file.get())) {
        found = file.get();
        break;
      }
    }
    if (found == null) {
      throw new IOException("no executable " + name + " under the driver root " + NvmlLibraryLocator.driverRoot(host)
          + " (searched " + String.join(", ", searched) + (refused.isEmpty() ? "" : "; refused " + String.join("; ", refused))
          + "); install the driver's utilities there or name the tool with " + flag.flag());
    }
    Map<String, String> env = new LinkedHashMap<>();
    List<String> libs = new ArrayList<>();
    for (String soname : preload) {
      List<String> candidates = NvidiaHostFiles.LIBRARY_DIRS.stream()
          .map(d -> NvidiaHostFiles.under(root, "/" + (d.isEmpty() ? "" : d + "/") + soname)).toList();
      // LD_PRELOAD separates entries by spaces and colons: a path with either cannot be named there.
      NvmlLibraryLocator.findUnderDriverRoot(fs, candidates, refused).map(Path::toString)
          .filter(p -> !p.matches(".*[\\s:].*")).ifPresent(libs::add);
    }
    if (!libs.isEmpty()) {
      env.put("LD_PRELOAD", String.join(":", libs));
    }
    String path = System.getenv("PATH");
    env.put("PATH", found.getParent() + (path == null || path.isEmpty() ? ":/usr/bin:/bin" : ":" + path));
    return new Tool(found.toString(), env);
  }
}
