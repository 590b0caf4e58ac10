package io.nodeatlas.discovery.pci;

import static org.assertj.core.api.Assertions.assertThat;

import io.nodeatlas.discovery.host.FactReader;
import io.nodeatlas.discovery.host.HostContext;
import io.nodeatlas.discovery.host.HostFs;
import io.nodeatlas.discovery.model.Device;
import io.nodeatlas.discovery.model.Names;
import io.nodeatlas.discovery.report.NodeReport;
import io.nodeatlas.discovery.report.NodeReportCodec;
import io.nodeatlas.discovery.spi.Availability;
import io.nodeatlas.discovery.spi.DiscoveryResult;
import io.nodeatlas.discovery.spi.DiscoverySource;
import io.nodeatlas.discovery.report.DiscoveryWarning;
import io.nodeatlas.discovery.engine.NodeDiscovery;
import io.nodeatlas.discovery.testing.FixtureTree;
import io.nodeatlas.discovery.testing.PcieFixture;
import io.nodeatlas.discovery.testing.PcieFixture.Layout;
import io.nodeatlas.discovery.topology.PciTree;
import io.nodeatlas.discovery.topology.PciTree.Kind;
import io.nodeatlas.discovery.topology.PciTree.Link;
import io.nodeatlas.discovery.topology.PciTree.PciNode;
import io.nodeatlas.discovery.topology.PciTree.PciPair;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * The PCI tree of {@code discover} and {@code nodeatlas.io/pcieSwitch} on fixture trees laid out as the
 * kernel does ({@code Documentation/ABI/testing/sysfs-bus-pci}): issue 13's two switches under one root
 * port with a GPU and a NIC each, a device straight on a root port, host bridges on one and on two NUMA
 * nodes, and hostile trees.
 */
class PciTreeTest {

  @TempDir Path root;
  @TempDir Path outside;

  /** A source that publishes devices on the given functions, as the PCI sources do: with {@code pciBusID}. */
  record PciSource(Map<String, String> devices) implements DiscoverySource {
    @Override
    public String name() {
      return "test";
    }

    @Override
    public Availability availability(HostContext host) {
      return Availability.ok();
    }

    @Override
    public DiscoveryResult discover(HostContext host) {
      List<Device> out = new ArrayList<>();
      devices.forEach((name, bdf) -> out.add(Device.builder(name, "test").attribute(Device.TYPE, "x")
          .attribute(Names.PCI_BUS_ID, bdf).build()));
      return DiscoveryResult.of(out, List.of());
    }
  }

  private static Map<String, String> issueDevices() {
    Map<String, String> d = new LinkedHashMap<>();
    d.put("gpu-0", "0000:05:00.0");
    d.put("rdma-mlx5-0", "0000:06:00.0");
    d.put("nic-ib0", "0000:06:00.0");
    d.put("rdma-mlx5-1", "0000:06:00.1");
    d.put("gpu-1", "0000:09:00.0");
    d.put("rdma-mlx5-2", "0000:0a:00.0");
    d.put("nvme-0", "0000:0b:00.0");
    d.put("gpu-2", "0000:81:00.0");
    d.put("rdma-mlx5-3", "0000:c1:00.0");
    return d;
  }

  private NodeReport discover(Map<String, String> devices) {
    return NodeDiscovery.run(List.of(new PciSource(devices)), HostContext.of(HostFs.of(root)));
  }

  private static Map<String, PciNode> byAddress(PciTree tree) {
    Map<String, PciNode> out = new HashMap<>();
    tree.forEach(n -> out.put(n.address(), n));
    return out;
  }

  private static Link link(PciTree tree, String a, String b) {
    PciPair want = new PciPair(a, b, Link.SYS);
    return tree.pairs().stream().filter(p -> p.deviceA().equals(want.deviceA()) && p.deviceB().equals(want.deviceB()))
        .findFirst().orElseThrow(() -> new AssertionError("no pair " + a + " " + b + " in " + tree.pairs())).link();
  }

  private Optional<String> pcieSwitch(String address, List<String> warnings) {
    return new PciFunctionReader(new FactReader(HostFs.of(root), warnings::add)).read(PciAddress.parse(address)).pcieSwitch();
  }

