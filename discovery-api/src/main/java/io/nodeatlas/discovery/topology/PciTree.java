package io.nodeatlas.discovery.topology;

import io.nodeatlas.discovery.model.Order;
import java.util.List;
import java.util.Locale;
import java.util.function.Consumer;

/**
 * The node's PCI hierarchy as {@code /sys/devices/pci*} nests it (Documentation/ABI/testing/sysfs-bus-pci):
 * host bridges at the top, then root ports, switch ports and other bridges, then endpoints. Endpoints
 * carry the names of the devices nodeatlas published for them, so a reader can see which GPU, NIC or
 * VF sits behind which switch. {@code pairs} relates every two published PCI devices in the terms of
 * {@code nvidia-smi topo -m}.
 *
 * <p>Everything is sorted (host bridges and children by address, pairs by their two names) so that the
 * same host always prints the same tree.
 */
public record PciTree(List<PciNode> hostBridges, List<PciPair> pairs) {

  public static final PciTree EMPTY = new PciTree(List.of(), List.of());

  public PciTree {
    hostBridges = hostBridges.stream().sorted(Order.by(PciNode::address)).toList();
    pairs = pairs.stream().sorted(Order.by(PciPair::deviceA).then(PciPair::deviceB)).toList();
  }

  public boolean isEmpty() {
    return hostBridges.isEmpty();
  }

  /** Visits every node depth first, parents before children. */
  public void forEach(Consumer<PciNode> visitor) {
    hostBridges.forEach(n -> n.forEach(visitor));
  }

  /** What a node is in the hierarchy. */
  public enum Kind {
    /** A PCI host bridge: the {@code pciDDDD:BB} directory the kernel creates per root bus. */
    HOST_BRIDGE,
    /** A PCI Express root port: a bridge directly below a host bridge. */
    ROOT_PORT,
    /** The upstream port of a PCI Express switch (the switch's identity; {@code nodeatlas.io/pcieSwitch}). */
    SWITCH_UPSTREAM,
    /** A downstream port of a PCI Express switch. */
    SWITCH_DOWNSTREAM,
    /** Any other PCI-to-PCI bridge. */
    BRIDGE,
    /** A function that is not a bridge: a GPU, NIC, VF, NVMe drive... */
    ENDPOINT;

    /** The name in the report: the constant in lower camel case ({@code switchUpstream}). */
    public String jsonName() {
      String[] words = name().toLowerCase(Locale.ROOT).split("_");
      StringBuilder b = new StringBuilder(words[0]);
      for (int i = 1; i < words.length; i++) {
        b.append(Character.toUpperCase(words[i].charAt(0))).append(words[i].substring(1));
      }
      return b.toString();
    }

    public static Kind fromJson(String name) {
      for (Kind k : values()) {
        if (k.jsonName().equals(name)) {
          return k;
        }
      }
      throw new IllegalArgumentException("unknown PCI node kind \"" + name + "\"");
    }
  }

  /**
   * One node. {@code address} is the sysfs name: {@code pci0000:00} for a host bridge, the
   * {@code DDDD:BB:DD.F} function address otherwise. Ids are the four lower-case hex digits sysfs prints
   * without {@code 0x}; {@code classCode} the six hex digits of {@code class}; any may be null where sysfs
   * does not say. {@code numaNode} is null where the kernel reports {@code -1}. {@code devices} are the
   * names of published devices on this function, sorted.
   */
  public record PciNode(
      String address,
      Kind kind,
      String vendorId,
      String deviceId,
      String classCode,
      Integer numaNode,
      List<String> devices,
      List<PciNode> children) {
    public PciNode {
      devices = devices.stream().sorted().distinct().toList();
      children = children.stream().sorted(Order.by(PciNode::address)).toList();
    }

    public void forEach(Consumer<PciNode> visitor) {
      visitor.accept(this);
      children.forEach(c -> c.forEach(visitor));
    }
  }

  /**
   * How the path between two PCI functions runs, named as {@code nvidia-smi topo -m} names it, from
   * nearest to farthest.
   */
  public enum Link {
    /** At most one PCIe bridge between them (the same switch, or the same downstream port). */
    PIX,
    /** Several PCIe bridges, without crossing a host bridge. */
    PXB,
    /** Through a PCIe host bridge (the same root complex). */
    PHB,
    /** Between host bridges within one NUMA node. */
    NODE,
    /** Across the interconnect between NUMA nodes (or NUMA locality unknown). */
    SYS
  }

  /** The relation of two published PCI devices; {@code deviceA} sorts before {@code deviceB}. */
  public record PciPair(String deviceA, String deviceB, Link link) {
    public PciPair {
      if (deviceA.compareTo(deviceB) > 0) {
        String t = deviceA;
        deviceA = deviceB;
        deviceB = t;
      }
    }
  }
}
