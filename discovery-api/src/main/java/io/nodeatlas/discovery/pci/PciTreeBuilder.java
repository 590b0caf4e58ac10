package io.nodeatlas.discovery.pci;

import io.nodeatlas.discovery.topology.PciTree;
import io.nodeatlas.discovery.topology.PciTree.Kind;
import io.nodeatlas.discovery.topology.PciTree.Link;
import io.nodeatlas.discovery.topology.PciTree.PciNode;
import io.nodeatlas.discovery.topology.PciTree.PciPair;
import java.util.ArrayList;
import java.util.Collections;
import java.util.HashMap;
import java.util.IdentityHashMap;
import java.util.List;
import java.util.Map;
import java.util.Objects;
import java.util.Set;
import java.util.TreeMap;
import java.util.function.Consumer;

/**
 * Builds the {@link PciTree} of {@code discover} from the nodes {@link PciTreeReader} read: names each
 * node's {@link Kind} ({@link PciKinds}), puts the published devices on their functions and relates
 * every two of them in the terms of {@code nvidia-smi topo -m}. Pure: no file access.
 *
 * <p>Pairs, for two published devices on functions {@code f} and {@code g}:
 * <ul>
 *   <li>{@code PIX}: the path between {@code f} and {@code g} crosses at most one PCIe bridge, where a
 *       switch (its upstream port and its downstream ports) counts as one bridge, as nvidia-smi counts it:
 *       two functions behind one switch, or two functions of one device below one port. Devices that
 *       share one function (a netdev and its RDMA device, the ports of an mlx4 function, a GPU and its MIG
 *       devices) are {@code PIX} too: no bridge at all lies between them.</li>
 *   <li>{@code PXB}: several bridges, without crossing a host bridge (switches in a cascade).</li>
 *   <li>{@code PHB}: the path crosses a host bridge of one root complex (the two hang off different root
 *       ports of one {@code pciDDDD:BB}, or one sits behind a VMD domain nested in the other's tree).</li>
 *   <li>{@code NODE}: different host bridges whose functions are on one NUMA node.</li>
 *   <li>{@code SYS}: different host bridges on different NUMA nodes, or where either node is unknown.</li>
 * </ul>
 * Pairs grow with the square of the devices: above {@link #MAX_PAIRED_DEVICES} devices (a node with
 * thousands of VFs) they are left out with one warning; the tree still places every device.
 */
public final class PciTreeBuilder {

  /** Devices beyond which pairs are left out: 256 devices are 32,640 pairs. */
  public static final int MAX_PAIRED_DEVICES = 256;

  private PciTreeBuilder() {}

  /**
   * A node as read from sysfs, before it is classified. {@code address} is the directory name
   * ({@code pci0000:00} for a host bridge); ids and class as {@link PciIds#hexId} spells them, null when
   * unknown. Whether a function is a bridge follows from its class and its children ({@link PciKinds}).
   */
  public record RawNode(String address, boolean hostBridge, String vendorId, String deviceId, String classCode,
      Integer numaNode, List<RawNode> children) {
    public RawNode {
      Objects.requireNonNull(address, "address");
      children = List.copyOf(children);
    }

    /** Whether this function is a bridge: its class says so, or functions nest below it. */
    boolean isBridge() {
      if (hostBridge) {
        return false;
      }
      if (PciKinds.isBridgeClass(classCode)) {
        return true;
      }
      for (RawNode c : children) {
        if (!c.hostBridge) {
          return true;
        }
      }
      return false;
    }
  }

  /**
   * The tree with {@code devices} (device name → PCI function in the sysfs spelling) on their functions,
   * and their pairs. Each device whose function is not in the tree costs one warning to {@code warn}.
   */
  public static PciTree build(List<RawNode> hostBridges, Map<String, PciAddress> devices, Consumer<String> warn) {
    Map<String, List<String>> namesByFunction = new HashMap<>();
    devices.forEach((name, address) -> namesByFunction.computeIfAbsent(address.toString(), a -> new ArrayList<>()).add(name));
    List<PciNode> roots = new ArrayList<>();
    for (RawNode hb : hostBridges) {
      roots.add(classify(hb, Kind.HOST_BRIDGE, namesByFunction));
    }
    PciTree unpaired = new PciTree(roots, List.of());

    // Each function that carries devices, with its chain of nodes from the top host bridge down to it.
    Map<String, List<PciNode>> chains = new HashMap<>();
    for (PciNode root : unpaired.hostBridges()) {
      collectChains(root, new ArrayList<>(), chains);
    }
    Map<String, PciAddress> placed = new TreeMap<>();
    for (Map.Entry<String, PciAddress> d : new TreeMap<>(devices).entrySet()) {
      if (chains.containsKey(d.getValue().toString())) {
        placed.put(d.getKey(), d.getValue());
      } else {
        warn.accept("device " + d.getKey() + ": its PCI function " + d.getValue()
            + " is not under /sys/devices/pci*; left out of the PCI tree");
      }
    }
    if (placed.size() > MAX_PAIRED_DEVICES) {
      warn.accept(placed.size() + " published PCI devices are more than " + MAX_PAIRED_DEVICES
          + "; their pairs are left out (the PCI tree still places each device)");
      return unpaired;
    }
    List<PciPair> pairs = new ArrayList<>();
    List<Map.Entry<String, PciAddress>> list = new ArrayList<>(placed.entrySet());
    Map<String, Link> byFunctions = new HashMap<>();
    for (int i = 0; i < list.size(); i++) {
      for (int j = i + 1; j < list.size(); j++) {
        String f = list.get(i).getValue().toString();
        String g = list.get(j).getValue().toString();
        String key = f.compareTo(g) <= 0 ? f + " " + g : g + " " + f;
        Link link = byFunctions.computeIfAbsent(key, k -> link(chains.get(f), chains.get(g)));
        pairs.add(new PciPair(list.get(i).getKey(), list.get(j).getKey(), link));
      }
    }
    return new PciTree(unpaired.hostBridges(), pairs);
  }

