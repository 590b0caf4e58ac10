package io.nodeatlas.agent.run;

import io.fabric8.kubernetes.client.KubernetesClient;
import io.fabric8.kubernetes.client.KubernetesClientException;
import io.nodeatlas.agent.ops.ApiErrors;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.Future;
import io.fabric8.kubernetes.client.Watch;
import io.nodeatlas.agent.claims.ApiClaimLookup;
import io.nodeatlas.agent.claims.Checkpoint;
import io.nodeatlas.agent.claims.ClaimPreparer;
import io.nodeatlas.agent.claims.ClaimSpecStore;
import io.nodeatlas.agent.claims.ClaimWorkers;
import io.nodeatlas.agent.claims.CorruptCheckpointException;
import io.nodeatlas.agent.claims.DeviceInventory;
import io.nodeatlas.agent.kubelet.KubeletPaths;
import io.nodeatlas.agent.kubelet.KubeletPluginServer;
import io.nodeatlas.agent.kubelet.RegistrationState;
import io.nodeatlas.agent.ops.AgentMetrics;
import io.nodeatlas.agent.ops.HealthEndpoints;
import io.nodeatlas.agent.ops.Notifier;
import io.nodeatlas.agent.slices.PublishException;
import io.nodeatlas.agent.slices.PublishResult;
import io.nodeatlas.agent.slices.ResourceSlicePublisher;
import io.nodeatlas.discovery.model.Device;
import io.nodeatlas.discovery.report.NodeReport;
import io.nodeatlas.discovery.report.DiscoveryWarning;
import java.io.IOException;
import java.time.Clock;
import java.time.Duration;
import java.time.Instant;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.TreeMap;
import java.util.concurrent.locks.Condition;
import java.util.concurrent.locks.ReentrantLock;
import java.util.function.Supplier;
import java.util.stream.Collectors;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * The {@code nodeatlas run} daemon.
 *
 * <p><b>Cluster mode</b> (an API client is given): serves the kubelet plugin sockets from the start,
 * also while the API server is unreachable (Prepare then fails per claim, Unprepare still works from
 * the checkpoint), and keeps this node's ResourceSlices equal to the discovered devices, retrying
 * failed publishes with exponential backoff. <b>Standalone mode</b> (no API client): keeps the static
 * CDI specs in the CDI dir current and serves health and metrics, nothing else.
 *
 * <p>All periodic work happens on the thread that calls {@link #run()}; it is also the thread that
 * pets the systemd watchdog, so a stuck loop trips the watchdog ({@code sd_notify(3)} {@code WATCHDOG=1}).
 */
public final class Agent implements AutoCloseable {

  private static final Logger LOG = LoggerFactory.getLogger(Agent.class);

  static final Duration MIN_BACKOFF = Duration.ofSeconds(1);
  static final Duration MAX_BACKOFF = Duration.ofMinutes(2);

  /** A watch that has not opened by then is abandoned (at most the resync interval). */
  static final Duration WATCH_OPEN_TIMEOUT = Duration.ofSeconds(30);
  /** How long the loop waits for one publish (each request has the client's own timeout as well). */
  static final Duration API_CALL_BOUND = Duration.ofSeconds(60);
  /** Watch attempts that hang past their deadline; more are not started until one ends (no thread pile-up). */
  static final int MAX_ABANDONED_WATCHES = 4;

  private final AgentSettings settings;
  private volatile DeviceDiscovery discovery;
  private final KubernetesClient client;
  private final Notifier notifier;
  private final Optional<Duration> watchdog;
  private final AgentMetrics metrics;
  private final Clock clock;
  private final DeviceInventory inventory;

  private final ReentrantLock lock = new ReentrantLock();
  private final Condition wake = lock.newCondition();
  private boolean stopRequested;
  private boolean discoveryRequested = true;
  private boolean publishRequested;

  private Checkpoint checkpoint;
  private ClaimSpecStore specStore;
  private KubeletPluginServer kubelet;
  private Integer grpcHealthPort;
  private ResourceSlicePublisher publisher;
  private Watch sliceWatch;
  private HealthEndpoints http;
  private ClaimPreparer preparer;
  private ClaimKeeper claims;
  private StateLock stateLock;
  private List<io.nodeatlas.discovery.health.HealthCheck> healthChecks = List.of();
  private Duration healthInterval = Duration.ofSeconds(10);
  private java.util.concurrent.ScheduledExecutorService healthScheduler;
  private io.nodeatlas.agent.health.DeviceHealthMonitor health;
  private io.nodeatlas.agent.status.ClaimNetworkStatus claimStatus;
  private boolean deviceMetadata = true;

  /** API calls leave the loop's thread: a hung server delays them, never the loop (issue: hung watch). */
  private ExecutorService apiCalls;
  private ExecutorService watchCalls;
  private Future<Watch> watchOpening;
  private Instant watchOpenDeadline;
  private Instant watchRenewAt = Instant.MIN;
  private volatile boolean watchClosed;
  private final java.util.concurrent.atomic.AtomicInteger abandonedWatches = new java.util.concurrent.atomic.AtomicInteger();
  private final java.util.concurrent.atomic.AtomicLong watchesOpened = new java.util.concurrent.atomic.AtomicLong();
  private Future<?> publishing;
  private Instant publishStarted;

  private volatile boolean handedOver;
  private volatile boolean handoverRequested;
  private Thread handoverWatch;
  private String lastSummary = "";

  /** Starts at construction, so /healthz measures the loop from the agent's start, never from the epoch. */
  private volatile Instant lastTick;
  private volatile boolean discovered;
  private volatile String lastPublishError = "not published yet";
  private volatile String lastCdiError = "";
  /**
   * False once the API server was seen to drop the fields of shared devices (KEP-5075,
   * {@code DRAConsumableCapacity}): discovery then runs for exclusive devices so everything stays
   * allocatable. Stays false until the agent restarts (a gate is changed by restarting the server).
   */
  private volatile boolean sharedDevicesSupported = true;
  private Duration backoff = MIN_BACKOFF;
  private Instant nextDiscovery = Instant.EPOCH;
  private Instant nextPublishRetry = Instant.MAX;
  private boolean readySent;

  public Agent(AgentSettings settings, Supplier<NodeReport> discovery, KubernetesClient client, Notifier notifier,
      Optional<Duration> watchdog, AgentMetrics metrics, Clock clock) {
    this(settings, DeviceDiscovery.of(discovery), client, notifier, watchdog, metrics, clock);
  }

  public Agent(AgentSettings settings, DeviceDiscovery discovery, KubernetesClient client, Notifier notifier,
      Optional<Duration> watchdog, AgentMetrics metrics, Clock clock) {
    this.settings = settings;
    this.discovery = discovery;
    this.client = client;
    this.notifier = notifier;
    this.watchdog = watchdog;
    this.metrics = metrics;
    this.clock = clock;
    this.inventory = new DeviceInventory(settings.nodeName());
    this.lastTick = clock.instant();
  }

  /**
   * The sources' health checks, polled every {@code interval} once {@link #start()} ran (cluster mode):
   * unhealthy devices are tainted in the slices and reported on the kubelet's health stream. Call
   * before {@link #start()}; the agent closes them.
   */
  public Agent healthChecks(List<io.nodeatlas.discovery.health.HealthCheck> checks, Duration interval) {
    this.healthChecks = List.copyOf(checks);
    this.healthInterval = interval;
    return this;
  }

  /**
   * Whether prepared claims get the device metadata files of KEP-5304 (on by default); call before
   * {@link #start()}. Off, Unprepare still removes the files claims got while it was on.
   */
  public Agent deviceMetadata(boolean on) {
    this.deviceMetadata = on;
    return this;
  }

  /** The device health monitor (cluster mode, after {@link #start()}). */
  public Optional<io.nodeatlas.agent.health.DeviceHealthMonitor> health() {
    return Optional.ofNullable(health);
  }

  public boolean standalone() {
    return client == null;
  }

  /** Opens the checkpoint, binds the sockets and the HTTP port; discovery and publishing start in {@link #run()}. */
  public void start() throws IOException, CorruptCheckpointException {
    try {
      // Only one instance writes the state and the specs; a rolling update's new pod waits here for the old.
      stateLock = StateLock.acquire(settings.lockFile(), settings.lockWait(), clock, this::stopRequested);
    } catch (InterruptedException e) {
      Thread.currentThread().interrupt();
      throw new IOException("interrupted while waiting for the lock " + settings.lockFile(), e);
    }
    specStore = new ClaimSpecStore(settings.cdiRoot());
    specStore.removeStaleTemporaryFiles().forEach(p -> LOG.info("removed temporary file of a killed writer file={}", p));
    if (!standalone()) {
      apiCalls = Executors.newSingleThreadExecutor(daemon("api-calls"));
      watchCalls = Executors.newCachedThreadPool(daemon("slice-watch"));
      checkpoint = Checkpoint.open(settings.checkpointFile());
      LOG.info("checkpoint loaded file={} claims={}", checkpoint.file(), checkpoint.all().size());
      publisher = new ResourceSlicePublisher(client, settings.driverName(), settings.nodeName());
      io.nodeatlas.agent.shares.Families families = io.nodeatlas.agent.shares.Families.installed(
          Agent.class.getClassLoader(), new io.nodeatlas.discovery.share.SharePlacer.Settings(settings.hookPath()));
      preparer = new ClaimPreparer(settings.driverName(), inventory, new ApiClaimLookup(client),
          specStore, checkpoint, metrics, families, ClaimWorkers.pooled(ClaimPreparer.CALL_PARALLELISM));
      preparer.withMetadata(new io.nodeatlas.agent.metadata.DeviceMetadataFiles(settings.stateDir(), settings.cdiRoot(),
          specStore.writer(), settings.driverName(), inventory, families::networkData, deviceMetadata));
      claims = new ClaimKeeper(settings, client, inventory, specStore, checkpoint, preparer, apiCalls);
      claims.checkLostCheckpoint();
      if (claims.lostCheckpoint() == null) {
        claims.recordBoot();
      }
      claimStatus = new io.nodeatlas.agent.status.ClaimNetworkStatus(client, settings.driverName(), inventory, families);
      preparer.onPrepared(claimStatus::prepared);
      io.nodeatlas.agent.health.ResourceHealthService healthStream = new io.nodeatlas.agent.health.ResourceHealthService();
      health = new io.nodeatlas.agent.health.DeviceHealthMonitor(healthChecks, inventory::all, clock, this::requestPublish,
          healthStream, publisher.poolName());
      kubelet = KubeletPluginServer.start(new KubeletPaths(settings.kubeletRoot(), settings.driverName(), settings.podUid()),
          preparer, healthStream);
      healthScheduler = java.util.concurrent.Executors.newSingleThreadScheduledExecutor(r -> {
        Thread t = new Thread(r, "device-health");
        t.setDaemon(true);
        return t;
      });
      health.start(healthScheduler, healthInterval);
      kubelet.setServing(false);
      startHandoverWatch();
      if (settings.healthcheckPort() >= 0) {
        try {
          grpcHealthPort = kubelet.startHealthPort(settings.httpBindAddress(), settings.healthcheckPort());
        } catch (IOException e) {
          throw portProblem("healthcheckPort", settings.healthcheckPort(), e);
        }
      }
    }
    if (settings.httpPort() != 0) {
      Map<String, HealthEndpoints.Check> live = new LinkedHashMap<>();
      live.put("loop", new HealthEndpoints.Check("loop", this::loopFailure));
      Map<String, HealthEndpoints.Check> ready = new LinkedHashMap<>(live);
      ready.put("discovered", new HealthEndpoints.Check("discovered", () -> discovered ? null : "no discovery yet"));
      if (!standalone()) {
        ready.put("sharedDevices", HealthEndpoints.Check.note("sharedDevices", this::sharedDevicesNote));
      }
      if (standalone()) {
        ready.put("cdi", new HealthEndpoints.Check("cdi", () -> lastCdiError.isEmpty() ? null : lastCdiError));
      } else {
        ready.put("registered", new HealthEndpoints.Check("registered", this::registrationFailure));
        ready.put("checkpoint", new HealthEndpoints.Check("checkpoint", () -> claims.lostCheckpoint()));
        ready.put("serving", new HealthEndpoints.Check("serving", () -> handedOver ? HANDED_OVER : null));
        ready.put("published", new HealthEndpoints.Check("published", () -> lastPublishError.isEmpty() ? null : lastPublishError));
      }
      try {
        http = HealthEndpoints.start(settings.httpBindAddress(), Math.max(settings.httpPort(), 0), live, ready, metrics);
      } catch (IOException e) {
        throw portProblem("httpPort", settings.httpPort(), e);
      }
      LOG.info("serving /healthz /readyz /metrics address={} port={}", settings.httpBindAddress(), http.port());
    }
  }

  /** A port that is taken, named as its setting; any other bind failure as it is. */
  private static IOException portProblem(String setting, int port, IOException e) {
    // gRPC's Netty reports a taken port as its own exception ("bind(..) failed: Address already in use")
    // under an IOException; the JDK's as a BindException.
    for (Throwable t = e; t != null && port > 0; t = t.getCause()) {
      if (t instanceof java.net.BindException || String.valueOf(t.getMessage()).contains("Address already in use")) {
        throw new AgentLauncher.PortTakenException(setting, port, e);
      }
    }
    return e;
  }

  /** The bound TCP port of {@code grpc.health.v1}, when enabled (cluster mode only: it reports registration). */
  public Optional<Integer> healthcheckPort() {
    return Optional.ofNullable(grpcHealthPort);
  }

  /** The bound HTTP port, when enabled. */
  public Optional<Integer> httpPort() {
    return Optional.ofNullable(http).map(HealthEndpoints::port);
  }

  /** Runs the main loop until {@link #requestStop()}. */
  public void run() {
    while (true) {
      Instant now = clock.instant();
      lastTick = now;
      watchdog.ifPresent(w -> notifier.notify("WATCHDOG=1"));
      boolean doDiscover;
      boolean doPublish;
      lock.lock();
      try {
        if (stopRequested) {
          return;
        }
        doDiscover = discoveryRequested || !now.isBefore(nextDiscovery);
        doPublish = publishRequested || !now.isBefore(nextPublishRetry);
        discoveryRequested = false;
        publishRequested = false;
      } finally {
        lock.unlock();
      }
      if (handoverRequested && !handedOver) {
        handOver();
      }
      if (handedOver) {
        // The new instance serves and publishes now; this one only answers its probes until it is stopped.
        updateReadiness();
        waitForWork();
        continue;
      }
      if (doDiscover) {
        discover();
        nextDiscovery = now.plus(settings.resyncInterval());
        doPublish = true;
      }
      if (!standalone()) {
        keepWatch(clock.instant());
      }
      if (doPublish && !standalone()) {
        publish();
      }
      if (!standalone()) {
        claims.maintain(clock.instant(), discovered);
      }
      updateReadiness();
      waitForWork();
    }
  }

  private boolean stopRequested() {
    lock.lock();
    try {
      return stopRequested;
    } finally {
      lock.unlock();
    }
  }

  private static java.util.concurrent.ThreadFactory daemon(String name) {
    return r -> {
      Thread t = new Thread(r, name);
      t.setDaemon(true);
      return t;
    };
  }

  /**
   * Keeps one ResourceSlice watch open, without ever waiting for the API server on the loop's thread:
   * a watch is opened on its own thread; one that has not opened after {@link #WATCH_OPEN_TIMEOUT}
   * (or the resync interval, when shorter) is abandoned and another is opened, and every open watch
   * is replaced after one resync interval, so a watch that stalled silently (a connection that stays
   * up and carries nothing) costs at most one interval, and the periodic resync covers that interval.
   */
  private void keepWatch(Instant now) {
    if (watchOpening != null) {
      if (watchOpening.isDone()) {
        try {
          Watch w = watchOpening.get();
          closeQuietly(sliceWatch);
          sliceWatch = w;
          watchRenewAt = now.plus(settings.resyncInterval());
          watchesOpened.incrementAndGet();
          LOG.debug("ResourceSlice watch open");
        } catch (java.util.concurrent.ExecutionException e) {
          LOG.warn("cannot watch ResourceSlices err=\"{}\"; relying on the periodic resync, trying again in {} s",
              withCredentials(ApiErrors.describe(e.getCause(), client.getMasterUrl())), settings.resyncInterval().toSeconds());
          watchRenewAt = now.plus(settings.resyncInterval());
        } catch (InterruptedException e) {
          Thread.currentThread().interrupt();
        } catch (java.util.concurrent.CancellationException e) {
          watchRenewAt = now;
        }
        watchOpening = null;
      } else if (now.isAfter(watchOpenDeadline)) {
        LOG.warn("the ResourceSlice watch did not open within {} s: abandoned, opening another (the API server "
            + "accepted the request and did not answer)", watchOpenTimeout().toSeconds());
        watchOpening.cancel(true);
        watchOpening = null;
        watchRenewAt = now;
      }
      return;
    }
    if (sliceWatch != null && !watchClosed && now.isBefore(watchRenewAt)) {
      return;
    }
    if (abandonedWatches.get() >= MAX_ABANDONED_WATCHES) {
      return; // earlier attempts still hang in the client; wait for one to end before starting more
    }
    Watch old = sliceWatch;
    sliceWatch = null;
    watchClosed = false;
    if (old != null) {
      watchCalls.execute(() -> closeQuietly(old));
    }
    abandonedWatches.incrementAndGet();
    watchOpenDeadline = now.plus(watchOpenTimeout());
    watchOpening = watchCalls.submit(() -> {
      try {
        Watch w = publisher.watch(this::requestPublish, () -> {
          watchClosed = true;
          requestPublish();
        });
        if (Thread.currentThread().isInterrupted()) {
          closeQuietly(w); // abandoned meanwhile: nobody will close it
        }
        return w;
      } finally {
        abandonedWatches.decrementAndGet();
      }
    });
  }

  private Duration watchOpenTimeout() {
    return settings.resyncInterval().compareTo(WATCH_OPEN_TIMEOUT) < 0 ? settings.resyncInterval() : WATCH_OPEN_TIMEOUT;
  }

  /** ResourceSlice watches opened so far (tests: a stalled one was replaced). */
  long watchesOpened() {
    return watchesOpened.get();
  }

  private static void closeQuietly(Watch w) {
    if (w != null) {
      try {
        w.close();
      } catch (RuntimeException e) {
        LOG.debug("closing a ResourceSlice watch failed err=\"{}\"", e.toString());
      }
    }
  }

  private void discover() {
    long start = System.nanoTime();
    NodeReport report;
    try {
      report = discovery.discover(sharedDevicesSupported);
    } catch (RuntimeException e) {
      LOG.error("discovery failed err=\"{}\"", e.toString());
      return;
    }
    List<Device> devices = report.devices();
    inventory.replace(devices, report.topology());
    Map<String, Long> bySource = new TreeMap<>(devices.stream().collect(Collectors.groupingBy(Device::source, Collectors.counting())));
    report.sources().keySet().forEach(s -> bySource.putIfAbsent(s, 0L));
    metrics.discovered((System.nanoTime() - start) / 1e9, bySource,
        report.warnings().stream().collect(Collectors.groupingBy(DiscoveryWarning::source, Collectors.counting())));
    for (DiscoveryWarning w : report.warnings()) {
      LOG.debug("discovery warning source={} msg=\"{}\"", w.source(), w.message());
    }
    summarize(report);
    discovered = true;
    if (standalone()) {
      try {
        int changed = specStore.reconcileStatic(devices);
        lastCdiError = "";
        if (changed > 0) {
          LOG.info("static CDI specs updated dir={} changed={}", settings.cdiRoot(), changed);
        }
      } catch (IOException | RuntimeException e) {
        lastCdiError = e.getMessage();
        LOG.error("cannot write static CDI specs dir={} err=\"{}\"", settings.cdiRoot(), e.getMessage());
      }
    }
  }

  /**
   * One line at the default level after the first discovery and whenever it changes: each source's
   * state (with the reason a source is unavailable or failed), the devices per type, the warnings.
   */
  private void summarize(NodeReport report) {
    StringBuilder sources = new StringBuilder();
    report.sources().forEach((name, status) -> {
      sources.append(sources.length() == 0 ? "" : ", ").append(name).append(": ").append(status.state().jsonName());
      if (!status.isOk() && !status.reason().isEmpty()) {
        sources.append(" (").append(status.reason()).append(")");
      }
    });
    Map<String, Long> byType = new TreeMap<>(report.devices().stream()
        .collect(Collectors.groupingBy(d -> d.type().orElse("untyped"), Collectors.counting())));
    String summary = "sources=[" + sources + "] devices=" + report.devices().size() + " byType=" + byType
        + " warnings=" + report.warnings().size();
    if (!summary.equals(lastSummary)) {
      lastSummary = summary;
      LOG.info("discovered {}", summary);
    }
  }

  /**
   * Publishes on the API thread and waits for it at most {@link #API_CALL_BOUND}; a publish still
   * running then (a server that accepts and never answers) fails this round and is not started again
   * until it ends.
   */
  private void publish() {
    Instant now = clock.instant();
    if (publishing != null && !publishing.isDone()) {
      fail("the previous publish has been waiting for the API server for "
          + Duration.between(publishStarted, now).toSeconds() + " s");
      return;
    }
    List<Device> devices = inventory.all();
    Map<String, List<io.fabric8.kubernetes.api.model.resource.v1.DeviceTaint>> taints = health == null ? Map.of() : health.taints();
    publishStarted = now;
    Future<PublishResult> result = apiCalls.submit(() -> publisher.sync(devices, taints));
    publishing = result;
    PublishResult r;
    try {
      r = result.get(API_CALL_BOUND.toMillis(), java.util.concurrent.TimeUnit.MILLISECONDS);
    } catch (java.util.concurrent.TimeoutException e) {
      fail("the API server did not finish a publish within " + API_CALL_BOUND.toSeconds() + " s");
      return;
    } catch (java.util.concurrent.ExecutionException e) {
      Throwable cause = e.getCause();
      fail(cause instanceof PublishException ? cause.getMessage() : ApiErrors.describe(cause));
      return;
    } catch (InterruptedException e) {
      Thread.currentThread().interrupt();
      return;
    }
    r.warnings().forEach(w -> LOG.warn("{}", w));
    if (sharedDevicesSupported && publisher.sharing() == ResourceSlicePublisher.Sharing.DROPPED) {
      // The publisher logged the cause and the fix; discover again for exclusive devices and publish those.
      sharedDevicesSupported = false;
      metrics.sharedDevicesSupported(false);
      requestDiscovery();
    }
    metrics.published(r.unchanged() ? "unchanged" : "changed", r.devices());
    lastPublishError = "";
    backoff = MIN_BACKOFF;
    nextPublishRetry = Instant.MAX;
  }

  /** An authentication failure's message with the server and where the credentials come from, as operators need them. */
  private String withCredentials(String why) {
    if (client == null || why == null || !why.contains("HTTP 401")) {
      return why;
    }
    Object source = client.getConfiguration().getAdditionalProperties().get(io.nodeatlas.agent.kubeconfig.KubeconfigAuth.CREDENTIALS);
    return why + " (the API server " + client.getMasterUrl() + " refused the credentials of "
        + (source instanceof String s ? s : "the client configuration") + ")";
  }

  private void fail(String failure) {
    String why = withCredentials(failure);
    metrics.published("error", 0);
    lastPublishError = why;
    nextPublishRetry = clock.instant().plus(backoff);
    LOG.warn("publish failed, retrying in {} s err=\"{}\"", backoff.toMillis() / 1000.0, why);
    backoff = backoff.multipliedBy(2).compareTo(MAX_BACKOFF) > 0 ? MAX_BACKOFF : backoff.multipliedBy(2);
  }

  static final String HANDED_OVER = "handed over to a newer instance (rolling update); this one only waits to be stopped";

  /** Polls for a newer instance asking for the state directory (a rolling update) and wakes the loop. */
  private void startHandoverWatch() {
    handoverWatch = new Thread(() -> {
      while (!Thread.currentThread().isInterrupted()) {
        if (stateLock.handoverRequested()) {
          handoverRequested = true;
          signal(() -> { });
          return;
        }
        try {
          Thread.sleep(250);
        } catch (InterruptedException e) {
          return;
        }
      }
    }, "handover-watch");
    handoverWatch.setDaemon(true);
    handoverWatch.start();
  }

  /**
   * A newer instance waits for the state directory (rolling update, DaemonSet {@code maxSurge: 1}):
   * stop taking claims, let the calls in flight finish (the checkpoint is durable after each), remove
   * our sockets so the kubelet turns to the new instance, and release the lock. The new instance then
   * reads the checkpoint and answers every claim this one prepared.
   */
  private void handOver() {
    LOG.info("a newer instance asks for the state directory; handing over");
    handedOver = true;
    preparer.refusePrepare(HANDED_OVER);
    closeQuietly(sliceWatch);
    sliceWatch = null;
    if (kubelet != null) {
      kubelet.shutdown(settings.drainTimeout().toMillis());
    }
    try {
      stateLock.close();
      LOG.info("handed over: lock released lock={}", settings.lockFile());
    } catch (IOException e) {
      LOG.error("cannot release the lock {} err=\"{}\"", settings.lockFile(), e.getMessage());
    }
  }

  private void updateReadiness() {
    boolean ready = readinessFailure() == null;
    metrics.ready(ready);
    if (kubelet != null) {
      kubelet.setServing(ready);
    }
    String status = status();
    if (!readySent) {
      // READY=1 after the sockets are bound, the first discovery ran and the first publish was tried.
      notifier.notify("READY=1\nSTATUS=" + status);
      readySent = true;
    } else {
      notifier.notify("STATUS=" + status);
    }
  }

  private String status() {
    int n = inventory.all().size();
    if (standalone()) {
      return "standalone: " + n + " devices, " + (lastCdiError.isEmpty() ? "CDI specs current" : "CDI error: " + lastCdiError);
    }
    return n + " devices; " + (lastPublishError.isEmpty() ? "published" : "publish failing: " + lastPublishError)
        + "; " + (registrationFailure() == null ? "registered" : registrationFailure());
  }

  private String readinessFailure() {
    if (!discovered) {
      return "no discovery yet";
    }
    if (standalone()) {
      return lastCdiError.isEmpty() ? null : lastCdiError;
    }
    if (handedOver) {
      return HANDED_OVER;
    }
    if (claims != null && claims.lostCheckpoint() != null) {
      return claims.lostCheckpoint();
    }
    if (registrationFailure() != null) {
      return registrationFailure();
    }
    return lastPublishError.isEmpty() ? null : lastPublishError;
  }

  private String registrationFailure() {
    RegistrationState.Status s = kubelet.registration().current();
    if (!s.notified()) {
      return "waiting for the kubelet to register the plugin";
    }
    return s.registered() ? null : "kubelet refused the registration: " + s.error();
  }

  /** The {@code /readyz} detail of shared devices: never a failure, the agent falls back and stays useful. */
  private String sharedDevicesNote() {
    if (sharedDevicesSupported) {
      return publisher != null && publisher.sharing() == ResourceSlicePublisher.Sharing.KEPT
          ? "the API server keeps shared devices (allowMultipleAllocations, requestPolicy)" : null;
    }
    return "the API server drops allowMultipleAllocations and requestPolicy (DRAConsumableCapacity feature gate off "
        + "or a server older than 1.36): devices are published exclusive, CPUs one device per physical core";
  }

  /** Whether the first discovery ran (the inventory Prepare checks against is filled). */
  public boolean hasDiscovered() {
    return discovered;
  }

  /** Whether the agent still publishes shared devices (false after the API server dropped their fields). */
  public boolean sharedDevicesSupported() {
    return sharedDevicesSupported;
  }

  private String loopFailure() {
    Duration age = Duration.between(lastTick, clock.instant());
    Duration limit = settings.resyncInterval().plus(Duration.ofMinutes(2));
    return age.compareTo(limit) > 0 ? "main loop last ran " + age.toSeconds() + " s ago" : null;
  }

  private void waitForWork() {
    Instant now = clock.instant();
    Instant until = nextDiscovery.isBefore(nextPublishRetry) ? nextDiscovery : nextPublishRetry;
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
    discovery = next;
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
    if (handoverWatch != null) {
      handoverWatch.interrupt();
    }
    if (healthScheduler != null) {
      healthScheduler.shutdownNow();
    }
    if (claimStatus != null) {
      claimStatus.close();
    }
    if (health != null) {
      health.close();
    } else {
      healthChecks.forEach(io.nodeatlas.discovery.health.HealthCheck::close);
    }
    closeQuietly(sliceWatch);
    if (kubelet != null && !handedOver) {
      kubelet.shutdown(settings.drainTimeout().toMillis());
    }
    if (http != null) {
      http.close();
    }
    // Threads stuck in a call to a hung API server are daemons: they do not hold the exit.
    if (apiCalls != null) {
      apiCalls.shutdownNow();
    }
    if (watchCalls != null) {
      watchCalls.shutdownNow();
    }
    if (stateLock != null) {
      try {
        stateLock.close();
      } catch (IOException e) {
        LOG.warn("cannot release the lock {} err=\"{}\"", settings.lockFile(), e.getMessage());
      }
    }
    LOG.info("stopped");
  }
}
