package io.nodeatlas.agent.run;

import java.nio.file.Path;
import java.time.Duration;

/**
 * Everything {@code nodeatlas run} was configured with, after flags, environment and config file
 * were merged.
 *
 * @param httpPort 0 = no HTTP endpoints; -1 = an ephemeral port (tests)
 * @param healthcheckPort TCP port of {@code grpc.health.v1} for Kubernetes gRPC probes; -1 = off, 0 = ephemeral
 * @param hookPath where the cpuset/hugetlb OCI hook lies on the host; the CDI specs of CPU and hugepage
 *     shares name it, and runtimes run hooks on the host
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
    Duration drainTimeout,
    String hookPath) {

  public AgentSettings {
    if (hookPath == null || !hookPath.startsWith("/")) {
      throw new IllegalArgumentException("the hook path must be an absolute path on the host, not " + hookPath);
    }
  }

  /** Settings with the hook where {@code systemd/install.sh} puts it. */
  public AgentSettings(String driverName, String nodeName, Path kubeletRoot, Path cdiRoot, Path stateDir,
      String httpBindAddress, int httpPort, int healthcheckPort, Duration resyncInterval, Duration drainTimeout) {
    this(driverName, nodeName, kubeletRoot, cdiRoot, stateDir, httpBindAddress, httpPort, healthcheckPort, resyncInterval,
        drainTimeout, io.nodeatlas.agent.claims.ClaimPreparer.DEFAULT_HOOK_PATH);
  }

  public Path checkpointFile() {
    return stateDir.resolve("checkpoint.json");
  }
}
