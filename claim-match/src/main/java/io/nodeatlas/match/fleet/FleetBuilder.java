package io.nodeatlas.match.fleet;

import io.nodeatlas.discovery.model.CounterConsumption;
import io.nodeatlas.discovery.model.CounterSet;
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
 * hold is attached to the devices they name. A pool's shared counters (KEP-4815) go with the first of its
 * devices on the node, where the matcher finds them. Two devices (or counter sets) of different pools or
 * drivers with one name on the same node keep the first name; the later get a numbered suffix and a warning.
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
    // Pool name to device name to what allocated claims hold of it (the driver is checked where it is used).
    Map<String, Map<String, List<Allocation>>> heldByKey = new HashMap<>();
    allocations.forEach(a -> heldByKey.computeIfAbsent(a.pool(), k -> new HashMap<>())
        .computeIfAbsent(a.device(), k -> new ArrayList<>(2)).add(a));
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
      List<SliceReader.Slice> elsewhere, Map<String, Map<String, List<Allocation>>> heldByKey, List<String> warnings) {
    List<Device> devices = new ArrayList<>();
    Map<String, String> drivers = new HashMap<>();
    Map<String, List<DeviceTaint>> taints = new HashMap<>();
    // Local device name to the pool (driver/pool) it comes from, for the names that clash.
    Map<String, String> origins = new HashMap<>();
    List<Held> held = new ArrayList<>();
    List<SliceReader.Slice> visible = new ArrayList<>(own);
    elsewhere.forEach(visible::add);
    PoolCounters counters = PoolCounters.of(name, visible, warnings);
    java.util.Set<String> countersPlaced = new java.util.HashSet<>();
    for (SliceReader.Slice s : visible) {
      String pool = s.poolKey();
      Map<String, List<Allocation>> poolHeld = heldByKey.getOrDefault(s.pool(), Map.of());
      for (SliceReader.SliceDevice sd : s.devices()) {
        NodeSelection where = sd.selection() != null ? sd.selection() : s.selection();
        if (!(where instanceof NodeSelection.OneNode) && !where.selects(name, labels)) {
          continue;
        }
        if (where instanceof NodeSelection.OneNode one && !one.name().equals(name)) {
          continue;
        }
        Device d = sd.device();
        String local = d.name();
        for (int n = 2; origins.containsKey(local); n++) {
          local = suffixed(d.name(), n);
        }
        if (!local.equals(d.name())) {
          warnings.add("node " + name + ": device " + pool + "/" + d.name() + " is shown as " + local
              + " (another pool has a device " + d.name() + ")");
        }
        List<CounterSet> sets = countersPlaced.add(pool) ? counters.sets(pool) : List.of();
        List<CounterConsumption> consumes = counters.consumption(pool, d.consumesCounters());
        if (!local.equals(d.name()) || !sets.isEmpty() || consumes != d.consumesCounters()) {
          // Rebuilt only when it changes: the device records of a large fleet are shared with the slices.
          d = new Device(local, d.source(), d.attributes(), d.capacity(), d.requestPolicies(),
              d.allowMultipleAllocations(), d.containerEdits(), sets, consumes, d.nodeAllocatableResources());
        }
        devices.add(d);
        origins.put(local, pool);
        if (!s.driver().equals(io.nodeatlas.discovery.model.Names.DRIVER)) {
          // Inventory.driver answers ours for the devices it has no entry for.
          drivers.put(local, s.driver());
        }
        if (!sd.taints().isEmpty()) {
          taints.put(local, sd.taints());
        }
        for (Allocation a : poolHeld.getOrDefault(sd.device().name(), List.of())) {
          if (a.driver().equals(s.driver())) {
            held.add(new Held(local, a.claim(), a.consumed()));
          }
        }
      }
    }
    return new FleetNode(name, labels, nodeTaints, new Inventory(devices, drivers, taints, held));
  }

  /**
   * The counter sets of the pools seen on one node, by pool: set names are unique within a pool only, so a
   * name another pool already uses on this node is suffixed, and that pool's consumptions follow it.
   */
  private record PoolCounters(Map<String, List<CounterSet>> byPool, Map<String, Map<String, String>> renamed) {

    static PoolCounters of(String node, List<SliceReader.Slice> visible, List<String> warnings) {
      if (visible.stream().allMatch(s -> s.sharedCounters().isEmpty())) {
        return new PoolCounters(Map.of(), Map.of());
      }
      Map<String, List<CounterSet>> byPool = new HashMap<>();
      Map<String, Map<String, String>> renamed = new HashMap<>();
      Map<String, String> owner = new HashMap<>();
      for (SliceReader.Slice s : visible) {
        for (CounterSet set : s.sharedCounters()) {
          Map<String, String> names = renamed.computeIfAbsent(s.poolKey(), k -> new HashMap<>());
          if (names.containsKey(set.name())) {
            warnings.add("pool " + s.poolKey() + ": counter set " + set.name() + " is published twice; the first counts");
            continue;
          }
          String local = set.name();
          for (int n = 2; owner.containsKey(local); n++) {
            local = suffixed(set.name(), n);
          }
          if (!local.equals(set.name())) {
            warnings.add("node " + node + ": counter set " + s.poolKey() + "/" + set.name() + " is shown as " + local
                + " (pool " + owner.get(set.name()) + " has a counter set " + set.name() + ")");
          }
          owner.put(local, s.poolKey());
          names.put(set.name(), local);
          byPool.computeIfAbsent(s.poolKey(), k -> new ArrayList<>()).add(new CounterSet(local, set.counters()));
        }
      }
      return new PoolCounters(byPool, renamed);
    }

    List<CounterSet> sets(String pool) {
      return byPool.getOrDefault(pool, List.of());
    }

    List<CounterConsumption> consumption(String pool, List<CounterConsumption> consumes) {
      Map<String, String> names = renamed.getOrDefault(pool, Map.of());
      if (consumes.isEmpty() || consumes.stream().allMatch(c -> names.getOrDefault(c.counterSet(), c.counterSet())
          .equals(c.counterSet()))) {
        return consumes;
      }
      return consumes.stream()
          .map(c -> new CounterConsumption(names.getOrDefault(c.counterSet(), c.counterSet()), c.counters())).toList();
    }
  }

  /** {@code name-n}, cut so that it stays a DNS label of at most 63 characters. */
  private static String suffixed(String name, int n) {
    String suffix = "-" + n;
    return (name.length() + suffix.length() > 63 ? name.substring(0, 63 - suffix.length()) : name) + suffix;
  }
}
