package io.nodeatlas.discovery.net;

import static io.nodeatlas.discovery.net.NicRdmaAttributes.*;
import static org.assertj.core.api.Assertions.assertThat;

import io.nodeatlas.discovery.host.FactReader;
import io.nodeatlas.discovery.host.HostContext;
import io.nodeatlas.discovery.host.HostFs;
import io.nodeatlas.discovery.host.SourceOptions;
import io.nodeatlas.discovery.model.AttributeValue;
import io.nodeatlas.discovery.model.ContainerEdits;
import io.nodeatlas.discovery.model.Device;
import io.nodeatlas.discovery.model.Names;
import io.nodeatlas.discovery.net.fixture.SyntheticNode;
import io.nodeatlas.discovery.net.model.CharDevice;
import io.nodeatlas.discovery.net.model.NetInterface;
import io.nodeatlas.discovery.net.model.NetnsMode;
import io.nodeatlas.discovery.net.model.RdmaDevice;
import io.nodeatlas.discovery.net.model.SriovRole;
import io.nodeatlas.discovery.net.model.Transport;
import io.nodeatlas.discovery.pci.PciAddress;
import io.nodeatlas.discovery.pci.PciFunctionFacts;
import io.nodeatlas.discovery.pci.PcieRoots;
import io.nodeatlas.discovery.report.NodeReport;
import io.nodeatlas.discovery.spi.DiscoveryResult;
import io.nodeatlas.discovery.report.DiscoveryWarning;
import io.nodeatlas.discovery.engine.NodeDiscovery;
import io.nodeatlas.discovery.topology.PciTree;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.SortedMap;
import java.util.function.Function;
import java.util.stream.Collectors;
import java.util.stream.IntStream;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/** Every expectation of this project's fixtures that concerns NICs, SR-IOV and RDMA on its fixture tree. */
class SyntheticNodeDiscoveryTest {

  @TempDir static Path root;
  static HostFs fs;
  static DiscoveryResult result;
  static Map<String, Device> devices;
  static NicRdmaInventory inventory;

  @BeforeAll
  static void discover() throws Exception {
    SyntheticNode.write(root);
    fs = HostFs.of(root);
    result = new NicRdmaSource().discover(HostContext.of(fs));
    devices = result.devices().stream().collect(Collectors.toMap(Device::name, Function.identity()));
    List<String> scanWarnings = new ArrayList<>();
    inventory = NicRdmaScanner.scan(new FactReader(fs, scanWarnings::add), false);
    assertThat(scanWarnings).isEmpty();
  }

  static Object attr(String device, String name) {
    Device d = devices.get(device);
    assertThat(d).as("device %s", device).isNotNull();
    return d.attribute(name).map(AttributeValue::asObject).orElse(null);
  }

  @Test
  void publishesThreeRdmaPfsSixteenRdmaVfsAndTheOnboardNicWithoutWarnings() {
    assertThat(result.warnings()).isEmpty();
    assertThat(devices.keySet()).containsExactlyInAnyOrder(
        "rdma-mlx5-0", "rdma-mlx5-1", "rdma-mlx5-2", "nic-0000-03-00-0",
        "vf-0000-1a-00-1", "vf-0000-1a-00-2", "vf-0000-1a-00-3", "vf-0000-1a-00-4",
        "vf-0000-1a-00-5", "vf-0000-1a-00-6", "vf-0000-1a-00-7", "vf-0000-1a-01-0",
        "vf-0000-9c-00-1", "vf-0000-9c-00-2", "vf-0000-9c-00-3", "vf-0000-9c-00-4",
        "vf-0000-9c-00-5", "vf-0000-9c-00-6", "vf-0000-9c-00-7", "vf-0000-9c-01-0");
    long rdmaVfs = result.devices().stream()
        .filter(d -> d.type().orElseThrow().equals("vf") && d.attribute(RDMA_DEVICE).isPresent()).count();
    assertThat(rdmaVfs).isEqualTo(16);
    assertThat(result.devices()).extracting(Device::name).isSorted();
    assertThat(result.devices()).allSatisfy(d -> assertThat(d.source()).isEqualTo("nic-rdma"));
  }

