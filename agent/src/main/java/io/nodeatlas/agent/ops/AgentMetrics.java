package io.nodeatlas.agent.ops;

import io.nodeatlas.agent.claims.ClaimPreparer;
import io.nodeatlas.agent.claims.ClaimRef;
import io.prometheus.metrics.core.datapoints.CounterDataPoint;
import io.prometheus.metrics.core.datapoints.DistributionDataPoint;
import io.prometheus.metrics.core.metrics.Counter;
import io.prometheus.metrics.core.metrics.Gauge;
import io.prometheus.metrics.core.metrics.Histogram;
import io.prometheus.metrics.expositionformats.PrometheusTextFormatWriter;
import io.prometheus.metrics.model.registry.PrometheusRegistry;
import java.io.ByteArrayOutputStream;
import java.io.IOException;

/**
 * The agent's Prometheus metrics: one {@code nodeatlas_} prefix, base units, {@code _total} counters,
 * only low-cardinality labels ({@code result}, {@code operation}, {@code source}) and never a series
 * per device or claim. One registry per agent, no global state.
 */
public final class AgentMetrics implements ClaimPreparer.Listener {

  private final PrometheusRegistry registry = new PrometheusRegistry();
  private final Counter claims = Counter.builder().name("nodeatlas_claim_operations_total")
      .help("NodePrepareResources / NodeUnprepareResources per claim, by outcome")
      .labelNames("operation", "result").register(registry);
  private final Histogram claimDuration = Histogram.builder().name("nodeatlas_claim_operation_duration_seconds")
      .help("Time to prepare or unprepare one claim").labelNames("operation")
      .classicUpperBounds(0.0005, 0.001, 0.0025, 0.005, 0.01, 0.025, 0.05, 0.1, 0.25, 0.5, 1, 2.5, 5, 10, 45)
      // Classic buckets only: /metrics serves the text format, which has no native histograms, and keeping
      // one costs every claim an exponent-bucket update.
      .classicOnly()
      .register(registry);
  /** The series a claim updates, looked up once rather than by label values on every claim. */
  private final CounterDataPoint prepareOk = claims.labelValues("prepare", "success");
  private final CounterDataPoint prepareFailed = claims.labelValues("prepare", "error");
  private final CounterDataPoint unprepareOk = claims.labelValues("unprepare", "success");
  private final CounterDataPoint unprepareFailed = claims.labelValues("unprepare", "error");
  private final DistributionDataPoint prepareSeconds = claimDuration.labelValues("prepare");
  private final DistributionDataPoint unprepareSeconds = claimDuration.labelValues("unprepare");
  private final Counter publishes = Counter.builder().name("nodeatlas_resourceslice_publish_total")
      .help("ResourceSlice syncs by outcome (unchanged: nothing written)").labelNames("result").register(registry);
  private final Gauge publishedDevices = Gauge.builder().name("nodeatlas_published_devices")
      .help("Devices in this node's pool after the last successful publish").register(registry);
  private final Histogram discoveryDuration = Histogram.builder().name("nodeatlas_discovery_duration_seconds")
      .help("Time of one discovery run over all sources").register(registry);
  private final Gauge devices = Gauge.builder().name("nodeatlas_devices")
      .help("Devices found by the last discovery, by source").labelNames("source").register(registry);
  private final Counter discoveryWarnings = Counter.builder().name("nodeatlas_discovery_warnings_total")
      .help("Warnings from discovery (a fact left out), by source").labelNames("source").register(registry);
  private final Gauge ready = Gauge.builder().name("nodeatlas_ready")
      .help("1 when registered with the kubelet and the last publish succeeded").register(registry);

  private final Gauge sharedDevicesSupported = Gauge.builder().name("nodeatlas_shared_devices_supported")
      .help("1 while devices are published shared (KEP-5075 allowMultipleAllocations and requestPolicy); 0 once the "
          + "API server dropped those fields and the agent fell back to exclusive devices").register(registry);

  private final Counter upkeep = Counter.builder().name("nodeatlas_device_upkeep_actions_total")
      .help("What the device families did while the agent ran, by action: e.g. gpu_mps_daemon_restarted (an MPS "
          + "control daemon died while claims held it and was started again), gpu_mps_daemon_stopped (one ran without "
          + "a live claim)").labelNames("action").register(registry);

  public AgentMetrics(String version) {
    sharedDevicesSupported.set(1);
    Gauge.builder().name("nodeatlas_build_info").help("Build information").labelNames("version", "java_version")
        .register(registry).labelValues(version, System.getProperty("java.version")).set(1);
  }

  @Override
  public void prepared(ClaimRef claim, boolean ok, long nanos) {
    (ok ? prepareOk : prepareFailed).inc();
    prepareSeconds.observe(nanos / 1e9);
  }

  @Override
  public void unprepared(ClaimRef claim, boolean ok, long nanos) {
    (ok ? unprepareOk : unprepareFailed).inc();
    unprepareSeconds.observe(nanos / 1e9);
  }

  public void published(String result, int deviceCount) {
    publishes.labelValues(result).inc();
    if (!"error".equals(result)) {
      publishedDevices.set(deviceCount);
    }
  }

  public void discovered(double seconds, java.util.Map<String, Long> devicesBySource,
      java.util.Map<String, Long> warningsBySource) {
    discoveryDuration.observe(seconds);
    devicesBySource.forEach((s, n) -> devices.labelValues(s).set(n));
    warningsBySource.forEach((s, n) -> discoveryWarnings.labelValues(s).inc(n));
  }

  /** Counts what the families' upkeep did, by action. */
  public void upkeep(java.util.Map<String, Integer> actions) {
    actions.forEach((action, n) -> upkeep.labelValues(action).inc(n));
  }

  public void sharedDevicesSupported(boolean value) {
    sharedDevicesSupported.set(value ? 1 : 0);
  }

  public void ready(boolean value) {
    ready.set(value ? 1 : 0);
  }

  /** What a scrape sees, as the registry holds it (tests). */
  io.prometheus.metrics.model.snapshots.MetricSnapshots snapshots() {
    return registry.scrape();
  }

  /** The Prometheus text exposition format 0.0.4. */
  public byte[] scrape() throws IOException {
    ByteArrayOutputStream out = new ByteArrayOutputStream();
    PrometheusTextFormatWriter.create().write(out, registry.scrape());
    return out.toByteArray();
  }
}
