package io.nodeatlas.discovery.share;

import io.nodeatlas.discovery.model.Device;
import java.util.Objects;
import java.util.Optional;

/**
 * One device of a claim's CDI spec as the agent has it before the families' edits: a device held
 * whole (no share), or a share of a shared device, already named as the share's own CDI device and
 * carrying the device's published edits.
 */
public record ClaimDevice(Device device, Optional<Share> share) {

  public ClaimDevice {
    Objects.requireNonNull(device, "device");
    share = share == null ? Optional.empty() : share;
  }

  public static ClaimDevice whole(Device device) {
    return new ClaimDevice(device, Optional.empty());
  }

  public static ClaimDevice share(Device device, Share share) {
    return new ClaimDevice(device, Optional.of(share));
  }
}