  @Test
  void classesTheIbHcaByLinkLayerAndTheRocePortsAsRoceV1AndV2() {
    assertThat(attr("rdma-mlx5-1", TRANSPORT)).isEqualTo("infiniband");
    assertThat(attr("rdma-mlx5-1", LINK_LAYER)).isEqualTo("infiniband");
    assertThat(attr("rdma-mlx5-1", LID)).isEqualTo(0x3cL);
    assertThat(attr("rdma-mlx5-1", ROCE_VERSIONS)).isNull();
    for (String d : List.of("rdma-mlx5-0", "rdma-mlx5-2", "vf-0000-1a-00-1", "vf-0000-9c-00-7")) {
      assertThat(attr(d, TRANSPORT)).as(d).isEqualTo("roce");
      assertThat(attr(d, LINK_LAYER)).as(d).isEqualTo("ethernet");
      assertThat(attr(d, ROCE_VERSIONS)).as(d).isEqualTo("v1,v2");
      assertThat(attr(d, LID)).as(d).isNull();
    }
    // mlx5_18 has an empty GID table: RoCE by link layer, but no GID types to report.
    assertThat(attr("vf-0000-9c-01-0", TRANSPORT)).isEqualTo("roce");
    assertThat(attr("vf-0000-9c-01-0", ROCE_VERSIONS)).isNull();
    assertThat(inventory.rdmaDevices()).hasSize(19);
    assertThat(inventory.rdmaDevices()).filteredOn(d -> d.transport() == Transport.ROCE).hasSize(18);
  }

