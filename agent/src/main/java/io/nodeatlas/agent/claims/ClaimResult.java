package io.nodeatlas.agent.claims;

import java.util.List;

/**
 * The answer for one claim of a Prepare call: its devices, or a per-claim error (the proto's
 * {@code error} field; a non-empty error makes the kubelet ignore the devices and retry).
 */
public record ClaimResult(List<PreparedDevice> devices, String error) {
  public ClaimResult {
    devices = List.copyOf(devices);
    error = error == null ? "" : error;
  }

  public static ClaimResult ok(List<PreparedDevice> devices) {
    return new ClaimResult(devices, "");
  }

  public static ClaimResult failed(String error) {
    return new ClaimResult(List.of(), error);
  }

  public boolean failed() {
    return !error.isEmpty();
  }
}