  @Test
  void twoSwitchesUnderOneRootPortAreNamedAndNested() {
    Layout layout = PcieFixture.twoSwitchesUnderOneRootPort(FixtureTree.at(root));
    NodeReport report = discover(issueDevices());

    assertThat(report.warnings()).isEmpty();
    PciTree tree = report.topology().pci();
    assertThat(tree.hostBridges()).extracting(PciNode::address).containsExactly("pci0000:00", "pci0000:80", "pci0000:c0");
    Map<String, PciNode> nodes = byAddress(tree);
    assertThat(nodes.get("pci0000:00").kind()).isEqualTo(Kind.HOST_BRIDGE);
    assertThat(nodes.get("pci0000:00").numaNode()).isZero();
    assertThat(nodes.get("pci0000:c0").numaNode()).isEqualTo(1);
    assertThat(nodes.get("0000:00:00.0").kind()).isEqualTo(Kind.ENDPOINT);
    assertThat(nodes.get("0000:00:01.0").kind()).isEqualTo(Kind.ROOT_PORT);
    assertThat(nodes.get("0000:01:00.0").kind()).isEqualTo(Kind.SWITCH_UPSTREAM);
    assertThat(nodes.get("0000:02:00.0").kind()).isEqualTo(Kind.SWITCH_DOWNSTREAM);
    assertThat(nodes.get("0000:03:00.0").kind()).isEqualTo(Kind.SWITCH_UPSTREAM);
    assertThat(nodes.get("0000:04:00.0").kind()).isEqualTo(Kind.SWITCH_DOWNSTREAM);
    assertThat(nodes.get("0000:04:02.0").kind()).as("an empty downstream port").isEqualTo(Kind.SWITCH_DOWNSTREAM);
    assertThat(nodes.get("0000:07:00.0").kind()).isEqualTo(Kind.SWITCH_UPSTREAM);
    assertThat(nodes.get("0000:00:02.0").kind()).isEqualTo(Kind.ROOT_PORT);
    assertThat(nodes.get("0000:0b:00.0").kind()).isEqualTo(Kind.ENDPOINT);
    assertThat(nodes.get("0000:05:00.0").devices()).containsExactly("gpu-0");
    assertThat(nodes.get("0000:05:00.0").vendorId()).isEqualTo("10de");
    assertThat(nodes.get("0000:05:00.0").deviceId()).isEqualTo("2330");
    assertThat(nodes.get("0000:05:00.0").classCode()).isEqualTo("030200");
    assertThat(nodes.get("0000:06:00.0").devices()).containsExactly("nic-ib0", "rdma-mlx5-0");
    assertThat(nodes.get("0000:c1:00.0").devices()).containsExactly("rdma-mlx5-3");
    assertThat(layout.gpu0()).endsWith("0000:00:01.0/0000:01:00.0/0000:02:00.0/0000:03:00.0/0000:04:00.0/0000:05:00.0");
  }

  @Test
  void pcieSwitchIsTheClosestSwitchsUpstreamPortAndAbsentOnARootPort() {
    PcieFixture.twoSwitchesUnderOneRootPort(FixtureTree.at(root));
    List<String> warnings = new ArrayList<>();
    assertThat(pcieSwitch("0000:05:00.0", warnings)).as("GPU0").contains("0000:03:00.0");
    assertThat(pcieSwitch("0000:06:00.0", warnings)).as("NIC0").contains("0000:03:00.0");
    assertThat(pcieSwitch("0000:06:00.1", warnings)).as("NIC0's second port").contains("0000:03:00.0");
    assertThat(pcieSwitch("0000:09:00.0", warnings)).as("GPU1").contains("0000:07:00.0");
    assertThat(pcieSwitch("0000:0a:00.0", warnings)).as("NIC1").contains("0000:07:00.0");
    assertThat(pcieSwitch("0000:03:00.0", warnings)).as("switch 1, below the top switch").contains("0000:01:00.0");
    assertThat(pcieSwitch("0000:0b:00.0", warnings)).as("NVMe on a root port").isEmpty();
    assertThat(pcieSwitch("0000:81:00.0", warnings)).as("GPU2 on a root port").isEmpty();
    assertThat(pcieSwitch("0000:01:00.0", warnings)).as("the top switch itself, on a root port").isEmpty();
    assertThat(warnings).isEmpty();
  }