  @Test
  void publishesIdentityAndPortFactsAsSysfsPrintsThem() {
    assertThat(attr("rdma-mlx5-0", NODE_GUID)).isEqualTo("b83f:d203:001a:0000");
    assertThat(attr("rdma-mlx5-0", SYS_IMAGE_GUID)).isEqualTo("b83f:d203:001a:0000");
    assertThat(attr("rdma-mlx5-0", FIRMWARE_VERSION)).isEqualTo("28.39.1002");
    assertThat(attr("rdma-mlx5-0", HCA_TYPE)).isEqualTo("MT4129");
    assertThat(attr("rdma-mlx5-0", BOARD_ID)).isEqualTo("MT_0000000838");
    assertThat(attr("rdma-mlx5-0", PORT_STATE)).isEqualTo("active");
    assertThat(attr("rdma-mlx5-0", PHYS_STATE)).isEqualTo("linkup");
    assertThat(attr("rdma-mlx5-0", RATE_GBPS)).isEqualTo(400L);
    assertThat(attr("rdma-mlx5-0", PORT_COUNT)).isEqualTo(1L);
    assertThat(attr("rdma-mlx5-0", IF_NAME)).isEqualTo("enp26s0np0");
    assertThat(attr("rdma-mlx5-0", MAC)).isEqualTo("b8:3f:d2:1a:00:00");
    assertThat(attr("rdma-mlx5-0", MTU)).isEqualTo(9000L);
    assertThat(attr("rdma-mlx5-0", PciFunctionFacts.PCI_VENDOR_ID)).isEqualTo("15b3");
    assertThat(attr("rdma-mlx5-0", PciFunctionFacts.PCI_DEVICE_ID)).isEqualTo("1021");
    assertThat(attr("rdma-mlx5-0", PciFunctionFacts.PCI_SUBSYSTEM_VENDOR_ID)).isEqualTo("15b3");
    assertThat(attr("rdma-mlx5-0", PciFunctionFacts.PCI_SUBSYSTEM_DEVICE_ID)).isEqualTo("0021");
    assertThat(attr("rdma-mlx5-0", PciFunctionFacts.KERNEL_DRIVER)).isEqualTo("mlx5_core");
    assertThat(attr("rdma-mlx5-0", PciFunctionFacts.PCIE_LINK_SPEED)).isEqualTo("32.0 GT/s");
    assertThat(attr("rdma-mlx5-0", PciFunctionFacts.PCIE_LINK_WIDTH)).isEqualTo(16L);
    assertThat(attr("rdma-mlx5-0", RDMA_NETNS_MODE)).isEqualTo("shared");
    assertThat(attr("rdma-mlx5-0", Names.PCI_BUS_ID)).isEqualTo("0000:1a:00.0");

    assertThat(attr("rdma-mlx5-1", NODE_GUID)).isEqualTo("a088:c203:003c:0000");
    assertThat(attr("rdma-mlx5-1", IF_NAME)).isEqualTo("ibp60s0");
    assertThat(attr("rdma-mlx5-1", MTU)).isEqualTo(4092L);
    assertThat(attr("rdma-mlx5-1", MAC)).isEqualTo("00:00:10:49:fe:80:00:00:00:00:00:00:a0:88:c2:03:00:3c:00:00");

    assertThat(attr("vf-0000-1a-00-1", NODE_GUID)).isEqualTo("b83f:d203:001a:0100");
    assertThat(attr("vf-0000-1a-00-1", SYS_IMAGE_GUID)).isEqualTo("b83f:d203:001a:0000");
    assertThat(attr("vf-0000-1a-00-1", HCA_TYPE)).isEqualTo("MT4126");
    assertThat(attr("vf-0000-1a-00-1", PciFunctionFacts.PCI_DEVICE_ID)).isEqualTo("101e");
    assertThat(attr("vf-0000-9c-01-0", PORT_STATE)).isEqualTo("down");
    assertThat(attr("vf-0000-9c-01-0", OPER_STATE)).isEqualTo("down");
    assertThat(attr("vf-0000-9c-01-0", SPEED_MBPS)).isNull();
    assertThat(attr("vf-0000-1a-00-1", SPEED_MBPS)).isEqualTo(400000L);
  }

  @Test
  void mapsEveryUverbsUmadAndIssmNodeByIbdevAndReadsRdmaCm() {
    var table = inventory.charDevices();
    assertThat(table.uverbsByIbdev()).hasSize(19);
    assertThat(table.umadByIbdev()).hasSize(19);
    assertThat(table.issmByIbdev()).hasSize(19);
    for (int k = 0; k <= 18; k++) {
      String ib = "mlx5_" + k;
      assertThat(table.uverbs(ib).orElseThrow().dev().toString()).isEqualTo("231:" + (192 + k));
      assertThat(table.umad(ib, 1).orElseThrow().dev().toString()).isEqualTo("231:" + k);
      assertThat(table.issm(ib, 1).orElseThrow().dev().toString()).isEqualTo("231:" + (64 + k));
    }
    assertThat(table.rdmaCm().map(CharDevice::dev).map(Object::toString)).contains("10:58");
  }

