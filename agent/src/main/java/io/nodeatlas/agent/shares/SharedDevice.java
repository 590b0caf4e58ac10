package io.nodeatlas.agent.shares;

import io.nodeatlas.discovery.model.Device;
import io.nodeatlas.discovery.share.DevicePlacer;
import java.util.Optional;

/**
 * A device as Prepare sees it for sharing: the device, and its family's claim-time view of it
 * ({@link DevicePlacer}), made once per discovery; empty when the family places nothing (its shares
 * then only have their capacities accounted).
 */
public record SharedDevice(Device device, Optional<DevicePlacer> placer) {

  public String name() {
    return device.name();
  }
}
