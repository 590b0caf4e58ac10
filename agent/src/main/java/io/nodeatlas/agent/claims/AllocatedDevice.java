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
    String shareId, Map<String, String> consumedCapacity) {

  public AllocatedDevice {
    shareId = shareId == null ? "" : shareId;
    consumedCapacity = consumedCapacity == null ? Map.of() : java.util.Collections.unmodifiableMap(new TreeMap<>(consumedCapacity));
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