  @Test
  void containerEditsAreUverbsPlusUmadForInfiniBandPlusRdmaCm() {
    assertThat(nodes("rdma-mlx5-0")).containsExactly(
        "/dev/infiniband/uverbs0 c 231:192 rw", "/dev/infiniband/rdma_cm c 10:58 rw");
    assertThat(nodes("rdma-mlx5-1")).containsExactly(
        "/dev/infiniband/uverbs1 c 231:193 rw", "/dev/infiniband/umad1 c 231:1 rw",
        "/dev/infiniband/rdma_cm c 10:58 rw");
    assertThat(nodes("vf-0000-9c-01-0")).containsExactly(
        "/dev/infiniband/uverbs18 c 231:210 rw", "/dev/infiniband/rdma_cm c 10:58 rw");
    assertThat(devices.get("vf-0000-9c-01-0").containerEdits().netDevices())
        .containsExactly(new ContainerEdits.NetDevice("enp156s0v7", "enp156s0v7"));
    assertThat(devices.get("nic-0000-03-00-0").containerEdits().netDevices())
        .containsExactly(new ContainerEdits.NetDevice("eno1", "eno1"));
    assertThat(devices.get("nic-0000-03-00-0").containerEdits().deviceNodes()).isEmpty();
    // The RDMA PF stays in the host namespace (shared mode); only its char devices are handed out.
    assertThat(devices.get("rdma-mlx5-0").containerEdits().netDevices()).isEmpty();
    // Host and container paths are the same (hostPath null means "same as path").
    assertThat(devices.get("rdma-mlx5-0").containerEdits().deviceNodes()).allSatisfy(n -> assertThat(n.hostPath()).isNull());
  }

  @Test
  void madDevicesOptionAddsUmadAndIssmForEveryPort() throws Exception {
    DiscoveryResult withMad = new NicRdmaSource().discover(
        HostContext.of(fs).withOptions(SourceOptions.NONE.with("nic-rdma.madDevices", "true")));
    Device d = withMad.devices().stream().filter(x -> x.name().equals("rdma-mlx5-0")).findFirst().orElseThrow();
    assertThat(d.containerEdits().deviceNodes()).extracting(ContainerEdits.DeviceNode::path).containsExactly(
        "/dev/infiniband/uverbs0", "/dev/infiniband/umad0", "/dev/infiniband/issm0", "/dev/infiniband/rdma_cm");
  }

  @Test
  void mapsTheRocePfsThroughGidAttrsAndTheRestThroughFallbacks() {
    Map<String, SortedMap<Integer, NetdevMapper.Link>> links = NicRdmaPublisher.netdevLinks(inventory);
    List<String> viaGidAttrs = links.entrySet().stream()
        .filter(e -> e.getValue().get(1).method() == NetdevMapper.Method.GID_ATTRS).map(Map.Entry::getKey).sorted().toList();
    assertThat(viaGidAttrs).containsExactly("mlx5_0", "mlx5_2");
    assertThat(links.get("mlx5_18").get(1)).isEqualTo(new NetdevMapper.Link("enp156s0v7", NetdevMapper.Method.PCI_PARENT));
    assertThat(links.get("mlx5_1").get(1)).isEqualTo(new NetdevMapper.Link("ibp60s0", NetdevMapper.Method.PORT_GUID));
    assertThat(links.get("mlx5_0").get(1).netdev()).isEqualTo("enp26s0np0");
    assertThat(links.get("mlx5_2").get(1).netdev()).isEqualTo("enp156s0np0");
    // A VF's RDMA device is published inside the VF's device, with the VF's own netdev: its GIDs' netdevs
    // are not read (two reads per RoCE VF), and its port maps to that netdev through the PCI function.
    IntStream.range(0, 8).forEach(j -> {
      assertThat(links.get("mlx5_" + (3 + j)).get(1)).isEqualTo(new NetdevMapper.Link("enp26s0v" + j, NetdevMapper.Method.PCI_PARENT));
      assertThat(links.get("mlx5_" + (11 + j)).get(1)).isEqualTo(new NetdevMapper.Link("enp156s0v" + j, NetdevMapper.Method.PCI_PARENT));
    });
  }

