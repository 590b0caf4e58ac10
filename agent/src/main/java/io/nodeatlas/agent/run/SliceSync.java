package io.nodeatlas.agent.run;

import io.fabric8.kubernetes.api.model.resource.v1.DeviceTaint;
import io.nodeatlas.agent.api.SliceApi.Watch;
import io.nodeatlas.agent.claims.DeviceInventory;
import io.nodeatlas.agent.kubeconfig.KubeconfigAuth;
import io.nodeatlas.agent.ops.AgentMetrics;
import io.nodeatlas.agent.ops.ApiErrors;
import io.nodeatlas.agent.slices.PublishException;
import io.nodeatlas.agent.slices.PublishResult;
import io.nodeatlas.agent.slices.ResourceSlicePublisher;
import io.nodeatlas.discovery.model.Device;
import java.time.Clock;
import java.time.Duration;
import java.time.Instant;
import java.util.List;
import java.util.Map;
import java.util.concurrent.CancellationException;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Future;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.TimeoutException;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.concurrent.atomic.AtomicLong;
import java.util.function.Supplier;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * Keeps this node's ResourceSlices equal to the inventory through {@link ResourceSlicePublisher}: a
 * publish per discovery or slice change, retried with exponential backoff, and one ResourceSlice watch
 * kept open; the API server is only ever waited for on threads of its own, bounded.
 */
final class SliceSync {

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
  private final ApiAccess api;
  private final ResourceSlicePublisher publisher;
  private final DeviceInventory inventory;
  private final AgentMetrics metrics;
  private final Clock clock;
  private final ExecutorService apiCalls;
  private final ExecutorService watchCalls;
  private final Runnable requestPublish;
  private final Runnable requestDiscovery;
  private final Supplier<Map<String, List<DeviceTaint>>> taints;

  private Watch sliceWatch;
  private Future<Watch> watchOpening;
  private Instant watchOpenDeadline;
  private Instant watchRenewAt = Instant.MIN;
  private volatile boolean watchClosed;
  /** A watch that ended is opened again no sooner than this: 1 s doubling to the resync interval. */
  private volatile Instant watchRetryAt = Instant.MIN;
  private volatile Duration watchBackoff = MIN_BACKOFF;
  private final AtomicInteger abandonedWatches = new AtomicInteger();
  private final AtomicLong watchesOpened = new AtomicLong();
  private Future<?> publishing;
  private Instant publishStarted;
  private volatile String lastPublishError = "not published yet";
  /**
   * False once the API server was seen to drop the fields of shared devices (KEP-5075,
   * {@code DRAConsumableCapacity}); stays false until the agent restarts.
   */
  private volatile boolean sharedDevicesSupported = true;
  private Duration backoff = MIN_BACKOFF;
  private Instant nextRetry = Instant.MAX;

  SliceSync(AgentSettings settings, ApiAccess api, ResourceSlicePublisher publisher, DeviceInventory inventory,
      AgentMetrics metrics, Clock clock, ExecutorService apiCalls, ExecutorService watchCalls, Runnable requestPublish,
      Runnable requestDiscovery, Supplier<Map<String, List<DeviceTaint>>> taints) {
    this.settings = settings;
    this.api = api;
    this.publisher = publisher;
    this.inventory = inventory;
    this.metrics = metrics;
    this.clock = clock;
    this.apiCalls = apiCalls;
    this.watchCalls = watchCalls;
    this.requestPublish = requestPublish;
    this.requestDiscovery = requestDiscovery;
    this.taints = taints;
  }

  /** "" once the last publish succeeded; else why it failed. */
  String lastPublishError() {
    return lastPublishError;
  }

  /** When a failed publish is tried again ({@link Instant#MAX}: nothing to retry). */
  Instant nextRetry() {
    return nextRetry;
  }

  boolean sharedDevicesSupported() {
    return sharedDevicesSupported;
  }

  /** ResourceSlice watches opened so far (tests: a stalled one was replaced). */
  long watchesOpened() {
    return watchesOpened.get();
  }

