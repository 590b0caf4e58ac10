package io.nodeatlas.discovery.health;

import io.nodeatlas.discovery.model.Names;
import java.util.Objects;

/**
 * Why a published device is unhealthy now. The agent turns it into a device taint
 * ({@code nodeatlas.io/unhealthy=<reason>}, KEP-5055) and an {@code UNHEALTHY} entry of the kubelet's
 * health stream (KEP-4680, {@code DeviceHealth.message}).
 *
 * @param device the published device name
 * @param reason a short token, the taint's value: a label value ({@code xid-79}, {@code link-down},
 *     {@code gpu-lost}); anything else is folded to one ({@link Names#toLabelFragment}), at most 63 characters
 * @param lost the device is gone (fell off the bus, disappeared): pods using it cannot go on, so the
 *     taint's effect is {@code NoExecute}; otherwise {@code NoSchedule}
 * @param message one line for people, at most 1024 characters (the kubelet truncates longer ones)
 */
public record DeviceProblem(String device, String reason, boolean lost, String message) {

  public static final int MAX_REASON = 63;
  public static final int MAX_MESSAGE = 1024;

  public DeviceProblem {
    Objects.requireNonNull(device, "device");
    String folded = Names.toLabelFragment(Objects.requireNonNull(reason, "reason"));
    if (folded.length() > MAX_REASON) {
      folded = folded.substring(0, MAX_REASON).replaceAll("-+$", "");
    }
    reason = folded.isEmpty() ? "unknown" : folded;
    message = message == null ? "" : message.replaceAll("\\p{Cntrl}", " ");
    if (message.length() > MAX_MESSAGE) {
      message = message.substring(0, MAX_MESSAGE - 3) + "...";
    }
  }

  /** The worse of two problems of one device: lost wins, then the first. */
  public DeviceProblem worse(DeviceProblem other) {
    return other.lost && !lost ? other : this;
  }
}