  @Test
  void aVfHasItsPfsSwitch() {
    Layout layout = PcieFixture.twoSwitchesUnderOneRootPort(FixtureTree.at(root));
    String parent = layout.nic0().substring(0, layout.nic0().lastIndexOf('/'));
    String vf = PcieFixture.in(FixtureTree.at(root)).function(parent, "0000:06:00.2", PcieFixture.INFINIBAND, "0x15b3",
        "0x101e", 0);
    FixtureTree.at(root).symlink("sys/" + vf + "/physfn", "../0000:06:00.0")
        .symlink("sys/" + layout.nic0() + "/virtfn0", "../0000:06:00.2");
    List<String> warnings = new ArrayList<>();
    assertThat(pcieSwitch("0000:06:00.2", warnings)).contains("0000:03:00.0");
    assertThat(warnings).isEmpty();
  }

  @Test
  void pairsAreNamedAsNvidiaSmiTopoNamesThem() {
    PcieFixture.twoSwitchesUnderOneRootPort(FixtureTree.at(root));
    PciTree tree = discover(issueDevices()).topology().pci();

    assertThat(link(tree, "gpu-0", "rdma-mlx5-0")).as("GPU0-NIC0: one switch").isEqualTo(Link.PIX);
    assertThat(link(tree, "gpu-1", "rdma-mlx5-2")).as("GPU1-NIC1: one switch").isEqualTo(Link.PIX);
    assertThat(link(tree, "gpu-0", "gpu-1")).as("GPU0-GPU1: three switches").isEqualTo(Link.PXB);
    assertThat(link(tree, "gpu-0", "rdma-mlx5-2")).as("GPU0-NIC1").isEqualTo(Link.PXB);
    assertThat(link(tree, "rdma-mlx5-0", "rdma-mlx5-1")).as("two functions of one NIC").isEqualTo(Link.PIX);
    assertThat(link(tree, "nic-ib0", "rdma-mlx5-0")).as("two devices on one function").isEqualTo(Link.PIX);
    assertThat(link(tree, "gpu-0", "nvme-0")).as("two root ports of one host bridge").isEqualTo(Link.PHB);
    assertThat(link(tree, "gpu-0", "gpu-2")).as("two host bridges on NUMA node 0").isEqualTo(Link.NODE);
    assertThat(link(tree, "gpu-0", "rdma-mlx5-3")).as("host bridges on NUMA nodes 0 and 1").isEqualTo(Link.SYS);
    assertThat(link(tree, "gpu-2", "rdma-mlx5-3")).isEqualTo(Link.SYS);
    assertThat(tree.pairs()).as("every two devices once").hasSize(9 * 8 / 2);
  }

  @Test
  void hostBridgesWhoseNumaNodeIsUnknownAreSys() {
    PcieFixture.twoSwitchesUnderOneRootPort(FixtureTree.at(root));
    FixtureTree.at(root).value("sys/devices/pci0000:80/0000:80:01.0/numa_node", -1)
        .value("sys/devices/pci0000:80/0000:80:01.0/0000:81:00.0/numa_node", -1);
    PciTree tree = discover(issueDevices()).topology().pci();
    assertThat(byAddress(tree).get("pci0000:80").numaNode()).isNull();
    assertThat(link(tree, "gpu-0", "gpu-2")).isEqualTo(Link.SYS);
  }

  @Test
  void aPcieToPciBridgeOnARootPortIsABridgeNotASwitch() {
    PcieFixture f = PcieFixture.in(FixtureTree.at(root));
    String hb = f.hostBridge("pci0000:00");
    String rp = f.bridge(hb, "0000:00:1c.0", 0);
    String bridge = f.function(rp, "0000:01:00.0", "0x060401", "0x1a03", "0x1150", 0);
    f.function(bridge, "0000:02:00.0", "0x030000", "0x1a03", "0x2000", 0);
    f.function(bridge, "0000:02:01.0", "0x030000", "0x1a03", "0x2000", 0);
    NodeReport report = discover(Map.of("vga-0", "0000:02:00.0", "vga-1", "0000:02:01.0"));
    Map<String, PciNode> nodes = byAddress(report.topology().pci());
    assertThat(nodes.get("0000:01:00.0").kind()).isEqualTo(Kind.BRIDGE);
    List<String> warnings = new ArrayList<>();
    assertThat(pcieSwitch("0000:02:00.0", warnings)).isEmpty();
    assertThat(link(report.topology().pci(), "vga-0", "vga-1")).isEqualTo(Link.PIX);
    assertThat(warnings).isEmpty();
  }

