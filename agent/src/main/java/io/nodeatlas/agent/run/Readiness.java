package io.nodeatlas.agent.run;

import io.nodeatlas.agent.kubelet.KubeletPluginServer;
import io.nodeatlas.agent.kubelet.RegistrationState;
import io.nodeatlas.agent.ops.AgentMetrics;
import io.nodeatlas.agent.ops.HealthEndpoints;
import io.nodeatlas.agent.ops.Notifier;
import java.io.IOException;
import java.time.Clock;
import java.time.Duration;
import java.time.Instant;
import java.util.LinkedHashMap;
import java.util.Map;

/**
 * What the agent tells about itself: {@code /healthz} and {@code /readyz}, the {@code grpc.health.v1}
 * status of the DRA socket, and systemd's {@code READY=1} and {@code STATUS=} ({@code sd_notify(3)}).
 */
final class Readiness {

  private final AgentSettings settings;
  private final Clock clock;
  private final Notifier notifier;
  private final AgentMetrics metrics;
  private final DeviceRefresh refresh;
  private final java.util.function.IntSupplier devices;
  private SliceSync slices;
  private ClaimKeeper claims;
  private KubeletPluginServer kubelet;
  private HandOver handOver;
  /** Starts at construction, so /healthz measures the loop from the agent's start, never from the epoch. */
  private volatile Instant lastTick;
  private boolean readySent;

  Readiness(AgentSettings settings, Clock clock, Notifier notifier, AgentMetrics metrics, DeviceRefresh refresh,
      java.util.function.IntSupplier devices) {
    this.settings = settings;
    this.clock = clock;
    this.notifier = notifier;
    this.metrics = metrics;
    this.refresh = refresh;
    this.devices = devices;
    this.lastTick = clock.instant();
  }

  /** The cluster mode's parts whose state counts (none in standalone mode). */
  void cluster(SliceSync slices, ClaimKeeper claims, KubeletPluginServer kubelet, HandOver handOver) {
    this.slices = slices;
    this.claims = claims;
    this.kubelet = kubelet;
    this.handOver = handOver;
  }

  private boolean standalone() {
    return kubelet == null;
  }

  /** The loop ran at {@code now}. */
  void tick(Instant now) {
    lastTick = now;
  }

  /** Serves {@code /healthz}, {@code /readyz} and {@code /metrics} on the HTTP port of the settings. */
  HealthEndpoints serve() throws IOException {
    Map<String, HealthEndpoints.Check> live = new LinkedHashMap<>();
    live.put("loop", new HealthEndpoints.Check("loop", this::loopFailure));
    Map<String, HealthEndpoints.Check> ready = new LinkedHashMap<>(live);
    ready.put("discovered", new HealthEndpoints.Check("discovered", () -> refresh.discovered() ? null : "no discovery yet"));
    if (standalone()) {
      ready.put("cdi", new HealthEndpoints.Check("cdi", () -> refresh.lastCdiError().isEmpty() ? null : refresh.lastCdiError()));
    } else {
      ready.put("sharedDevices", HealthEndpoints.Check.note("sharedDevices", slices::sharedDevicesNote));
      ready.put("registered", new HealthEndpoints.Check("registered", this::registrationFailure));
      ready.put("checkpoint", new HealthEndpoints.Check("checkpoint", claims::lostCheckpoint));
      ready.put("serving", new HealthEndpoints.Check("serving", () -> handOver.handedOver() ? HandOver.HANDED_OVER : null));
      ready.put("published", new HealthEndpoints.Check("published",
          () -> slices.lastPublishError().isEmpty() ? null : slices.lastPublishError()));
    }
    try {
      return HealthEndpoints.start(settings.httpBindAddress(), Math.max(settings.httpPort(), 0), live, ready, metrics);
    } catch (IOException e) {
      throw AgentLauncher.portProblem("httpPort", settings.httpPort(), e);
    }
  }

  /** Tells metrics, the DRA socket's health service and systemd; {@code READY=1} the first time. */
  void update() {
    boolean ready = failure() == null;
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
    int n = devices.getAsInt();
    if (standalone()) {
      String cdi = refresh.lastCdiError();
      return "standalone: " + n + " devices, " + (cdi.isEmpty() ? "CDI specs current" : "CDI error: " + cdi);
    }
    String publish = slices.lastPublishError();
    return n + " devices; " + (publish.isEmpty() ? "published" : "publish failing: " + publish)
        + "; " + (registrationFailure() == null ? "registered" : registrationFailure());
  }

  private String failure() {
    if (!refresh.discovered()) {
      return "no discovery yet";
    }
    if (standalone()) {
      return refresh.lastCdiError().isEmpty() ? null : refresh.lastCdiError();
    }
    if (handOver.handedOver()) {
      return HandOver.HANDED_OVER;
    }
    if (claims.lostCheckpoint() != null) {
      return claims.lostCheckpoint();
    }
    if (registrationFailure() != null) {
      return registrationFailure();
    }
    return slices.lastPublishError().isEmpty() ? null : slices.lastPublishError();
  }

  private String registrationFailure() {
    RegistrationState.Status s = kubelet.registration().current();
    if (!s.notified()) {
      return "waiting for the kubelet to register the plugin";
    }
    return s.registered() ? null : "kubelet refused the registration: " + s.error();
  }

  private String loopFailure() {
    Duration age = Duration.between(lastTick, clock.instant());
    Duration limit = settings.resyncInterval().plus(Duration.ofMinutes(2));
    return age.compareTo(limit) > 0 ? "main loop last ran " + age.toSeconds() + " s ago" : null;
  }
}