  @Test
  void numaNodesAndPcieRootsPairNicsWithTheirGpus() {
    assertThat(attr("rdma-mlx5-0", Names.NUMA_NODE)).isEqualTo(0L);
    assertThat(attr("rdma-mlx5-1", Names.NUMA_NODE)).isEqualTo(0L);
    assertThat(attr("rdma-mlx5-2", Names.NUMA_NODE)).isEqualTo(1L);
    assertThat(attr("vf-0000-9c-00-3", Names.NUMA_NODE)).isEqualTo(1L);
    assertThat(attr("nic-0000-03-00-0", Names.NUMA_NODE)).isEqualTo(0L);
    List<String> gpuRoots = SyntheticNode.GPUS.stream()
        .map(p -> PcieRoots.of(fs, p.substring(p.lastIndexOf('/') + 1)).orElseThrow()).toList();
    assertThat(gpuRoots).containsExactly(
        "pci0000:15", "pci0000:15", "pci0000:37", "pci0000:37", "pci0000:97", "pci0000:97", "pci0000:b7", "pci0000:b7");
    assertThat(attr("rdma-mlx5-0", Names.PCIE_ROOT)).isEqualTo(gpuRoots.get(0));
    assertThat(attr("vf-0000-1a-01-0", Names.PCIE_ROOT)).isEqualTo(gpuRoots.get(1));
    assertThat(attr("rdma-mlx5-1", Names.PCIE_ROOT)).isEqualTo(gpuRoots.get(2));
    assertThat(attr("rdma-mlx5-2", Names.PCIE_ROOT)).isEqualTo(gpuRoots.get(4));
    assertThat(attr("nic-0000-03-00-0", Names.PCIE_ROOT)).isEqualTo("pci0000:00");
    assertThat(result.devices()).noneMatch(d -> "pci0000:b7".equals(d.attribute(Names.PCIE_ROOT).map(AttributeValue::asObject).orElse(null)));
  }

  @Test
  void pcieSwitchNamesTheSwitchAbovePfsAndTheirVfsAndNothingOnARootPort() {
    String pcieSwitch = PciFunctionFacts.PCIE_SWITCH;
    assertThat(attr("rdma-mlx5-0", pcieSwitch)).isEqualTo("0000:16:00.0");
    assertThat(attr("rdma-mlx5-1", pcieSwitch)).isEqualTo("0000:38:00.0");
    assertThat(attr("rdma-mlx5-2", pcieSwitch)).isEqualTo("0000:98:00.0");
    for (int j = 0; j < 8; j++) {
      assertThat(attr("vf-" + Names.toLabelFragment(SyntheticNode.vfBdf("1a", j)), pcieSwitch)).isEqualTo("0000:16:00.0");
      assertThat(attr("vf-" + Names.toLabelFragment(SyntheticNode.vfBdf("9c", j)), pcieSwitch)).isEqualTo("0000:98:00.0");
    }
    assertThat(attr("nic-0000-03-00-0", pcieSwitch)).as("the onboard NIC on root port 0000:00:1c.0").isNull();
  }

  @Test
  void theDiscoverTopologyPlacesEveryFunctionAndRelatesPfsVfsAndCards() {
    NodeReport report = NodeDiscovery.run(List.of(new NicRdmaSource()), HostContext.of(fs));
    PciTree tree = report.topology().pci();
    assertThat(report.warnings()).isEmpty();
    Map<String, PciTree.Link> links = new java.util.HashMap<>();
    tree.pairs().forEach(p -> links.put(p.deviceA() + " " + p.deviceB(), p.link()));
    assertThat(links.get("rdma-mlx5-0 vf-0000-1a-00-1")).as("a PF and its VF").isEqualTo(PciTree.Link.PIX);
    assertThat(links.get("rdma-mlx5-0 rdma-mlx5-1")).as("host bridges on NUMA node 0").isEqualTo(PciTree.Link.NODE);
    assertThat(links.get("rdma-mlx5-0 rdma-mlx5-2")).as("NUMA nodes 0 and 1").isEqualTo(PciTree.Link.SYS);
    assertThat(links.get("nic-0000-03-00-0 rdma-mlx5-0")).isEqualTo(PciTree.Link.NODE);
    int n = result.devices().size();
    assertThat(tree.pairs()).hasSize(n * (n - 1) / 2);
    Map<String, List<String>> placed = new java.util.HashMap<>();
    tree.forEach(node -> placed.put(node.address(), node.devices()));
    assertThat(placed.get("0000:1a:00.0")).containsExactly("rdma-mlx5-0");
    assertThat(placed.get("0000:16:00.0")).isEmpty();
  }

