package io.nodeatlas.agent.claims;

import java.util.Map;
import java.util.TreeMap;

/**
 * One allocation result of a claim ({@code status.allocation.devices.results[]}, {@code resource.k8s.io/v1}
 * {@code DeviceRequestAllocationResult}: request [1], driver [2], pool [3], device [4], adminAccess [5],
 * shareID [9], consumedCapacity [10], by proto field number). {@code request} may carry a subrequest
 * ({@code req/sub}). {@code shareId} is empty and {@code consumedCapacity} empty when the result has none;
 * the quantities are text as the API server stored them.
 */
public record AllocatedDevice(String request, String driver, String pool, String device, boolean adminAccess,
    String shareId, Map<String, String> consumedCapacity, java.util.List<String> configs) {

  public AllocatedDevice {
    shareId = shareId == null ? "" : shareId;
    consumedCapacity = consumedCapacity == null ? Map.of() : java.util.Collections.unmodifiableMap(new TreeMap<>(consumedCapacity));
    configs = configs == null ? java.util.List.of() : java.util.List.copyOf(configs);
  }

  /** A result without opaque configuration. */
  public AllocatedDevice(String request, String driver, String pool, String device, boolean adminAccess,
      String shareId, Map<String, String> consumedCapacity) {
    this(request, driver, pool, device, adminAccess, shareId, consumedCapacity, java.util.List.of());
  }

  /**
   * The same result with {@code opaque} as its configuration: the {@code parameters} (JSON text) of the
   * allocation's {@code config[]} entries for its driver that name its request or none, in allocation
   * order (the class's before the claim's, KEP-4381), for the device's family to read.
   */
  public AllocatedDevice withConfigs(java.util.List<String> opaque) {
    return new AllocatedDevice(request, driver, pool, device, adminAccess, shareId, consumedCapacity, opaque);
  }

  /** A result without share (an exclusive device, or an admin-access result). */
  public AllocatedDevice(String request, String driver, String pool, String device, boolean adminAccess) {
    this(request, driver, pool, device, adminAccess, "", Map.of());
  }

  /** The base request name the kubelet expects in {@code request_names} ({@code req/sub} → {@code req}). */
  public String baseRequest() {
    int slash = request.indexOf('/');
    return slash < 0 ? request : request.substring(0, slash);
  }
}
