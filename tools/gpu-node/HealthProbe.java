import io.nodeatlas.discovery.gpu.GpuDiscoverySource;
import io.nodeatlas.discovery.health.DeviceProblem;
import io.nodeatlas.discovery.health.HealthCheck;
import io.nodeatlas.discovery.host.HostContext;
import io.nodeatlas.discovery.host.HostFs;
import io.nodeatlas.discovery.host.SourceOptions;
import io.nodeatlas.discovery.model.Device;
import io.nodeatlas.discovery.spi.DiscoveryResult;
import java.nio.file.Path;
import java.time.Clock;
import java.util.List;
import java.util.Map;

/**
 * The agent's GPU health check against the real NVML (tools/gpu-node/check.sh): discovers the GPUs,
 * opens the event set and registers their XID events as {@code nodeatlas run} does, then polls five
 * times. An argument is an NVML library to load instead of finding the driver's.
 */
public class HealthProbe {
  public static void main(String[] args) throws Exception {
    Map<String, String> options = args.length > 0 ? Map.of("gpu.nvmlLibrary", args[0]) : Map.of();
    HostContext host = new HostContext(HostFs.of(Path.of("/")), new SourceOptions(options), Clock.systemUTC());
    GpuDiscoverySource source = new GpuDiscoverySource();
    DiscoveryResult result = source.discover(host);
    System.out.println("devices " + result.devices().stream().map(Device::name).toList() + ", warnings "
        + result.warnings());
    try (HealthCheck check = source.healthCheck(host).orElseThrow()) {
      for (int i = 0; i < 5; i++) {
        long start = System.nanoTime();
        List<DeviceProblem> problems = check.check(result.devices());
        System.out.printf("check %d: problems %s, %.1f ms%n", i, problems, (System.nanoTime() - start) / 1e6);
      }
    }
  }
}