  @Test
  void anEndpointOnASwitchsInternalBusHasThatSwitch() {
    // A switch's management endpoint sits on the internal bus next to the downstream ports.
    PcieFixture f = PcieFixture.in(FixtureTree.at(root));
    String hb = f.hostBridge("pci0000:00");
    String rp = f.bridge(hb, "0000:00:01.0", 0);
    String up = f.bridge(rp, "0000:01:00.0", 0);
    f.function(up, "0000:02:00.1", "0x068000", "0x1000", "0x00b2", 0);
    String down = f.bridge(up, "0000:02:08.0", 0);
    f.function(down, "0000:03:00.0", PcieFixture.GPU, "0x10de", "0x2330", 0);
    List<String> warnings = new ArrayList<>();
    assertThat(pcieSwitch("0000:02:00.1", warnings)).contains("0000:01:00.0");
    assertThat(pcieSwitch("0000:03:00.0", warnings)).contains("0000:01:00.0");
    NodeReport report = discover(Map.of("mgmt", "0000:02:00.1", "gpu", "0000:03:00.0"));
    assertThat(byAddress(report.topology().pci()).get("0000:01:00.0").kind()).isEqualTo(Kind.SWITCH_UPSTREAM);
    assertThat(link(report.topology().pci(), "gpu", "mgmt")).isEqualTo(Link.PIX);
    assertThat(warnings).isEmpty();
  }

  @Test
  void aVmdDomainNestsItsHostBridgeBelowTheVmdEndpoint() {
    PcieFixture f = PcieFixture.in(FixtureTree.at(root));
    String hb = f.hostBridge("pci0000:00");
    String vmd = f.function(hb, "0000:00:0e.0", "0x010400", "0x8086", "0x467f", 0);
    String inner = vmd + "/pci10000:00";
    FixtureTree.at(root).dir("sys/" + inner);
    String rp = f.bridge(inner, "10000:00:01.0", 0);
    f.function(rp, "10000:01:00.0", PcieFixture.NVME, "0x144d", "0xa80a", 0);
    NodeReport report = discover(Map.of());
    Map<String, PciNode> nodes = byAddress(report.topology().pci());
    assertThat(nodes.get("pci10000:00").kind()).isEqualTo(Kind.HOST_BRIDGE);
    assertThat(nodes.get("10000:00:01.0").kind()).isEqualTo(Kind.ROOT_PORT);
    assertThat(nodes.get("10000:01:00.0").kind()).isEqualTo(Kind.ENDPOINT);
    assertThat(report.warnings()).isEmpty();
  }

  @Test
  void hostileEntriesCostThemselvesAndOneWarningEach() throws Exception {
    PcieFixture.twoSwitchesUnderOneRootPort(FixtureTree.at(root));
    String rp = "sys/devices/pci0000:00/0000:00:01.0";
    FixtureTree t = FixtureTree.at(root)
        // a function-named link back up the tree (a loop if followed)
        .symlink(rp + "/0000:01:1f.7", "..")
        // a function-named link out of the host root
        .symlink("sys/devices/pci0000:00/0000:00:1f.0", outside.toString())
        // a function-named file
        .file("sys/devices/pci0000:00/0000:00:1e.0", "junk\n")
        // junk names are not PCI nodes
        .dir("sys/devices/pci0000:00/0000:zz:00.0/0000:01:00.0")
        .dir("sys/devices/pci0000:00/0000:00:01.0/0000:00:01.0:pcie001")
        .dir("sys/devices/pcijunk")
        .dir("sys/devices/pci0000:00x")
        // an unreadable class costs the class
        .value("sys/devices/pci0000:00/0000:00:02.0/0000:0b:00.0/class", "0xnotahex");
    // a host bridge that is a link
    t.symlink("sys/devices/pci0000:ff", outside.toString());
    NodeReport report = discover(issueDevices());
    List<String> messages = report.warnings().stream().map(DiscoveryWarning::message).toList();
    assertThat(messages).hasSize(5);
    assertThat(messages).anySatisfy(m -> assertThat(m).contains("0000:01:1f.7").contains("symlink; not followed"));
    assertThat(messages).anySatisfy(m -> assertThat(m).contains("0000:00:1f.0").contains("symlink; not followed"));
    assertThat(messages).anySatisfy(m -> assertThat(m).contains("0000:00:1e.0").contains("that is not a directory"));
    assertThat(messages).anySatisfy(m -> assertThat(m).contains("pci0000:ff").contains("symlink; not followed"));
    assertThat(messages).anySatisfy(m -> assertThat(m).contains("0000:0b:00.0/class").contains("not understood"));
    assertThat(report.warnings()).extracting(DiscoveryWarning::source).containsOnly("pci");
    Map<String, PciNode> nodes = byAddress(report.topology().pci());
    assertThat(nodes).doesNotContainKeys("0000:01:1f.7", "0000:00:1f.0", "0000:00:1e.0", "0000:zz:00.0", "pci0000:ff");
    assertThat(nodes.get("0000:0b:00.0").classCode()).isNull();
    assertThat(nodes.get("0000:0b:00.0").kind()).isEqualTo(Kind.ENDPOINT);
    assertThat(link(report.topology().pci(), "gpu-0", "rdma-mlx5-0")).isEqualTo(Link.PIX);
  }

