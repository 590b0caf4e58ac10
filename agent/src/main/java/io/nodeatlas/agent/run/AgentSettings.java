package io.nodeatlas.agent.run;

import java.nio.file.Path;
import java.time.Duration;

/**
 * Everything {@code nodeatlas run} was configured with, after flags, environment and config file
 * were merged.
 *
 * @param httpPort 0 = no HTTP endpoints; -1 = an ephemeral port (tests)
 * @param healthcheckPort TCP port of {@code grpc.health.v1} for Kubernetes gRPC probes; -1 = off, 0 = ephemeral
 */
public record AgentSettings(
    String driverName,
    String nodeName,
    Path kubeletRoot,
    Path cdiRoot,
    Path stateDir,
    String httpBindAddress,
    int httpPort,
    int healthcheckPort,
    Duration resyncInterval,
    Duration drainTimeout) {

  public Path checkpointFile() {
    return stateDir.resolve("checkpoint.json");
  }
}