  @Test
  void sriovPfsVfsAndVfIndexesComeFromPhysfnAndVirtfnLinks() {
    for (String pf : List.of("rdma-mlx5-0", "rdma-mlx5-2")) {
      assertThat(attr(pf, SRIOV_TOTAL_VFS)).isEqualTo(16L);
      assertThat(attr(pf, SRIOV_NUM_VFS)).isEqualTo(8L);
    }
    assertThat(attr("nic-0000-03-00-0", SRIOV_TOTAL_VFS)).isEqualTo(7L);
    assertThat(attr("nic-0000-03-00-0", SRIOV_NUM_VFS)).isEqualTo(0L);
    assertThat(attr("rdma-mlx5-1", SRIOV_TOTAL_VFS)).isEqualTo(16L);
    for (int j = 0; j < 8; j++) {
      String vf0 = "vf-" + Names.toLabelFragment(SyntheticNode.vfBdf("1a", j));
      String vf1 = "vf-" + Names.toLabelFragment(SyntheticNode.vfBdf("9c", j));
      assertThat(attr(vf0, VF_INDEX)).isEqualTo((long) j);
      assertThat(attr(vf0, PF_BUS_ID)).isEqualTo("0000:1a:00.0");
      assertThat(attr(vf0, PF_NAME)).isEqualTo("enp26s0np0");
      assertThat(attr(vf0, IF_NAME)).isEqualTo("enp26s0v" + j);
      assertThat(attr(vf0, MAC)).isEqualTo("02:1a:00:00:00:0" + j);
      assertThat(attr(vf0, RDMA_DEVICE)).isEqualTo("mlx5_" + (3 + j));
      assertThat(attr(vf1, VF_INDEX)).isEqualTo((long) j);
      assertThat(attr(vf1, PF_NAME)).isEqualTo("enp156s0np0");
      assertThat(attr(vf1, RDMA_DEVICE)).isEqualTo("mlx5_" + (11 + j));
      assertThat(attr(vf1, TYPE)).isEqualTo("vf");
    }
    var pf = (SriovRole.PhysicalFunction) inventory.pciFunction("0000:1a:00.0").orElseThrow().sriov();
    assertThat(pf.vfs()).extracting(l -> l.address().toString())
        .containsExactly(IntStream.range(0, 8).mapToObj(j -> SyntheticNode.vfBdf("1a", j)).toArray(String[]::new));
    assertThat(inventory.pciFunction("0000:1a:00.1").orElseThrow().sriov())
        .isEqualTo(new SriovRole.VirtualFunction(PciAddress.parse("0000:1a:00.0"), java.util.OptionalInt.of(0)));
  }

  @Test
  void virtualInterfacesAreLeftOutUnlessAskedFor() throws Exception {
    assertThat(inventory.interfaces()).extracting(NetInterface::name).doesNotContain("lo", "cni0", "veth1a2b3c4d", "bonding_masters");
    assertThat(inventory.interfaces()).noneMatch(NetInterface::virtual);
    assertThat(inventory.interfaces()).extracting(NetInterface::name).contains("eno1", "enp26s0np0", "ibp60s0", "enp156s0v7");

    DiscoveryResult all = new NicRdmaSource().discover(
        HostContext.of(fs).withOptions(SourceOptions.NONE.with("nic-rdma.includeVirtual", "true")));
    Map<String, Device> byName = all.devices().stream().collect(Collectors.toMap(Device::name, Function.identity()));
    assertThat(byName).containsKeys("vnic-lo", "vnic-cni0", "vnic-veth1a2b3c4d");
    assertThat(byName).hasSize(devices.size() + 3);
    assertThat(byName.get("vnic-veth1a2b3c4d").attribute(VIRTUAL)).contains(AttributeValue.of(true));
    // Booleans are always present: a physical NIC says virtual: false.
    assertThat(byName.get("nic-0000-03-00-0").attribute(VIRTUAL)).contains(AttributeValue.of(false));
    assertThat(byName.get("vnic-lo").attribute(LINK_LAYER)).isEmpty();
    assertThat(byName.get("vnic-cni0").attribute(LINK_LAYER)).contains(AttributeValue.string("ethernet"));
    assertThat(byName.get("vnic-veth1a2b3c4d").containerEdits().netDevices()).hasSize(1);
    // lo and bridges are NETIF_F_NETNS_LOCAL: no netDevice edit that would fail at container start.
    assertThat(byName.get("vnic-lo").containerEdits().netDevices()).isEmpty();
    assertThat(byName.get("vnic-cni0").containerEdits().netDevices()).isEmpty();
    assertThat(all.warnings()).isEmpty();
  }

