package io.nodeatlas.match.fleet;

import io.nodeatlas.match.Inventory;
import java.util.List;
import java.util.Map;

/** One node of the fleet as the scheduler sees it: its labels, its taints ({@code Node.spec.taints}) and its inventory. */
public record FleetNode(String name, Map<String, String> labels, List<Inventory.DeviceTaint> taints, Inventory inventory) {
  public FleetNode {
    labels = Map.copyOf(labels);
    taints = List.copyOf(taints);
  }

  public List<String> deviceNames() {
    return inventory.devices().stream().map(io.nodeatlas.discovery.model.Device::name).toList();
  }
}
