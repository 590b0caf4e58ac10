package io.nodeatlas.agent.run;

import io.nodeatlas.agent.claims.ClaimSpecStore;
import io.nodeatlas.agent.claims.DeviceInventory;
import io.nodeatlas.agent.ops.AgentMetrics;
import io.nodeatlas.discovery.model.Device;
import io.nodeatlas.discovery.report.DiscoveryWarning;
import io.nodeatlas.discovery.report.NodeReport;
import java.io.IOException;
import java.util.List;
import java.util.Map;
import java.util.TreeMap;
import java.util.stream.Collectors;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * One discovery round: the inventory Prepare checks against, the discovery metrics, a one-line summary
 * when it changes, and in standalone mode the static CDI specs of the discovered devices.
 */
final class DeviceRefresh {

  private static final Logger LOG = LoggerFactory.getLogger(Agent.class);

  private final AgentSettings settings;
  private final DeviceInventory inventory;
  private final AgentMetrics metrics;
  /** Standalone mode's static specs; null in cluster mode. */
  private final ClaimSpecStore staticSpecs;
  private volatile DeviceDiscovery discovery;
  private volatile boolean discovered;
  private volatile String lastCdiError = "";
  private String lastSummary = "";

  DeviceRefresh(AgentSettings settings, DeviceDiscovery discovery, DeviceInventory inventory, AgentMetrics metrics,
      ClaimSpecStore staticSpecs) {
    this.settings = settings;
    this.discovery = discovery;
    this.inventory = inventory;
    this.metrics = metrics;
    this.staticSpecs = staticSpecs;
  }

  /** Discovers from {@code next} from the next round on (SIGHUP after the config file was read again). */
  void replace(DeviceDiscovery next) {
    discovery = next;
  }

  /** Whether a round succeeded (the inventory is filled). */
  boolean discovered() {
    return discovered;
  }

  /** "" when the static specs are current (standalone); else why they are not. */
  String lastCdiError() {
    return lastCdiError;
  }

  /** Discovers, for exclusive devices only when {@code sharedDevices} is false; a failure keeps the last inventory. */
  void discover(boolean sharedDevices) {
    long start = System.nanoTime();
    NodeReport report;
    try {
      report = discovery.discover(sharedDevices);
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
    if (staticSpecs != null) {
      writeStaticSpecs(devices);
    }
  }

  private void writeStaticSpecs(List<Device> devices) {
    try {
      int changed = staticSpecs.reconcileStatic(devices);
      lastCdiError = "";
      if (changed > 0) {
        LOG.info("static CDI specs updated dir={} changed={}", settings.cdiRoot(), changed);
      }
    } catch (IOException | RuntimeException e) {
      lastCdiError = e.getMessage();
      LOG.error("cannot write static CDI specs dir={} err=\"{}\"", settings.cdiRoot(), e.getMessage());
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
}
