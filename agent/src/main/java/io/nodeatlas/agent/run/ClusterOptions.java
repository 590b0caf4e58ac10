package io.nodeatlas.agent.run;

import io.nodeatlas.discovery.health.HealthCheck;
import io.nodeatlas.discovery.share.DeviceRealiser;
import java.nio.file.Path;
import java.time.Duration;
import java.util.List;
import java.util.Map;
import java.util.function.Function;

/**
 * What cluster mode adds to the agent's settings: the sources' health checks and how often they are polled,
 * the families that make devices real at Prepare (from the directory of their journals), and whether
 * prepared requests get device metadata files (KEP-5304).
 */
public record ClusterOptions(List<HealthCheck> healthChecks, Duration healthInterval,
    Function<Path, Map<String, DeviceRealiser>> deviceRealisers, boolean deviceMetadata) {

  /** No health checks (polled every 10 s), no realisers, device metadata on. */
  public static final ClusterOptions DEFAULTS = new ClusterOptions(List.of(), Duration.ofSeconds(10), dir -> Map.of(), true);

  public ClusterOptions {
    healthChecks = List.copyOf(healthChecks);
  }

  public ClusterOptions withHealthChecks(List<HealthCheck> checks, Duration interval) {
    return new ClusterOptions(checks, interval, deviceRealisers, deviceMetadata);
  }

  public ClusterOptions withDeviceRealisers(Function<Path, Map<String, DeviceRealiser>> make) {
    return new ClusterOptions(healthChecks, healthInterval, make == null ? dir -> Map.of() : make, deviceMetadata);
  }

  public ClusterOptions withDeviceMetadata(boolean on) {
    return new ClusterOptions(healthChecks, healthInterval, deviceRealisers, on);
  }
}
