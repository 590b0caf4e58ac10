package io.nodeatlas.discovery.spi;

import io.nodeatlas.discovery.report.DiscoveryWarning;
import io.nodeatlas.discovery.model.Device;
import io.nodeatlas.discovery.topology.Topology;
import java.util.ArrayList;
import java.util.List;
import java.util.Optional;

/**
 * What one source found: its devices, optionally the node topology it knows about, and warnings for
 * every fact it had to leave out.
 */
public record DiscoveryResult(List<Device> devices, Optional<Topology> topology, List<DiscoveryWarning> warnings) {

  public DiscoveryResult {
    devices = List.copyOf(devices);
    warnings = List.copyOf(warnings);
  }

  public static DiscoveryResult of(List<Device> devices, List<DiscoveryWarning> warnings) {
    return new DiscoveryResult(devices, Optional.empty(), warnings);
  }

  public static DiscoveryResult empty() {
    return of(List.of(), List.of());
  }

  /** Accumulates a result; {@link #warn} keeps the source name in one place. */
  public static final class Builder {
    private final String source;
    private final List<Device> devices = new ArrayList<>();
    private final List<DiscoveryWarning> warnings = new ArrayList<>();
    private Topology topology;

    public Builder(String source) {
      this.source = source;
    }

    public Builder device(Device device) {
      devices.add(device);
      return this;
    }

    public Builder topology(Topology t) {
      this.topology = t;
      return this;
    }

    public Builder warn(String message) {
      warnings.add(new DiscoveryWarning(source, message));
      return this;
    }

    public List<DiscoveryWarning> warnings() {
      return List.copyOf(warnings);
    }

    public DiscoveryResult build() {
      return new DiscoveryResult(devices, Optional.ofNullable(topology), warnings);
    }
  }
}
