package io.nodeatlas.discovery.report;

import io.nodeatlas.discovery.model.Order;
import io.nodeatlas.discovery.model.Device;
import io.nodeatlas.discovery.topology.Topology;
import java.util.Collections;
import java.util.List;
import java.util.Map;
import java.util.TreeMap;

/**
 * The whole node as discovered: the neutral model every output ({@code discover}, CDI specs,
 * ResourceSlices, {@code match}) is derived from. Devices are sorted by name, warnings by source and
 * text, so the same host always gives the same report.
 */
public record NodeReport(
    String schemaVersion,
    HostInfo host,
    Topology topology,
    List<Device> devices,
    List<DiscoveryWarning> warnings,
    Map<String, SourceStatus> sources) {

  public static final String SCHEMA_VERSION = "v1";

  public NodeReport {
    devices = devices.stream().sorted(Order.by(Device::name)).toList();
    warnings = warnings.stream().sorted().toList();
    sources = Collections.unmodifiableSortedMap(new TreeMap<>(sources));
  }

  /** True when some selected source failed: {@code discover} then exits with status 1. */
  public boolean anySourceFailed() {
    return sources.values().stream().anyMatch(SourceStatus::isFailed);
  }
}