  @Test
  void netnsModeIsReadFromIbCore() {
    assertThat(inventory.netnsMode()).contains(NetnsMode.SHARED);
  }

  @Test
  void everyDeviceStaysWithinTheResourceSliceLimits() {
    for (Device d : result.devices()) {
      assertThat(d.attributes().size() + d.capacity().size()).as(d.name()).isLessThanOrEqualTo(32);
      assertThat(Names.isDnsLabel(d.name())).isTrue();
    }
    RdmaDevice ib = inventory.rdmaDevice("mlx5_1").orElseThrow();
    assertThat(ib.ports().get(0).gids().size()).isEqualTo(16);
  }

  @Test
  void nicsVfsAndRdmaDevicesAreExclusive() {
    // A netdev moves into one pod and a VF belongs to one pod: no device may be shared between claims.
    assertThat(result.devices()).isNotEmpty().allSatisfy(d -> {
      assertThat(d.allowMultipleAllocations()).as(d.name()).isFalse();
      assertThat(d.requestPolicies()).as(d.name()).isEmpty();
      assertThat(d.capacity()).as(d.name()).isEmpty();
    });
  }

  @Test
  void theSourceDeclaresItsFourSettingsAndReadsThemUnderTheirKeys() throws Exception {
    NicRdmaSource source = new NicRdmaSource();
    assertThat(source.settings()).extracting(s -> s.key() + " " + s.flag() + " " + s.env() + " " + s.type() + " " + s.defaultValue())
        .containsExactly(
            "nic-rdma.includeVirtual --include-virtual-nics NODEATLAS_INCLUDE_VIRTUAL_NICS BOOLEAN false",
            "nic-rdma.madDevices --rdma-mad-devices NODEATLAS_RDMA_MAD_DEVICES BOOLEAN false",
            "nic-rdma.allowUplinks --allow-uplink-nics NODEATLAS_ALLOW_UPLINK_NICS BOOLEAN false",
            "nic-rdma.nodeIp --node-ip NODEATLAS_NODE_IP STRING ");
    assertThat(source.settings()).allSatisfy(s -> assertThat(s.source()).isEqualTo(source.name()));
    DiscoveryResult explicitFalse = source.discover(HostContext.of(fs).withOptions(
        SourceOptions.NONE.with(NicRdmaSource.INCLUDE_VIRTUAL, "FALSE").with(NicRdmaSource.MAD_DEVICES, "false")
            .with(NicRdmaSource.ALLOW_UPLINKS, "false")));
    assertThat(explicitFalse).isEqualTo(result);
  }

