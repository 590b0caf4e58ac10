package io.nodeatlas.match.fleet;

import io.nodeatlas.match.Inventory;
import java.util.List;
import java.util.Map;

/**
 * One node of the fleet as the scheduler sees it: its labels, its taints ({@code Node.spec.taints}), its inventory, and where each of its
 * devices comes from ({@code local} device name to {@code driver/pool/device}).
 */
public record FleetNode(String name, Map<String, String> labels, List<Inventory.DeviceTaint> taints, Inventory inventory,
    Map<String, String> origins) {
  public FleetNode {
    labels = Map.copyOf(labels);
    taints = List.copyOf(taints);
    origins = Map.copyOf(origins);
  }

  public List<String> deviceNames() {
    return inventory.devices().stream().map(io.nodeatlas.discovery.model.Device::name).toList();
  }
}