  private static PciNode classify(RawNode raw, Kind parent, Map<String, List<String>> names) {
    Kind kind = raw.hostBridge ? Kind.HOST_BRIDGE
        : PciKinds.classify(raw.isBridge(), parent, () -> raw.children.stream().anyMatch(RawNode::isBridge));
    List<PciNode> children = new ArrayList<>(raw.children.size());
    for (RawNode c : raw.children) {
      children.add(classify(c, kind, names));
    }
    Integer numa = raw.numaNode;
    if (raw.hostBridge && numa == null) {
      numa = commonNumaNode(raw.children);
    }
    return new PciNode(raw.address, kind, raw.vendorId, raw.deviceId, raw.classCode, numa,
        raw.hostBridge ? List.of() : names.getOrDefault(raw.address, List.of()), children);
  }

  /**
   * A host bridge has no {@code numa_node} of its own; the kernel gives every device of a root bus the
   * bus' node ({@code pcibus_to_node}), so the node its functions agree on is the host bridge's.
   */
  private static Integer commonNumaNode(List<RawNode> children) {
    Integer common = null;
    for (RawNode c : children) {
      if (c.hostBridge || c.numaNode == null) {
        continue;
      }
      if (common == null) {
        common = c.numaNode;
      } else if (!common.equals(c.numaNode)) {
        return null;
      }
    }
    return common;
  }

  private static void collectChains(PciNode node, List<PciNode> above, Map<String, List<PciNode>> out) {
    above.add(node);
    if (!node.devices().isEmpty()) {
      out.putIfAbsent(node.address(), List.copyOf(above));
    }
    for (PciNode c : node.children()) {
      collectChains(c, above, out);
    }
    above.remove(above.size() - 1);
  }

  /** The relation of two functions given their chains from the top host bridge (see the class comment). */
  static Link link(List<PciNode> a, List<PciNode> b) {
    PciNode f = a.get(a.size() - 1);
    PciNode g = b.get(b.size() - 1);
    if (f == g) {
      return Link.PIX;
    }
    if (a.get(0) != b.get(0)) {
      Integer na = numaNode(a);
      Integer nb = numaNode(b);
      return na != null && na.equals(nb) ? Link.NODE : Link.SYS;
    }
    int common = 0;
    while (common < a.size() && common < b.size() && a.get(common) == b.get(common)) {
      common++;
    }
    // The nodes strictly between f and g: their lowest common ancestor and each side below it.
    Set<PciNode> bridges = Collections.newSetFromMap(new IdentityHashMap<>());
    boolean hostBridge = false;
    for (List<PciNode> chain : List.of(a, b)) {
      int from = chain == a ? common - 1 : common;
      for (int i = Math.max(from, 0); i < chain.size() - 1; i++) {
        PciNode n = chain.get(i);
        if (n == f || n == g) {
          continue;
        }
        if (n.kind() == Kind.HOST_BRIDGE) {
          hostBridge = true;
        }
        // A switch is one bridge in nvidia-smi's count: a downstream port counts as its upstream port.
        bridges.add(n.kind() == Kind.SWITCH_DOWNSTREAM && i > 0 ? chain.get(i - 1) : n);
      }
    }
    if (hostBridge) {
      return Link.PHB;
    }
    return bridges.size() <= 1 ? Link.PIX : Link.PXB;
  }

  /** The function's NUMA node, else its host bridge's. */
  private static Integer numaNode(List<PciNode> chain) {
    Integer own = chain.get(chain.size() - 1).numaNode();
    return own != null ? own : chain.get(0).numaNode();
  }
}