  @Test
  void idsComeFromUeventWhereTheKernelWritesThemThereAndFromTheFilesElsewhere() {
    PcieFixture.twoSwitchesUnderOneRootPort(FixtureTree.at(root));
    String gpu = "sys/devices/pci0000:00/0000:00:01.0/0000:01:00.0/0000:02:00.0/0000:03:00.0/0000:04:00.0/0000:05:00.0";
    String nic = "sys/devices/pci0000:00/0000:00:01.0/0000:01:00.0/0000:02:00.0/0000:03:00.0/0000:04:01.0/0000:06:00.0";
    FixtureTree.at(root)
        .file(gpu + "/uevent", "DRIVER=nvidia\nPCI_CLASS=30200\nPCI_ID=10DE:2331\nPCI_SUBSYS_ID=10DE:1626\n"
            + "PCI_SLOT_NAME=0000:05:00.0\nMODALIAS=pci:v000010DEd00002331sv000010DEsd00001626bc03sc02i00\n")
        .file(nic + "/uevent", "DRIVER=mlx5_core\nPCI_CLASS=20700\nPCI_ID=15B3\n");
    NodeReport report = discover(issueDevices());
    Map<String, PciNode> nodes = byAddress(report.topology().pci());
    assertThat(nodes.get("0000:05:00.0").deviceId()).as("uevent's, not the device file's").isEqualTo("2331");
    assertThat(nodes.get("0000:05:00.0").classCode()).isEqualTo("030200");
    assertThat(nodes.get("0000:06:00.0").deviceId()).as("the device file's, after a bad uevent").isEqualTo("1021");
    assertThat(report.warnings()).extracting(DiscoveryWarning::message).singleElement()
        .satisfies(m -> assertThat(m).contains("0000:06:00.0/uevent").contains("PCI_ID"));
  }

  @Test
  void nestingDeeperThanTheBoundIsCutWithOneWarning() {
    PcieFixture f = PcieFixture.in(FixtureTree.at(root));
    String parent = f.hostBridge("pci0000:00");
    for (int level = 0; level < PciTreeReader.MAX_DEPTH + 8; level++) {
      parent = f.bridge(parent, String.format("0000:%02x:00.0", level), 0);
    }
    NodeReport report = discover(Map.of());
    assertThat(report.warnings()).singleElement().satisfies(w -> assertThat(w.message())
        .contains("nested more than " + PciTreeReader.MAX_DEPTH + " levels"));
    int[] depth = {0};
    PciNode n = report.topology().pci().hostBridges().get(0);
    while (!n.children().isEmpty()) {
      n = n.children().get(0);
      depth[0]++;
    }
    assertThat(depth[0]).isEqualTo(PciTreeReader.MAX_DEPTH);
  }

  @Test
  void aDeviceWhoseFunctionIsNotInTheTreeIsNamedInAWarning() {
    PcieFixture.twoSwitchesUnderOneRootPort(FixtureTree.at(root));
    NodeReport report = discover(Map.of("gpu-0", "0000:05:00.0", "ghost", "0000:ee:00.0"));
    assertThat(report.warnings()).extracting(DiscoveryWarning::message)
        .containsExactly("device ghost: its PCI function 0000:ee:00.0 is not under /sys/devices/pci*; left out of the PCI tree");
    assertThat(report.topology().pci().pairs()).isEmpty();
  }

  @Test
  void aNodeWithoutPciHasAnEmptyTreeAndNoWarning() {
    NodeReport report = discover(Map.of("gpu-0", "0000:05:00.0"));
    assertThat(report.topology().pci().isEmpty()).isTrue();
    assertThat(report.warnings()).isEmpty();
  }

