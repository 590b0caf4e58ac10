package io.nodeatlas.agent.run;

import io.fabric8.kubernetes.client.KubernetesClient;
import io.nodeatlas.agent.claims.ClaimSpecStore;
import io.nodeatlas.agent.claims.CorruptCheckpointException;
import io.nodeatlas.agent.claims.DeviceInventory;
import io.nodeatlas.agent.health.DeviceHealthMonitor;
import io.nodeatlas.agent.ops.AgentMetrics;
import io.nodeatlas.agent.ops.HealthEndpoints;
import io.nodeatlas.agent.ops.Notifier;
import io.nodeatlas.discovery.health.HealthCheck;
import io.nodeatlas.discovery.report.NodeReport;
import java.io.IOException;
import java.time.Clock;
import java.time.Duration;
import java.time.Instant;
import java.util.Optional;
import java.util.concurrent.locks.Condition;
import java.util.concurrent.locks.ReentrantLock;
import java.util.function.Supplier;
import java.util.function.UnaryOperator;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * The {@code nodeatlas run} daemon: in cluster mode the kubelet plugin (KEP-4381) and this node's
 * ResourceSlices, in standalone mode the static CDI specs; its loop runs on the thread that calls
 * {@link #run()}, which also pets the systemd watchdog ({@code sd_notify(3)} {@code WATCHDOG=1}).
 */
public final class Agent implements AutoCloseable {

  private static final Logger LOG = LoggerFactory.getLogger(Agent.class);

  private final AgentSettings settings;
  private final ApiAccess client;
  private final Notifier notifier;
  private final Optional<Duration> watchdog;
  private final AgentMetrics metrics;
  private final Clock clock;
  private final DeviceInventory inventory;
  private final ClaimSpecStore specStore;
  private final DeviceRefresh refresh;
  private final Readiness readiness;

  private final ReentrantLock lock = new ReentrantLock();
  private final Condition wake = lock.newCondition();
  private boolean stopRequested;
  private boolean discoveryRequested = true;
  private boolean publishRequested;

  private HandOver handOver;
  /** The kubelet plugin and the slices; null in standalone mode. */
  private ClusterParts cluster;
  private SliceSync slices;
  private HealthEndpoints http;
  private ClusterOptions options = ClusterOptions.DEFAULTS;
  private Instant nextDiscovery = Instant.EPOCH;

  public Agent(AgentSettings settings, Supplier<NodeReport> discovery, KubernetesClient client, Notifier notifier,
      Optional<Duration> watchdog, AgentMetrics metrics, Clock clock) {
    this(settings, DeviceDiscovery.of(discovery), client, notifier, watchdog, metrics, clock);
  }

  public Agent(AgentSettings settings, DeviceDiscovery discovery, KubernetesClient client, Notifier notifier,
      Optional<Duration> watchdog, AgentMetrics metrics, Clock clock) {
    this(settings, discovery, client == null ? null : ApiAccess.of(client), notifier, watchdog, metrics, clock);
  }

  /** With the API reached through {@code client} (null: standalone). */
  public Agent(AgentSettings settings, DeviceDiscovery discovery, ApiAccess client, Notifier notifier,
      Optional<Duration> watchdog, AgentMetrics metrics, Clock clock) {
    this.settings = settings;
    this.client = client;
    this.notifier = notifier;
    this.watchdog = watchdog;
    this.metrics = metrics;
    this.clock = clock;
    this.inventory = new DeviceInventory(settings.nodeName());
    this.specStore = new ClaimSpecStore(settings.cdiRoot());
    this.refresh = new DeviceRefresh(settings, discovery, inventory, metrics, client == null ? specStore : null);
    this.readiness = new Readiness(settings, clock, notifier, metrics, refresh, () -> inventory.all().size());
  }

  /**
   * Cluster mode's health checks, device realisers and device metadata ({@link ClusterOptions}); call before
   * {@link #start()}. The agent closes the health checks.
   */
  public Agent options(UnaryOperator<ClusterOptions> change) {
    options = change.apply(options);
    return this;
  }

  /** The device health monitor (cluster mode, after {@link #start()}). */
  public Optional<DeviceHealthMonitor> health() {
    return Optional.ofNullable(cluster).map(c -> c.health);
  }

  public boolean standalone() {
    return client == null;
  }

  /** Takes the state directory, opens the checkpoint, binds the sockets and the HTTP port; the rest happens in {@link #run()}. */
  public void start() throws IOException, CorruptCheckpointException {
    // Only one instance writes the state and the specs; a rolling update's new pod waits here for the old.
    handOver = HandOver.acquire(settings, clock, this::stopRequested);
    if (standalone()) {
      specStore.removeStaleTemporaryFiles().forEach(p -> LOG.info("removed temporary file of a killed writer file={}", p));
    } else {
      startCluster();
    }
    if (settings.httpPort() != 0) {
      http = readiness.serve();
      LOG.info("serving /healthz /readyz /metrics address={} port={}", settings.httpBindAddress(), http.port());
    }
  }

  private void startCluster() throws IOException, CorruptCheckpointException {
    cluster = new ClusterParts(settings, client, inventory, specStore, metrics, clock);
    cluster.start(options, new ClusterParts.Loop(this::requestPublish, this::requestDiscovery));
    slices = cluster.slices;
    readiness.cluster(slices, cluster.claims, cluster.kubelet, handOver);
    // A newer instance asks for the state directory, or (rolling update) the lock came to this one: publish now.
    handOver.watch(() -> signal(() -> publishRequested = true));
    // What the families made (MPS daemons) is watched by whichever instance holds the state directory.
    cluster.startUpkeep(handOver::leading);
  }

  /** The bound TCP port of {@code grpc.health.v1}, when enabled (cluster mode only: it reports registration). */
  public Optional<Integer> healthcheckPort() {
    return Optional.ofNullable(cluster).map(c -> c.grpcHealthPort);
  }

  /** The bound HTTP port, when enabled. */
  public Optional<Integer> httpPort() {
    return Optional.ofNullable(http).map(HealthEndpoints::port);
  }

  /** Runs the main loop until {@link #requestStop()}. */
  public void run() {
    while (true) {
      Instant now = clock.instant();
      readiness.tick(now);
      watchdog.ifPresent(w -> notifier.notify("WATCHDOG=1"));
      boolean doDiscover;
      boolean doPublish;
      lock.lock();
      try {
        if (stopRequested) {
          return;
        }
        doDiscover = discoveryRequested || !now.isBefore(nextDiscovery);
        doPublish = publishRequested || (slices != null && !now.isBefore(slices.nextRetry()));
        discoveryRequested = false;
        publishRequested = false;
      } finally {
        lock.unlock();
      }
      round(now, doDiscover, doPublish);
      readiness.update();
      waitForWork();
    }
  }

  /** One round of the loop's work; after a hand-over only the probes are answered until the agent is stopped. */
  private void round(Instant now, boolean doDiscover, boolean doPublish) {
    if (handOver.due()) {
      handOver.handOver(cluster.preparer, slices, cluster.kubelet);
    }
    if (handOver.handedOver()) {
      return;
    }
    if (doDiscover) {
      refresh.discover(slices == null || slices.sharedDevicesSupported());
      nextDiscovery = now.plus(settings.resyncInterval());
      doPublish = true;
    }
    if (standalone() || !handOver.leading()) {
      return; // a rolling update's other instance publishes and keeps the claims; this one serves calls only
    }
    slices.keepWatch(clock.instant());
    if (doPublish) {
      slices.publish();
    }
    cluster.claims.maintain(clock.instant(), refresh.discovered());
  }

  private boolean stopRequested() {
    lock.lock();
    try {
      return stopRequested;
    } finally {
      lock.unlock();
    }
  }

  /** Whether the first discovery ran (the inventory Prepare checks against is filled). */
  public boolean hasDiscovered() {
    return refresh.discovered();
  }

  /** Whether the agent still publishes shared devices (false after the API server dropped their fields). */
  public boolean sharedDevicesSupported() {
    return slices == null || slices.sharedDevicesSupported();
  }

  /** Whether this instance publishes and keeps the claims (a rolling update's other instance may instead). */
  boolean leading() {
    return handOver != null && handOver.leading();
  }

  /** Kubelet calls waiting for a rolling update's call lock now (tests: a call is held at the lock). */
  int callsWaiting() {
    return cluster == null || cluster.callLock == null ? 0 : cluster.callLock.waiting();
  }

  /** ResourceSlice watches opened so far (tests: a stalled one was replaced). */
  long watchesOpened() {
    return slices == null ? 0 : slices.watchesOpened();
  }

  private void waitForWork() {
    Instant now = clock.instant();
    Instant retry = slices == null || !handOver.leading() ? Instant.MAX : slices.nextRetry();
    Instant until = nextDiscovery.isBefore(retry) ? nextDiscovery : retry;
    if (watchdog.isPresent() && now.plus(watchdog.get()).isBefore(until)) {
      until = now.plus(watchdog.get());
    }
    if (now.plusSeconds(30).isBefore(until)) {
      until = now.plusSeconds(30);
    }
    long nanos = Math.max(1, Duration.between(now, until).toNanos());
    lock.lock();
    try {
      if (!stopRequested && !discoveryRequested && !publishRequested) {
        wake.awaitNanos(nanos);
      }
    } catch (InterruptedException e) {
      Thread.currentThread().interrupt();
      stopRequested = true;
    } finally {
      lock.unlock();
    }
  }

  /** Discovers from {@code next} from now on (SIGHUP after the config file was read again), starting now. */
  public void replaceDiscovery(DeviceDiscovery next) {
    refresh.replace(next);
    requestDiscovery();
  }

  /** Re-discovers (and republishes) now, e.g. on SIGHUP. */
  public void requestDiscovery() {
    signal(() -> discoveryRequested = true);
  }

  /** Publishes now, e.g. after one of our slices was deleted. */
  public void requestPublish() {
    signal(() -> publishRequested = true);
  }

  /** Makes {@link #run()} return. */
  public void requestStop() {
    signal(() -> stopRequested = true);
  }

  private void signal(Runnable change) {
    lock.lock();
    try {
      change.run();
      wake.signalAll();
    } finally {
      lock.unlock();
    }
  }

  /** STOPPING=1, then drains the kubelet calls in flight and removes the sockets. */
  @Override
  public void close() {
    notifier.notify("STOPPING=1\nSTATUS=shutting down");
    if (cluster != null) {
      cluster.close(handOver.handedOver());
    }
    if (cluster == null || cluster.health == null) {
      options.healthChecks().forEach(HealthCheck::close);
    }
    if (http != null) {
      http.close();
    }
    if (handOver != null) {
      handOver.close();
    }
    LOG.info("stopped");
  }
}
