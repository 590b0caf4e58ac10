package io.nodeatlas.agent.health;

import io.fabric8.kubernetes.api.model.resource.v1.DeviceTaint;
import io.fabric8.kubernetes.api.model.resource.v1.DeviceTaintBuilder;
import io.nodeatlas.agent.kubelet.api.health.v1.DeviceHealth;
import io.nodeatlas.agent.kubelet.api.health.v1.DeviceIdentifier;
import io.nodeatlas.agent.kubelet.api.health.v1.HealthStatus;
import io.nodeatlas.agent.kubelet.api.health.v1.NodeWatchResourcesResponse;
import io.nodeatlas.discovery.health.DeviceProblem;
import io.nodeatlas.discovery.health.HealthCheck;
import io.nodeatlas.discovery.model.Device;
import io.nodeatlas.discovery.model.Names;
import java.time.Clock;
import java.time.Duration;
import java.time.Instant;
import java.util.ArrayList;
import java.util.HashSet;
import java.util.IdentityHashMap;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Objects;
import java.util.Set;
import java.util.TreeMap;
import java.util.concurrent.ScheduledExecutorService;
import java.util.concurrent.ScheduledFuture;
import java.util.concurrent.TimeUnit;
import java.util.function.Supplier;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * Polls the sources' {@link HealthCheck}s on a scheduler and keeps the devices' health: a device with a
 * problem gets the taint {@code nodeatlas.io/unhealthy=<reason>} in its ResourceSlice (KEP-5055 device
 * taints, {@code ResourceSlice.spec.devices[].taints}: {@code NoSchedule}, or {@code NoExecute} for a lost
 * device, so the scheduler places no new claim on it and, for a lost one, evicts the pods using it) and
 * is {@code UNHEALTHY} in the kubelet's health stream ({@link ResourceHealthService}, KEP-4680), which the
 * kubelet shows in {@code pod.status.containerStatuses[].allocatedResourcesStatus}. When the check stops
 * reporting the problem, the device recovers: the taint goes and the stream says {@code HEALTHY}.
 *
 * <p>A check that throws keeps its last answer (one failing check must not clear taints), with one log
 * line per new failure. A change of any device's health calls {@code onChange} (the agent republishes).
 */
public final class DeviceHealthMonitor implements AutoCloseable {

  private static final Logger LOG = LoggerFactory.getLogger(DeviceHealthMonitor.class);

  /** The taint key of an unhealthy device; the value is the problem's reason. */
  public static final String TAINT_KEY = Names.DOMAIN + "/unhealthy";

  /** One device's problem and since when it has it. */
  public record Problem(DeviceProblem problem, Instant since) {}

  private final List<HealthCheck> checks;
  private final Supplier<List<Device>> devices;
  private final Clock clock;
  private final Runnable onChange;
  private final ResourceHealthService stream;
  private final String poolName;
  private final Map<HealthCheck, List<DeviceProblem>> lastAnswers = new IdentityHashMap<>();
  private final Map<HealthCheck, String> lastFailures = new IdentityHashMap<>();
  private final Map<String, Instant> healthySince = new TreeMap<>();
  private volatile Map<String, Problem> current = Map.of();
  private Duration interval = Duration.ofSeconds(10);
  private ScheduledFuture<?> task;

  public DeviceHealthMonitor(List<HealthCheck> checks, Supplier<List<Device>> devices, Clock clock, Runnable onChange,
      ResourceHealthService stream, String poolName) {
    this.checks = List.copyOf(checks);
    this.devices = devices;
    this.clock = clock;
    this.onChange = onChange;
    this.stream = stream;
    this.poolName = poolName;
  }

  /** Polls every {@code interval} on {@code scheduler} (first poll at once), until {@link #close()}. */
  public synchronized void start(ScheduledExecutorService scheduler, Duration interval) {
    this.interval = interval;
    task = scheduler.scheduleWithFixedDelay(this::pollQuietly, 0, interval.toMillis(), TimeUnit.MILLISECONDS);
  }

  private void pollQuietly() {
    try {
      poll();
    } catch (RuntimeException e) {
      LOG.error("device health poll failed err=\"{}\"", e.toString());
    }
  }