  /**
   * Everything one VF publishes, pinned: the VF path is where a node of thousands of VFs spends its
   * discovery, so every cut there must leave this exactly as it is.
   */
  @Test
  void aVfPublishesExactlyItsFunctionNetdevAndRdmaDeviceFacts() {
    Device vf = devices.get("vf-0000-1a-00-1");
    Map<String, Object> attributes = new java.util.TreeMap<>();
    vf.attributes().forEach((name, value) -> attributes.put(name, value.asObject()));
    assertThat(attributes).containsExactlyEntriesOf(new java.util.TreeMap<>(Map.ofEntries(
        Map.entry(TYPE, "vf"), Map.entry(UPLINK, false),
        Map.entry(PF_BUS_ID, "0000:1a:00.0"), Map.entry(VF_INDEX, 0L), Map.entry(PF_NAME, "enp26s0np0"),
        Map.entry(IF_NAME, "enp26s0v0"), Map.entry(MAC, "02:1a:00:00:00:00"), Map.entry(MTU, 9000L),
        Map.entry(OPER_STATE, "up"), Map.entry(SPEED_MBPS, 400000L),
        Map.entry(RDMA_DEVICE, "mlx5_3"), Map.entry(TRANSPORT, "roce"), Map.entry(NODE_GUID, "b83f:d203:001a:0100"),
        Map.entry(SYS_IMAGE_GUID, "b83f:d203:001a:0000"), Map.entry(FIRMWARE_VERSION, "28.39.1002"),
        Map.entry(HCA_TYPE, "MT4126"), Map.entry(RDMA_NETNS_MODE, "shared"), Map.entry(LINK_LAYER, "ethernet"),
        Map.entry(PORT_STATE, "active"), Map.entry(RATE_GBPS, 400L), Map.entry(ROCE_VERSIONS, "v1,v2"),
        Map.entry(PciFunctionFacts.PCI_VENDOR_ID, "15b3"), Map.entry(PciFunctionFacts.PCI_DEVICE_ID, "101e"),
        Map.entry(PciFunctionFacts.PCI_SUBSYSTEM_VENDOR_ID, "15b3"), Map.entry(PciFunctionFacts.PCI_SUBSYSTEM_DEVICE_ID, "0021"),
        Map.entry(PciFunctionFacts.KERNEL_DRIVER, "mlx5_core"), Map.entry(PciFunctionFacts.PCIE_LINK_SPEED, "32.0 GT/s"),
        Map.entry(PciFunctionFacts.PCIE_LINK_WIDTH, 16L), Map.entry(PciFunctionFacts.PCIE_SWITCH, "0000:16:00.0"),
        Map.entry(Names.NUMA_NODE, 0L), Map.entry(Names.PCI_BUS_ID, "0000:1a:00.1"), Map.entry(Names.PCIE_ROOT, "pci0000:15"))));
    assertThat(vf.capacity()).isEmpty();
    assertThat(vf.allowMultipleAllocations()).isFalse();
    assertThat(nodes("vf-0000-1a-00-1")).containsExactly(
        "/dev/infiniband/uverbs3 c 231:195 rw", "/dev/infiniband/rdma_cm c 10:58 rw");
    assertThat(vf.containerEdits().deviceNodes()).allSatisfy(n -> assertThat(n.hostPath()).isNull());
    assertThat(vf.containerEdits().netDevices()).containsExactly(new ContainerEdits.NetDevice("enp26s0v0", "enp26s0v0"));
    assertThat(vf.containerEdits().env()).isEmpty();
    assertThat(vf.containerEdits().mounts()).isEmpty();
    assertThat(vf.containerEdits().hooks()).isEmpty();
  }

  @Test
  void discoveryIsDeterministic() throws Exception {
    DiscoveryResult again = new NicRdmaSource().discover(HostContext.of(fs));
    assertThat(again).isEqualTo(result);
    assertThat(result.warnings()).extracting(DiscoveryWarning::message).isEmpty();
  }

  private static List<String> nodes(String device) {
    return devices.get(device).containerEdits().deviceNodes().stream()
        .map(n -> n.path() + " " + n.type() + " " + n.major() + ":" + n.minor() + " " + n.permissions())
        .toList();
  }
}
