package io.nodeatlas.agent.run;

import io.nodeatlas.agent.claims.CallBudget;
import io.nodeatlas.agent.claims.Checkpoint;
import io.nodeatlas.agent.claims.ClaimPreparer;
import io.nodeatlas.agent.claims.ClaimSpecStore;
import io.nodeatlas.agent.claims.ClaimWorkers;
import io.nodeatlas.agent.claims.CorruptCheckpointException;
import io.nodeatlas.agent.claims.DeviceInventory;
import io.nodeatlas.agent.health.DeviceHealthMonitor;
import io.nodeatlas.agent.health.ResourceHealthService;
import io.nodeatlas.agent.kubelet.KubeletPaths;
import io.nodeatlas.agent.kubelet.KubeletPluginServer;
import io.nodeatlas.agent.ops.AgentMetrics;
import io.nodeatlas.agent.metadata.DeviceMetadataFiles;
import io.nodeatlas.agent.shares.Families;
import io.nodeatlas.agent.slices.ResourceSlicePublisher;
import io.nodeatlas.agent.status.ClaimNetworkStatus;
import io.nodeatlas.discovery.share.SharePlacer;
import java.io.IOException;
import java.time.Clock;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.ScheduledExecutorService;
import java.util.concurrent.ThreadFactory;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * The cluster mode's parts, wired in order (checkpoint, claims, device health, slices, then the
 * kubelet sockets, KEP-4381) and stopped in reverse; a start that fails half-way stops what it started.
 */
final class ClusterParts implements AutoCloseable {

  private static final Logger LOG = LoggerFactory.getLogger(Agent.class);

  /** What the parts call back: the loop's wake-ups. */
  record Loop(Runnable requestPublish, Runnable requestDiscovery) {}

  private final AgentSettings settings;
  private final ApiAccess api;
  private final DeviceInventory inventory;
  private final ClaimSpecStore specStore;
  private final AgentMetrics metrics;
  private final Clock clock;
  private final ExecutorService apiCalls = Executors.newSingleThreadExecutor(daemon("api-calls"));
  private final ExecutorService watchCalls = Executors.newCachedThreadPool(daemon("slice-watch"));
  private final ScheduledExecutorService healthScheduler = Executors.newSingleThreadScheduledExecutor(daemon("device-health"));
  private final ScheduledExecutorService upkeepScheduler = Executors.newSingleThreadScheduledExecutor(daemon("device-upkeep"));
  private Checkpoint checkpoint;
  /** Rolling update: the lock around each Prepare and Unprepare; null with fixed socket names. */
  CallLock callLock;
  ClaimPreparer preparer;
  ClaimKeeper claims;
  SliceSync slices;
  KubeletPluginServer kubelet;
  DeviceHealthMonitor health;
  Integer grpcHealthPort;
  private ClaimNetworkStatus claimStatus;

  ClusterParts(AgentSettings settings, ApiAccess api, DeviceInventory inventory, ClaimSpecStore specStore,
      AgentMetrics metrics, Clock clock) {
    this.settings = settings;
    this.api = api;
    this.inventory = inventory;
    this.specStore = specStore;
    this.metrics = metrics;
    this.clock = clock;
  }

  /** Opens the checkpoint, starts the health checks' polling and binds the sockets. */
  void start(ClusterOptions options, Loop loop) throws IOException, CorruptCheckpointException {
    this.options = options;
    openState();
    ResourceSlicePublisher publisher = new ResourceSlicePublisher(api.slices(), settings.driverName(), settings.nodeName());
    ResourceHealthService healthStream = new ResourceHealthService();
    health = new DeviceHealthMonitor(options.healthChecks(), inventory::all, clock, loop.requestPublish(), healthStream,
        publisher.poolName());
    slices = new SliceSync(settings, api, publisher, inventory, metrics, clock, apiCalls, watchCalls,
        loop.requestPublish(), loop.requestDiscovery(), health::taints);
    kubelet = KubeletPluginServer.start(new KubeletPaths(settings.kubeletRoot(), settings.driverName(),
        settings.rollingUpdateUid()), preparer, healthStream);
    health.start(healthScheduler, options.healthInterval());
    kubelet.setServing(false);
    if (settings.healthcheckPort() >= 0) {
      try {
        grpcHealthPort = kubelet.startHealthPort(settings.httpBindAddress(), settings.healthcheckPort());
      } catch (IOException e) {
        throw AgentLauncher.portProblem("healthcheckPort", settings.healthcheckPort(), e);
      }
    }
  }