  @Test
  void withoutThePciTreeTheTopologyHasNone() {
    PcieFixture.twoSwitchesUnderOneRootPort(FixtureTree.at(root));
    NodeReport report = NodeDiscovery.run(List.of(new PciSource(issueDevices())), HostContext.of(HostFs.of(root)), false);
    assertThat(report.topology().pci().isEmpty()).isTrue();
  }

  @Test
  void theTreeSurvivesTheDiscoverDocument() {
    PcieFixture.twoSwitchesUnderOneRootPort(FixtureTree.at(root));
    NodeReport report = discover(issueDevices());
    NodeReportCodec codec = new NodeReportCodec();
    NodeReport back = codec.fromJson(codec.toJson(report));
    assertThat(back.topology().pci()).isEqualTo(report.topology().pci());
    assertThat(codec.toJson(back)).isEqualTo(codec.toJson(report));
    assertThat(codec.toJson(report)).contains("\"kind\" : \"switchUpstream\"").contains("\"link\" : \"PXB\"");
  }

  @Test
  void pairsAreLeftOutAboveTheBoundButEveryDeviceIsPlaced() {
    List<PciTreeBuilder.RawNode> functions = new ArrayList<>();
    Map<String, PciAddress> devices = new HashMap<>();
    for (int i = 0; i <= PciTreeBuilder.MAX_PAIRED_DEVICES; i++) {
      String bdf = String.format("0000:01:%02x.%d", i / 8 % 32, i % 8);
      String bus = String.format("%02x", 1 + i / 256);
      bdf = "0000:" + bus + bdf.substring(7);
      functions.add(new PciTreeBuilder.RawNode(bdf, false, null, null, "020000", 0, List.of()));
      devices.put("vf-" + i, PciAddress.parse(bdf));
    }
    PciTreeBuilder.RawNode rp = new PciTreeBuilder.RawNode("0000:00:01.0", false, null, null, "060400", 0, functions);
    List<String> warnings = new ArrayList<>();
    PciTree tree = PciTreeBuilder.build(List.of(new PciTreeBuilder.RawNode("pci0000:00", true, null, null, null, null,
        List.of(rp))), devices, warnings::add);
    assertThat(tree.pairs()).isEmpty();
    assertThat(warnings).containsExactly((PciTreeBuilder.MAX_PAIRED_DEVICES + 1) + " published PCI devices are more than "
        + PciTreeBuilder.MAX_PAIRED_DEVICES + "; their pairs are left out (the PCI tree still places each device)");
    int[] placed = {0};
    tree.forEach(n -> placed[0] += n.devices().size());
    assertThat(placed[0]).isEqualTo(PciTreeBuilder.MAX_PAIRED_DEVICES + 1);
  }

  @Test
  void theSwitchRuleReadsAPathAloneWhereItCan() {
    assertThat(PcieSwitches.ofSysfsPath(Path.of("devices/pci0000:00/0000:00:01.0/0000:01:00.0/0000:02:00.0/0000:03:00.0"),
        b -> { throw new AssertionError("no listing needed"); })).contains("0000:01:00.0");
    assertThat(PcieSwitches.ofSysfsPath(Path.of("devices/pci0000:00/0000:00:01.0/0000:01:00.0"), b -> true)).isEmpty();
    assertThat(PcieSwitches.ofSysfsPath(Path.of("devices/pci0000:00/0000:00:01.0/0000:01:00.0/0000:02:00.0"), b -> true))
        .contains("0000:01:00.0");
    assertThat(PcieSwitches.ofSysfsPath(Path.of("devices/pci0000:00/0000:00:01.0/0000:01:00.0/0000:02:00.0"), b -> false))
        .isEmpty();
    assertThat(PcieSwitches.ofSysfsPath(Path.of("devices/pci0000:00/0000:00:0e.0/pci10000:00/10000:00:01.0/10000:01:00.0"),
        b -> true)).as("below a VMD host bridge").isEmpty();
    assertThat(PcieSwitches.ofSysfsPath(Path.of("devices/platform/0000:01:00.0/0000:02:00.0/0000:03:00.0"), b -> true))
        .isEmpty();
    assertThat(PcieSwitches.ofSysfsPath(Path.of("devices/pci0000:00/0000:00:01.0/junk/0000:02:00.0/0000:03:00.0"),
        b -> true)).isEmpty();
  }
}
