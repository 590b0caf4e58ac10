package io.nodeatlas.agent.shares;

import java.util.Map;
import java.util.TreeMap;

/**
 * What one allocation result asks of a device, as the API server stored it ({@code resource.k8s.io/v1}
 * {@code DeviceRequestAllocationResult}: request, device, {@code shareID} [9], {@code consumedCapacity}
 * [10], {@code adminAccess} [5]), with the {@code opaque.parameters} of the allocation's {@code config[]}
 * entries for our driver that apply to its request ({@code configs}, for the device's family). Text as read:
 * {@link SharePlanner} checks it.
 */
public record ShareAsk(String request, String device, String shareId, Map<String, String> consumedCapacity, boolean adminAccess,
    java.util.List<String> configs) {
  public ShareAsk {
    shareId = shareId == null ? "" : shareId;
    consumedCapacity = consumedCapacity == null || consumedCapacity.isEmpty() ? Map.of()
        : java.util.Collections.unmodifiableMap(new TreeMap<>(consumedCapacity));
    configs = configs == null ? java.util.List.of() : java.util.List.copyOf(configs);
  }

  /** A result without opaque configuration. */
  public ShareAsk(String request, String device, String shareId, Map<String, String> consumedCapacity, boolean adminAccess) {
    this(request, device, shareId, consumedCapacity, adminAccess, java.util.List.of());
  }
}