  /**
   * Every health interval, while {@code leading} (this instance holds the state directory): the families check what
   * they made for the recorded claims ({@link ClaimPreparer#upkeep}: an MPS daemon that died is started again), and
   * what they did is counted in the metrics.
   */
  void startUpkeep(java.util.function.BooleanSupplier leading) {
    long ms = Math.max(1, options.healthInterval().toMillis());
    upkeepScheduler.scheduleWithFixedDelay(() -> {
      try {
        if (leading.getAsBoolean() && preparer != null) {
          metrics.upkeep(preparer.upkeep());
        }
      } catch (RuntimeException e) {
        LOG.warn("device upkeep failed err=\"{}\"", e.toString());
      }
    }, ms, ms, java.util.concurrent.TimeUnit.MILLISECONDS);
  }

  /**
   * The checkpoint, the claims and the leftovers of a killed writer; in a rolling update under the
   * {@link CallLock}, as the other instance may be writing them.
   */
  private void openState() throws IOException, CorruptCheckpointException {
    if (!settings.rollingUpdate()) {
      readState();
      return;
    }
    CallLock lock = new CallLock(settings.stateDir(), settings.checkpointFile(),
        () -> checkpoint == null ? null : checkpoint.journalFile().orElse(null), this::reloadCheckpoint);
    callLock = lock;
    Exception[] failed = {null};
    String refused = lock.around(CallBudget.after(settings.lockWait()), () -> {
      try {
        readState();
      } catch (IOException | CorruptCheckpointException e) {
        failed[0] = e;
      }
      return null;
    }, why -> why);
    if (failed[0] instanceof CorruptCheckpointException e) {
      throw e;
    } else if (failed[0] != null) {
      throw (IOException) failed[0];
    } else if (refused != null) {
      throw new IOException(refused);
    }
    preparer.guardCalls(lock);
    claims.guardWrites(lock);
  }

  private ClusterOptions options = ClusterOptions.DEFAULTS;

  private void readState() throws IOException, CorruptCheckpointException {
    specStore.removeStaleTemporaryFiles().forEach(p -> LOG.info("removed temporary file of a killed writer file={}", p));
    if (checkpoint == null) {
      checkpoint = Checkpoint.open(settings.checkpointFile(), settings.checkpointJournal());
    }
    LOG.info("checkpoint loaded file={} claims={} journal={}", checkpoint.file(), checkpoint.all().size(),
        settings.checkpointJournal() ? "on" : "off");
    Families families = Families.installed(Agent.class.getClassLoader(), new SharePlacer.Settings(settings.hookPath()))
        .withRealisers(options.deviceRealisers().apply(AgentSettings.familyStateDir(settings.stateDir())));
    // A rolling update's call lock is released when the call returns: its claims then run on the calling
    // thread only, so that no helper thread of a call that ran out of budget still commits after it.
    ClaimWorkers workers = settings.rollingUpdate() ? ClaimWorkers.inline()
        : ClaimWorkers.pooled(ClaimPreparer.CALL_PARALLELISM);
    preparer = new ClaimPreparer(settings.driverName(), inventory, api.claims(),
        specStore, checkpoint, metrics, families, workers);
    preparer.withMetadata(new DeviceMetadataFiles(settings.stateDir(), settings.cdiRoot(), specStore.writer(),
        settings.driverName(), inventory, families::networkData, options.deviceMetadata()));
    claims = new ClaimKeeper(settings, api::fabric8, inventory, specStore, checkpoint, preparer, apiCalls);
    claims.checkLostCheckpoint();
    if (claims.lostCheckpoint() == null) {
      // Before the boot is recorded: a re-made device's record is written while its claim is still confirmed.
      preparer.reconcileRealised();
      claims.recordBoot();
    }
    claimStatus = new ClaimNetworkStatus(api::fabric8, settings.driverName(), inventory, families);
    preparer.onPrepared(claimStatus::prepared);
  }

  /** The checkpoint as the other instance of a rolling update left it (under the {@link CallLock}). */
  private void reloadCheckpoint() throws IOException, CorruptCheckpointException {
    Checkpoint before = checkpoint;
    checkpoint = Checkpoint.open(settings.checkpointFile(), settings.checkpointJournal());
    if (preparer != null) {
      preparer.useCheckpoint(checkpoint);
      claims.useCheckpoint(checkpoint);
    }
    if (before != null) {
      before.close();
    }
  }

  static ThreadFactory daemon(String name) {
    return r -> {
      Thread t = new Thread(r, name);
      t.setDaemon(true);
      return t;
    };
  }

  /** Stops the parts; the sockets are drained and removed unless {@code socketsGone} (handed over already). */
  void close(boolean socketsGone) {
    healthScheduler.shutdownNow();
    upkeepScheduler.shutdownNow();
    if (claimStatus != null) {
      claimStatus.close();
    }
    if (health != null) {
      health.close();
    }
    if (slices != null) {
      slices.closeWatch();
    }
    if (kubelet != null && !socketsGone) {
      kubelet.shutdown(settings.drainTimeout().toMillis());
    }
    // Threads stuck in a call to a hung API server are daemons: they do not hold the exit.
    apiCalls.shutdownNow();
    watchCalls.shutdownNow();
  }

  @Override
  public void close() {
    close(false);
  }
}
