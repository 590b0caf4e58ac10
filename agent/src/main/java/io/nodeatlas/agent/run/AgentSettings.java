package io.nodeatlas.agent.run;

import io.nodeatlas.discovery.host.HostFs;
import java.nio.file.Path;
import java.time.Duration;

/**
 * Everything {@code nodeatlas run} was configured with, after flags, environment and config file
 * were merged.
 *
 * @param httpPort 0 = no HTTP endpoints; -1 = an ephemeral port (tests)
 * @param healthcheckPort TCP port of {@code grpc.health.v1} for Kubernetes gRPC probes; -1 = off, 0 = ephemeral
 * @param host the host's file systems; the boot ID is read from its procfs root
 * @param rollingUpdateUid the pod's UID (downward API {@code metadata.uid}); when set, a rolling update runs
 *     two instances side by side, each with sockets named by its UID (kubeletplugin {@code RollingUpdate},
 *     kubelet 1.33+); empty: fixed socket names, one instance at a time
 * @param recover whether to reconcile the claim specs from the API when the checkpoint is missing
 * @param lockWait how long a new instance waits for the previous one to release the state directory's lock
 *     (with fixed socket names), or for the other instance's call to end when it starts (rolling update)
 * @param hookPath where nodeatlas's OCI hook lies on the host; the families' container edits name it
 *     ({@code SharePlacer.Settings}), and runtimes run hooks on the host
 * @param checkpointJournal whether a change to the checkpoint appends its own line to a journal beside it
 *     (format v3.0, {@code Checkpoint.open(file, true)}) instead of rewriting the whole file (v2.3)
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
    String hookPath,
    HostFs host,
    String rollingUpdateUid,
    boolean recover,
    Duration lockWait,
    boolean checkpointJournal) {

  /** How long a new instance waits for the one holding the state directory's lock, unless told otherwise. */
  public static final Duration DEFAULT_LOCK_WAIT = Duration.ofMinutes(5);

  /**
   * Whether the checkpoint keeps a journal unless told otherwise ({@code --checkpoint-journal}): a commit
   * then writes and hashes only its own claim (docs/design/checkpoint.md).
   */
  public static final boolean DEFAULT_CHECKPOINT_JOURNAL = true;

  public AgentSettings {
    if (hookPath == null || !hookPath.startsWith("/")) {
      throw new IllegalArgumentException("the hook path must be an absolute path on the host, not " + hookPath);
    }
    rollingUpdateUid = rollingUpdateUid == null ? "" : rollingUpdateUid;
    host = host == null ? HostFs.of(Path.of("/")) : host;
    lockWait = lockWait == null ? DEFAULT_LOCK_WAIT : lockWait;
  }

  /** Settings without a rolling-update UID, host root {@code /}, no {@code --recover}, and the default lock wait. */
  public AgentSettings(String driverName, String nodeName, Path kubeletRoot, Path cdiRoot, Path stateDir,
      String httpBindAddress, int httpPort, int healthcheckPort, Duration resyncInterval, Duration drainTimeout,
      String hookPath) {
    this(driverName, nodeName, kubeletRoot, cdiRoot, stateDir, httpBindAddress, httpPort, healthcheckPort, resyncInterval,
        drainTimeout, hookPath, null, "", false, null, DEFAULT_CHECKPOINT_JOURNAL);
  }

  /** Settings with the hook where {@code systemd/install.sh} puts it. */
  public AgentSettings(String driverName, String nodeName, Path kubeletRoot, Path cdiRoot, Path stateDir,
      String httpBindAddress, int httpPort, int healthcheckPort, Duration resyncInterval, Duration drainTimeout) {
    this(driverName, nodeName, kubeletRoot, cdiRoot, stateDir, httpBindAddress, httpPort, healthcheckPort, resyncInterval,
        drainTimeout, io.nodeatlas.agent.claims.ClaimPreparer.DEFAULT_HOOK_PATH);
  }

  /** Whether two instances may serve side by side (a rolling-update UID is set). */
  public boolean rollingUpdate() {
    return !rollingUpdateUid.isEmpty();
  }

  /** The same settings with a rolling-update UID (the pod's UID). */
  public AgentSettings withRollingUpdateUid(String uid) {
    return new AgentSettings(driverName, nodeName, kubeletRoot, cdiRoot, stateDir, httpBindAddress, httpPort,
        healthcheckPort, resyncInterval, drainTimeout, hookPath, host, uid, recover, lockWait, checkpointJournal);
  }

  public Path checkpointFile() {
    return stateDir.resolve("checkpoint.json");
  }

  /** Where the device families keep what they make at Prepare (their journals), under {@code stateDir}. */
  public static Path familyStateDir(Path stateDir) {
    return stateDir.resolve("families");
  }

  /** The lock of the instance that publishes and keeps the claims (a rolling update runs two for a while). */
  public Path lockFile() {
    return stateDir.resolve("agent.lock");
  }

  /** The same settings with another host file system (the procfs root the boot ID is read from). */
  public AgentSettings withHost(HostFs newHost) {
    return new AgentSettings(driverName, nodeName, kubeletRoot, cdiRoot, stateDir, httpBindAddress, httpPort,
        healthcheckPort, resyncInterval, drainTimeout, hookPath, newHost, rollingUpdateUid, recover, lockWait, checkpointJournal);
  }

  /** The same settings, reconciling the claim specs from the API when the checkpoint is missing ({@code --recover}). */
  public AgentSettings withRecover(boolean newRecover) {
    return new AgentSettings(driverName, nodeName, kubeletRoot, cdiRoot, stateDir, httpBindAddress, httpPort,
        healthcheckPort, resyncInterval, drainTimeout, hookPath, host, rollingUpdateUid, newRecover, lockWait, checkpointJournal);
  }

  /** The same settings, with or without the checkpoint's journal ({@code --checkpoint-journal}). */
  public AgentSettings withCheckpointJournal(boolean journal) {
    return new AgentSettings(driverName, nodeName, kubeletRoot, cdiRoot, stateDir, httpBindAddress, httpPort,
        healthcheckPort, resyncInterval, drainTimeout, hookPath, host, rollingUpdateUid, recover, lockWait, journal);
  }
}