  /** One poll: asks every check, updates the devices' health, tells the kubelet; true when any device changed. */
  public synchronized boolean poll() {
    List<Device> all = devices.get();
    Set<String> names = new HashSet<>();
    all.forEach(d -> names.add(d.name()));
    Map<String, DeviceProblem> merged = new TreeMap<>();
    for (HealthCheck check : checks) {
      List<DeviceProblem> answer;
      try {
        answer = List.copyOf(check.check(all));
        lastAnswers.put(check, answer);
        lastFailures.remove(check);
      } catch (RuntimeException e) {
        answer = lastAnswers.getOrDefault(check, List.of());
        if (!Objects.equals(lastFailures.put(check, e.toString()), e.toString())) {
          LOG.warn("device health check {} failed, keeping its last answer err=\"{}\"", check.getClass().getSimpleName(), e.toString());
        }
      }
      for (DeviceProblem p : answer) {
        if (names.contains(p.device())) {
          merged.merge(p.device(), p, DeviceProblem::worse);
        }
      }
    }
    Instant now = clock.instant();
    Map<String, Problem> before = current;
    Map<String, Problem> after = new TreeMap<>();
    boolean changed = false;
    for (Map.Entry<String, DeviceProblem> e : merged.entrySet()) {
      Problem old = before.get(e.getKey());
      if (old != null && old.problem().reason().equals(e.getValue().reason()) && old.problem().lost() == e.getValue().lost()) {
        after.put(e.getKey(), new Problem(e.getValue(), old.since()));
      } else {
        after.put(e.getKey(), new Problem(e.getValue(), now));
        changed = true;
        LOG.warn("device unhealthy device={} reason={} effect={} msg=\"{}\"", e.getKey(), e.getValue().reason(),
            effect(e.getValue()), e.getValue().message());
      }
    }
    for (String name : before.keySet()) {
      if (!after.containsKey(name)) {
        changed = true;
        healthySince.put(name, now);
        if (names.contains(name)) {
          LOG.info("device healthy again device={}", name);
        }
      }
    }
    healthySince.keySet().retainAll(names);
    current = Map.copyOf(after);
    stream.publish(response(all, now));
    if (changed) {
      onChange.run();
    }
    return changed;
  }

  /** The devices that have a problem now, by name. */
  public Map<String, Problem> problems() {
    return current;
  }

  /** The slice taint of each unhealthy device (KEP-5055 {@code DeviceTaint}; {@code timeAdded} is the server's). */
  public Map<String, List<DeviceTaint>> taints() {
    Map<String, List<DeviceTaint>> out = new LinkedHashMap<>();
    current.forEach((name, p) -> out.put(name, List.of(new DeviceTaintBuilder().withKey(TAINT_KEY)
        .withValue(p.problem().reason()).withEffect(effect(p.problem())).build())));
    return out;
  }

  static String effect(DeviceProblem p) {
    return p.lost() ? "NoExecute" : "NoSchedule";
  }

  private NodeWatchResourcesResponse response(List<Device> all, Instant now) {
    // Three missed polls make a device Unknown in the kubelet: the agent (or its health thread) is gone.
    long timeout = Math.max(30, interval.toSeconds() * 3);
    NodeWatchResourcesResponse.Builder b = NodeWatchResourcesResponse.newBuilder();
    List<Device> sorted = new ArrayList<>(all);
    sorted.sort(java.util.Comparator.comparing(Device::name));
    for (Device d : sorted) {
      Problem p = current.get(d.name());
      DeviceHealth.Builder h = DeviceHealth.newBuilder()
          .setDevice(DeviceIdentifier.newBuilder().setPoolName(poolName).setDeviceName(d.name()))
          .setHealthCheckTimeoutSeconds(timeout);
      if (p == null) {
        h.setHealth(HealthStatus.HEALTHY).setLastUpdatedTime(healthySince.getOrDefault(d.name(), now).getEpochSecond());
      } else {
        h.setHealth(HealthStatus.UNHEALTHY).setLastUpdatedTime(p.since().getEpochSecond())
            .setMessage(message(p.problem()));
      }
      b.addDevices(h);
    }
    return b.build();
  }

  /**
   * The stream's {@code message} of a problem: its reason and message, within the 1024 characters the
   * kubelet keeps ({@code dra-health/v1} {@code DeviceHealth.message}; longer ones end in {@code ...}).
   */
  static String message(DeviceProblem p) {
    String m = p.message().isEmpty() ? p.reason() : p.reason() + ": " + p.message();
    return m.length() <= MAX_MESSAGE ? m : m.substring(0, MAX_MESSAGE - 3) + "...";
  }

  /** {@code DeviceHealth.message}'s bound, in characters. */
  static final int MAX_MESSAGE = 1024;

  /** Stops polling, closes the checks and ends the kubelet's streams. */
  @Override
  public synchronized void close() {
    if (task != null) {
      task.cancel(false);
    }
    for (HealthCheck c : checks) {
      try {
        c.close();
      } catch (RuntimeException e) {
        LOG.debug("closing a health check failed err=\"{}\"", e.toString());
      }
    }
    stream.shutdown();
  }
}
