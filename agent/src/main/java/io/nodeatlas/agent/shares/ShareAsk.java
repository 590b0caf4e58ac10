package io.nodeatlas.agent.shares;

import java.util.Map;
import java.util.TreeMap;

/**
 * What one allocation result asks of a device, as the API server stored it ({@code resource.k8s.io/v1}
 * {@code DeviceRequestAllocationResult}: request, device, {@code shareID} [9], {@code consumedCapacity}
 * [10], {@code adminAccess} [5]). Text as read: {@link SharePlanner} checks it.
 */
public record ShareAsk(String request, String device, String shareId, Map<String, String> consumedCapacity, boolean adminAccess) {
  public ShareAsk {
    shareId = shareId == null ? "" : shareId;
    consumedCapacity = consumedCapacity == null || consumedCapacity.isEmpty() ? Map.of()
        : java.util.Collections.unmodifiableMap(new TreeMap<>(consumedCapacity));
  }
}
