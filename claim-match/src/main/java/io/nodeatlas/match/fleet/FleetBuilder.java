package io.nodeatlas.match.fleet;

import io.nodeatlas.discovery.model.Device;
import io.nodeatlas.match.Inventory;
import io.nodeatlas.match.Inventory.DeviceTaint;
import io.nodeatlas.match.Inventory.Held;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.TreeMap;

/**
 * Assembles each node's inventory from ResourceSlices of every driver, as the scheduler does
 * (DRALIB {@code structured} {@code GatherPools}): only the slices of a pool's newest generation count; a
 * slice is visible on the node it names, on every node ({@code allNodes}), on the nodes its
 * {@code nodeSelector} selects, or device by device ({@code perDeviceNodeSelection}). What allocated claims
 * hold is attached to the devices they name. Two devices of different pools or drivers with one name on
 * the same node keep the first name; the later get a numbered suffix and a warning.
 */
public final class FleetBuilder {

  private FleetBuilder() {}

  /**
   * The nodes {@code labels} names (node name to its labels, in output order), and with
   * {@code nodesFromSlices} (no Node objects were read) also those the slices name, with what
   * {@code slices} put on each and {@code allocations} hold.
   */
  public static List<FleetNode> build(Map<String, Map<String, String>> labels, boolean nodesFromSlices,
      List<SliceReader.Slice> slices, List<Allocation> allocations, List<String> warnings) {
    return build(labels, Map.of(), nodesFromSlices, slices, allocations, warnings);
  }

  /** {@link #build(Map, boolean, List, List, List)} with the nodes' taints. */
  public static List<FleetNode> build(Map<String, Map<String, String>> labels, Map<String, List<DeviceTaint>> nodeTaints,
      boolean nodesFromSlices, List<SliceReader.Slice> slices, List<Allocation> allocations, List<String> warnings) {
    Map<String, Long> newest = new HashMap<>();
    slices.forEach(s -> newest.merge(s.driver() + "/" + s.pool(), s.generation(), Math::max));
    Map<String, List<SliceReader.Slice>> byNode = new HashMap<>();
    List<SliceReader.Slice> elsewhere = new ArrayList<>();
    Map<String, Map<String, String>> nodes = new LinkedHashMap<>(labels);
    for (SliceReader.Slice s : slices) {
      if (s.generation() < newest.get(s.driver() + "/" + s.pool())) {
        continue;
      }
      if (s.selection() instanceof NodeSelection.OneNode one) {
        byNode.computeIfAbsent(one.name(), k -> new ArrayList<>()).add(s);
        if (nodesFromSlices) {
          nodes.putIfAbsent(one.name(), Map.of("kubernetes.io/hostname", one.name()));
        }
      } else {
        elsewhere.add(s);
      }
    }
    Map<String, List<Allocation>> heldByKey = new HashMap<>();
    allocations.forEach(a -> heldByKey.computeIfAbsent(a.key(), k -> new ArrayList<>()).add(a));
    List<FleetNode> out = new ArrayList<>();
    List<Map.Entry<String, Map<String, String>>> ordered = new ArrayList<>(nodes.entrySet());
    ordered.sort(Map.Entry.comparingByKey());
    for (Map.Entry<String, Map<String, String>> node : ordered) {
      out.add(node(node.getKey(), node.getValue(), nodeTaints.getOrDefault(node.getKey(), List.of()),
          byNode.getOrDefault(node.getKey(), List.of()), elsewhere, heldByKey, warnings));
    }
    return out;
  }

  private static FleetNode node(String name, Map<String, String> labels, List<DeviceTaint> nodeTaints,
      List<SliceReader.Slice> own,
      List<SliceReader.Slice> elsewhere, Map<String, List<Allocation>> heldByKey, List<String> warnings) {
    List<Device> devices = new ArrayList<>();
    Map<String, String> drivers = new HashMap<>();
    Map<String, List<DeviceTaint>> taints = new HashMap<>();
    Map<String, String> origins = new TreeMap<>();
    List<Held> held = new ArrayList<>();
    List<SliceReader.Slice> visible = new ArrayList<>(own);
    elsewhere.forEach(visible::add);
    for (SliceReader.Slice s : visible) {
      for (SliceReader.SliceDevice sd : s.devices()) {
        NodeSelection where = sd.selection() != null ? sd.selection() : s.selection();
        if (!(where instanceof NodeSelection.OneNode) && !where.selects(name, labels)) {
          continue;
        }
        if (where instanceof NodeSelection.OneNode one && !one.name().equals(name)) {
          continue;
        }
        String key = s.driver() + "/" + s.pool() + "/" + sd.device().name();
        Device d = sd.device();
        String local = d.name();
        for (int n = 2; origins.containsKey(local); n++) {
          local = suffixed(d.name(), n);
        }
        if (!local.equals(d.name())) {
          warnings.add("node " + name + ": device " + key + " is shown as " + local + " (another pool has a device "
              + d.name() + ")");
          d = new Device(local, d.source(), d.attributes(), d.capacity(), d.requestPolicies(), d.allowMultipleAllocations(),
              d.containerEdits());
        }
        devices.add(d);
        origins.put(local, key);
        drivers.put(local, s.driver());
        if (!sd.taints().isEmpty()) {
          taints.put(local, sd.taints());
        }
        for (Allocation a : heldByKey.getOrDefault(key, List.of())) {
          held.add(new Held(local, a.claim(), a.consumed()));
        }
      }
    }
    return new FleetNode(name, labels, nodeTaints, new Inventory(devices, drivers, taints, held), origins);
  }

  /** {@code name-n}, cut so that it stays a DNS label of at most 63 characters. */
  private static String suffixed(String name, int n) {
    String suffix = "-" + n;
    return (name.length() + suffix.length() > 63 ? name.substring(0, 63 - suffix.length()) : name) + suffix;
  }
}