  /**
   * Keeps one ResourceSlice watch open, without ever waiting for the API server on the loop's thread:
   * a watch is opened on its own thread; one that has not opened after {@link #WATCH_OPEN_TIMEOUT}
   * (or the resync interval, when shorter) is abandoned and another is opened, and every open watch
   * is replaced after one resync interval, so a watch that stalled silently costs at most one interval.
   */
  void keepWatch(Instant now) {
    if (watchOpening != null) {
      checkOpening(now);
      return;
    }
    if (sliceWatch != null && !watchClosed && now.isBefore(watchRenewAt)) {
      return;
    }
    if (watchClosed && now.isBefore(watchRetryAt)) {
      return; // it ended by itself: not again at once (a server that refuses watches is not asked in a loop)
    }
    if (sliceWatch != null && !watchClosed) {
      watchBackoff = MIN_BACKOFF; // it lasted its whole interval
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
        Watch w = publisher.watch(requestPublish, () -> {
          Duration wait = watchBackoff;
          watchRetryAt = clock.instant().plus(wait);
          Duration next = wait.multipliedBy(2);
          watchBackoff = next.compareTo(settings.resyncInterval()) > 0 ? settings.resyncInterval() : next;
          watchClosed = true;
          requestPublish.run();
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

  private void checkOpening(Instant now) {
    if (watchOpening.isDone()) {
      try {
        Watch w = watchOpening.get();
        closeQuietly(sliceWatch);
        sliceWatch = w;
        watchRenewAt = now.plus(settings.resyncInterval());
        watchesOpened.incrementAndGet();
        LOG.debug("ResourceSlice watch open");
      } catch (ExecutionException e) {
        LOG.warn("cannot watch ResourceSlices err=\"{}\"; relying on the periodic resync, trying again in {} s",
            withCredentials(describe(e.getCause())), settings.resyncInterval().toSeconds());
        watchRenewAt = now.plus(settings.resyncInterval());
      } catch (InterruptedException e) {
        Thread.currentThread().interrupt();
      } catch (CancellationException e) {
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
  }

  private Duration watchOpenTimeout() {
    return settings.resyncInterval().compareTo(WATCH_OPEN_TIMEOUT) < 0 ? settings.resyncInterval() : WATCH_OPEN_TIMEOUT;
  }

  /** Closes the watch (a hand-over or shutdown); {@link #keepWatch} opens another when called again. */
  void closeWatch() {
    closeQuietly(sliceWatch);
    sliceWatch = null;
  }

  /** A failure to open the watch as one line ({@link io.nodeatlas.agent.api.ApiException}'s are already). */
  private String describe(Throwable t) {
    if (t instanceof io.nodeatlas.agent.api.ApiException e) {
      return e.getMessage();
    }
    try {
      return ApiErrors.describe(t, new java.net.URL(api.server()));
    } catch (java.net.MalformedURLException e) {
      return ApiErrors.describe(t);
    }
  }

  static void closeQuietly(Watch w) {
    if (w != null) {
      try {
        w.close();
      } catch (RuntimeException e) {
        LOG.debug("closing a ResourceSlice watch failed err=\"{}\"", e.toString());
      }
    }
  }

  /**
   * Publishes on the API thread and waits for it at most {@link #API_CALL_BOUND}; a publish still
   * running then (a server that accepts and never answers) fails this round and is not started again
   * until it ends.
   */
  void publish() {
    Instant now = clock.instant();
    if (publishing != null && !publishing.isDone()) {
      fail("the previous publish has been waiting for the API server for "
          + Duration.between(publishStarted, now).toSeconds() + " s");
      return;
    }
    List<Device> devices = inventory.all();
    Map<String, List<DeviceTaint>> deviceTaints = taints.get();
    publishStarted = now;
    Future<PublishResult> result = apiCalls.submit(() -> publisher.sync(devices, deviceTaints));
    publishing = result;
    PublishResult r;
    try {
      r = result.get(API_CALL_BOUND.toMillis(), TimeUnit.MILLISECONDS);
    } catch (TimeoutException e) {
      fail("the API server did not finish a publish within " + API_CALL_BOUND.toSeconds() + " s");
      return;
    } catch (ExecutionException e) {
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
      requestDiscovery.run();
    }
    metrics.published(r.unchanged() ? "unchanged" : "changed", r.devices());
    lastPublishError = "";
    backoff = MIN_BACKOFF;
    nextRetry = Instant.MAX;
  }

  private void fail(String failure) {
    String why = withCredentials(failure);
    metrics.published("error", 0);
    lastPublishError = why;
    nextRetry = clock.instant().plus(backoff);
    LOG.warn("publish failed, retrying in {} s err=\"{}\"", backoff.toMillis() / 1000.0, why);
    backoff = backoff.multipliedBy(2).compareTo(MAX_BACKOFF) > 0 ? MAX_BACKOFF : backoff.multipliedBy(2);
  }

  /** An authentication failure's message with the server and where the credentials come from, as operators need them. */
  private String withCredentials(String why) {
    if (why == null || !why.contains("HTTP 401")) {
      return why;
    }
    return why + " (the API server " + api.server() + " refused the credentials of " + api.credentials() + ")";
  }

  /** The {@code /readyz} detail of shared devices: never a failure, the agent falls back and stays useful. */
  String sharedDevicesNote() {
    if (sharedDevicesSupported) {
      return publisher.sharing() == ResourceSlicePublisher.Sharing.KEPT
          ? "the API server keeps shared devices (allowMultipleAllocations, requestPolicy)" : null;
    }
    return "the API server drops allowMultipleAllocations and requestPolicy (DRAConsumableCapacity feature gate off "
        + "or a server older than 1.36): devices are published exclusive, CPUs one device per physical core";
  }
}
