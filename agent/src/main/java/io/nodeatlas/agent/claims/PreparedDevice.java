package io.nodeatlas.agent.claims;

import java.util.List;

/**
 * One device of a prepared claim, as reported back to the kubelet (the proto {@code Device}
 * message): base request names, pool, device and the fully qualified CDI device ids.
 */
public record PreparedDevice(List<String> requestNames, String pool, String device, List<String> cdiDeviceIds) {
  public PreparedDevice {
    requestNames = List.copyOf(requestNames);
    cdiDeviceIds = List.copyOf(cdiDeviceIds);
  }
}
