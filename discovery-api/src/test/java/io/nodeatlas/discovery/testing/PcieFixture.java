package io.nodeatlas.discovery.testing;

/**
 * Writes PCI hierarchies into a {@link FixtureTree} as the kernel lays them out
 * ({@code Documentation/ABI/testing/sysfs-bus-pci}, {@code sysfs-devices}): each function a directory
 * nested in its upstream bridge's under {@code sys/devices/pciDDDD:BB}, with {@code class},
 * {@code vendor}, {@code device} ({@code 0x%04x}/{@code 0x%06x}) and {@code numa_node}, and its
 * {@code sys/bus/pci/devices/<address>} link. Shared with the sources' tests through the test jar.
 */
public final class PcieFixture {

  /** PCI-to-PCI bridge class, as every root port and switch port reports it. */
  public static final String BRIDGE = "0x060400";
  public static final String GPU = "0x030200";
  public static final String INFINIBAND = "0x020700";
  public static final String NVME = "0x010802";

  private final FixtureTree tree;

  private PcieFixture(FixtureTree tree) {
    this.tree = tree;
  }

  public static PcieFixture in(FixtureTree tree) {
    return new PcieFixture(tree);
  }

  /** A host bridge directory; returns its path under {@code sys} ({@code devices/pci0000:00}). */
  public String hostBridge(String name) {
    tree.dir("sys/devices/" + name);
    return "devices/" + name;
  }

  /** A function under {@code parent} (a path under {@code sys}); returns its path under {@code sys}. */
  public String function(String parent, String address, String classCode, String vendor, String device, int numaNode) {
    String path = parent + "/" + address;
    tree.value("sys/" + path + "/class", classCode)
        .value("sys/" + path + "/vendor", vendor)
        .value("sys/" + path + "/device", device)
        .value("sys/" + path + "/numa_node", numaNode)
        .symlink("sys/bus/pci/devices/" + address, "../../../" + path);
    return path;
  }

  /** A bridge function (a root port or switch port: class 0x060400; the ids of a Broadcom PEX switch). */
  public String bridge(String parent, String address, int numaNode) {
    return function(parent, address, BRIDGE, "0x1000", "0xc030", numaNode);
  }

  /** The layout of {@link #twoSwitchesUnderOneRootPort}: every function's path under {@code sys}. */
  public record Layout(String hostBridge, String rootPort, String topSwitch, String switch1, String switch2,
      String gpu0, String nic0, String nic0Port2, String gpu1, String nic1, String nvme, String secondHostBridge,
      String gpu2, String otherNodeHostBridge, String nic2) {}

  /**
   * The node of issue 13's fixture: on NUMA node 0, host bridge {@code pci0000:00} has root port
   * {@code 0000:00:01.0} with a switch ({@code 0000:01:00.0}) whose two downstream ports each hold a further
   * switch with a GPU and an InfiniBand NIC: switch 1 ({@code 0000:03:00.0}) with GPU0 {@code 0000:05:00.0}
   * and NIC0 {@code 0000:06:00.0} (two functions, {@code .0} and {@code .1}), and an empty downstream
   * port; switch 2 ({@code 0000:07:00.0}) with GPU1 {@code 0000:09:00.0} and NIC1 {@code 0000:0a:00.0}.
   * Root port {@code 0000:00:02.0} holds an NVMe drive ({@code 0000:0b:00.0}) directly. Host bridge
   * {@code pci0000:80}, also on node 0, has GPU2 ({@code 0000:81:00.0}) on a root port; host bridge
   * {@code pci0000:c0} on node 1 has NIC2 ({@code 0000:c1:00.0}) on a root port.
   */
  public static Layout twoSwitchesUnderOneRootPort(FixtureTree tree) {
    PcieFixture f = in(tree);
    String hb = f.hostBridge("pci0000:00");
    f.function(hb, "0000:00:00.0", "0x060000", "0x8086", "0x09a2", 0);
    String rp = f.bridge(hb, "0000:00:01.0", 0);
    String top = f.bridge(rp, "0000:01:00.0", 0);
    String topDown1 = f.bridge(top, "0000:02:00.0", 0);
    String topDown2 = f.bridge(top, "0000:02:01.0", 0);
    String sw1 = f.bridge(topDown1, "0000:03:00.0", 0);
    String sw1Down1 = f.bridge(sw1, "0000:04:00.0", 0);
    String sw1Down2 = f.bridge(sw1, "0000:04:01.0", 0);
    f.bridge(sw1, "0000:04:02.0", 0);
    String gpu0 = f.function(sw1Down1, "0000:05:00.0", GPU, "0x10de", "0x2330", 0);
    String nic0 = f.function(sw1Down2, "0000:06:00.0", INFINIBAND, "0x15b3", "0x1021", 0);
    String nic0b = f.function(sw1Down2, "0000:06:00.1", INFINIBAND, "0x15b3", "0x1021", 0);
    String sw2 = f.bridge(topDown2, "0000:07:00.0", 0);
    String sw2Down1 = f.bridge(sw2, "0000:08:00.0", 0);
    String sw2Down2 = f.bridge(sw2, "0000:08:01.0", 0);
    String gpu1 = f.function(sw2Down1, "0000:09:00.0", GPU, "0x10de", "0x2330", 0);
    String nic1 = f.function(sw2Down2, "0000:0a:00.0", INFINIBAND, "0x15b3", "0x1021", 0);
    String rp2 = f.bridge(hb, "0000:00:02.0", 0);
    String nvme = f.function(rp2, "0000:0b:00.0", NVME, "0x144d", "0xa80a", 0);
    String hb80 = f.hostBridge("pci0000:80");
    String rp80 = f.bridge(hb80, "0000:80:01.0", 0);
    String gpu2 = f.function(rp80, "0000:81:00.0", GPU, "0x10de", "0x2330", 0);
    String hbc0 = f.hostBridge("pci0000:c0");
    String rpc0 = f.bridge(hbc0, "0000:c0:01.0", 1);
    String nic2 = f.function(rpc0, "0000:c1:00.0", INFINIBAND, "0x15b3", "0x1021", 1);
    return new Layout(hb, rp, top, sw1, sw2, gpu0, nic0, nic0b, gpu1, nic1, nvme, hb80, gpu2, hbc0, nic2);
  }
}
