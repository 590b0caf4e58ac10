package io.nodeatlas.discovery.spi;

import io.nodeatlas.discovery.host.SourceSetting;
import io.nodeatlas.discovery.model.AttributeDoc;
import io.nodeatlas.discovery.host.HostContext;
import java.util.List;

/**
 * A pluggable discovery module, found with {@link java.util.ServiceLoader}: each module ships
 * {@code META-INF/services/io.nodeatlas.discovery.spi.DiscoverySource}. Implementations must be
 * stateless and thread-safe, read the host only through a {@link io.nodeatlas.discovery.host.FactReader}
 * over {@link HostContext#fs()}, build devices with {@link io.nodeatlas.discovery.model.DeviceDraft},
 * and degrade per fact: a broken file becomes a warning, not an exception.
 * {@link DiscoveryException} is for the source failing as a whole.
 *
 * <p>A source owns its names: its {@link #settings()} (the command line, env twins and config file
 * are generated from them) and its {@link #catalogue()} (the attribute documentation is generated
 * from it). No other module names a source's classes, settings or attributes.
 */
public interface DiscoverySource {

  /** The name users select with {@code --sources} (a DNS label: {@code cpu-numa}, {@code gpu}, {@code nic-rdma}). */
  String name();

  /** One line for {@code --help}: what this source discovers and how. */
  default String description() {
    return name();
  }

  /** The settings this source reads from {@link HostContext#options()}. */
  default List<SourceSetting> settings() {
    return List.of();
  }

  /** Every attribute and capacity this source publishes, per device type. */
  default List<AttributeDoc> catalogue() {
    return List.of();
  }

  /**
   * Whether the source can run here (NVML present, sysfs class directory present...). An unavailable
   * source is skipped with one warning carrying the reason; it is not a failure.
   */
  default Availability availability(HostContext host) {
    return Availability.ok();
  }

  DiscoveryResult discover(HostContext host) throws DiscoveryException;

  /**
   * A watch on the health of the devices this source publishes on {@code host}, for the agent to poll;
   * empty when the source has none (the default) or cannot watch here. The agent closes it when it stops.
   */
  default java.util.Optional<io.nodeatlas.discovery.health.HealthCheck> healthCheck(HostContext host) {
    return java.util.Optional.empty();
  }

  /**
   * The preflight checks of what this family needs on the node for its devices to reach containers
   * (device nodes, hooks, kernel settings), run by {@code nodeatlas doctor}; none by default.
   */
  default List<io.nodeatlas.discovery.doctor.DoctorCheck> doctorChecks() {
    return List.of();
  }

  /**
   * The claim-time side of this family ({@link io.nodeatlas.discovery.share.SharePlacer}): how the agent
   * places shares of the shared devices it publishes and what their containers get; none by default
   * (shares of its devices then only have their capacities accounted).
   */
  default java.util.Optional<io.nodeatlas.discovery.share.SharePlacer> sharePlacer(
      io.nodeatlas.discovery.share.SharePlacer.Settings settings) {
    return java.util.Optional.empty();
  }

  /**
   * The part of this family that makes an allocated device real at Prepare and undoes it at Unprepare
   * ({@link io.nodeatlas.discovery.share.DeviceRealiser}: a MIG instance created at the allocated
   * placement), reading the host through {@code host} and keeping what it must remember across a crash
   * under {@code stateDir} (a directory of its own the agent gives it); none by default.
   */
  default java.util.Optional<io.nodeatlas.discovery.share.DeviceRealiser> deviceRealiser(HostContext host,
      java.nio.file.Path stateDir) {
    return java.util.Optional.empty();
  }

  /**
   * The network interface of one of this family's devices, for its claim's status once prepared
   * (KEP-4817); empty for a device without one (the default).
   */
  default java.util.Optional<io.nodeatlas.discovery.share.NetworkData> networkData(
      io.nodeatlas.discovery.model.Device device) {
    return java.util.Optional.empty();
  }
}
