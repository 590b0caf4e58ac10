package io.nodeatlas.discovery.net;

import static io.nodeatlas.discovery.net.NicRdmaAttributes.*;
import static org.assertj.core.api.Assertions.assertThat;

import io.nodeatlas.discovery.host.FactReader;
import io.nodeatlas.discovery.host.HostContext;
import io.nodeatlas.discovery.host.HostFs;
import io.nodeatlas.discovery.host.SourceOptions;
import io.nodeatlas.discovery.model.AttributeValue;
import io.nodeatlas.discovery.model.Device;
import io.nodeatlas.discovery.model.Names;
import io.nodeatlas.discovery.net.fixture.CorpusTree;
import io.nodeatlas.discovery.net.model.CharDevice;
import io.nodeatlas.discovery.net.model.SriovRole;
import io.nodeatlas.discovery.net.sysfs.SriovReader;
import io.nodeatlas.discovery.pci.PciAddress;
import io.nodeatlas.discovery.pci.PciFunctionFacts;
import io.nodeatlas.discovery.pci.PciFunctionReader;
import io.nodeatlas.discovery.pci.PcieRoots;
import io.nodeatlas.discovery.spi.DiscoveryResult;
import io.nodeatlas.discovery.report.DiscoveryWarning;
import io.nodeatlas.discovery.testing.Conformance;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.attribute.PosixFilePermissions;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.function.Function;
import java.util.stream.Collectors;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * The values each capture's README.md in {@code shared/conformance/sysfs-rdma} lists, reproduced from
 * the real trees. The trees are copied to a temp dir first (see {@link CorpusTree}) because the
 * stored corpus may hold symlinks flattened into files.
 */
class SysfsRdmaConformanceTest {

  @TempDir Path tmp;

  private HostFs capture(String name) {
    Path corpus = Conformance.corpus("sysfs-rdma").resolve(name);
    return HostFs.of(CorpusTree.materialise(corpus, tmp.resolve(name)));
  }

  private static Map<String, Device> byName(DiscoveryResult r) {
    return r.devices().stream().collect(Collectors.toMap(Device::name, Function.identity()));
  }

  private static Object attr(Device d, String name) {
    return d.attribute(name).map(AttributeValue::asObject).orElse(null);
  }

  /**
   * A capture unpacked where other users can write is read through directory handles instead of by
   * path: every capture must give the same devices and warnings both ways.
   */
  @Test
  void everyCaptureReadsTheSameWhenOtherUsersCanWriteIt() throws Exception {
    Path corpus = Conformance.corpus("sysfs-rdma");
    List<String> captures;
    try (var s = Files.list(corpus)) {
      captures = s.filter(p -> Files.isDirectory(p.resolve("sys"))).map(p -> p.getFileName().toString()).sorted().toList();
    }
    assertThat(captures).isNotEmpty();
    List<String> differ = new ArrayList<>();
    for (String name : captures) {
      Path root = CorpusTree.materialise(corpus.resolve(name), tmp.resolve(name));
      DiscoveryResult byPath = new NicRdmaSource().discover(HostContext.of(HostFs.of(root)));
      Files.setPosixFilePermissions(root, PosixFilePermissions.fromString("rwxrwxrwx"));
      DiscoveryResult viaHandles = new NicRdmaSource().discover(HostContext.of(HostFs.of(root)));
      if (!byPath.equals(viaHandles)) {
        differ.add(name);
      }
    }
    assertThat(differ).as("captures read differently through directory handles").isEmpty();
  }

  @Test
  void mlx4InfiniBandCaptureWithoutCharDeviceClassDirs() throws Exception {
    HostFs fs = capture("hwloc-32em64t-2n8c-mlx4-ib");
    NicRdmaSource source = new NicRdmaSource();
    assertThat(source.availability(HostContext.of(fs)).available()).isTrue();
    DiscoveryResult r = source.discover(HostContext.of(fs));
    Map<String, Device> devices = byName(r);
    assertThat(devices.keySet()).containsExactlyInAnyOrder("nic-0000-02-00-0", "nic-0000-02-00-3", "rdma-mlx4-0");

    Device mlx4 = devices.get("rdma-mlx4-0");
    // PCI class 0x028000, yet InfiniBand: the transport comes from link_layer.
    assertThat(attr(mlx4, TRANSPORT)).isEqualTo("infiniband");
    assertThat(attr(mlx4, LINK_LAYER)).isEqualTo("infiniband");
    assertThat(attr(mlx4, NODE_GUID)).isEqualTo("0002:c903:00f9:bfa0");
    assertThat(attr(mlx4, SYS_IMAGE_GUID)).isEqualTo("0002:c903:00f9:bfa3");
    assertThat(attr(mlx4, FIRMWARE_VERSION)).isEqualTo("2.11.500");
    assertThat(attr(mlx4, HCA_TYPE)).isEqualTo("MT4099");
    assertThat(attr(mlx4, BOARD_ID)).isEqualTo("DEL0A30000019");
    assertThat(attr(mlx4, PORT_STATE)).isEqualTo("active");
    assertThat(attr(mlx4, PHYS_STATE)).isEqualTo("linkup");
    assertThat(attr(mlx4, RATE_GBPS)).isEqualTo(56L);
    assertThat(attr(mlx4, LID)).isEqualTo(0x3a4L);
    assertThat(attr(mlx4, PciFunctionFacts.PCI_VENDOR_ID)).isEqualTo("15b3");
    assertThat(attr(mlx4, PciFunctionFacts.PCI_DEVICE_ID)).isEqualTo("1003");
    assertThat(attr(mlx4, PciFunctionFacts.KERNEL_DRIVER)).isEqualTo("mlx4_core");
    assertThat(attr(mlx4, Names.PCI_BUS_ID)).isEqualTo("0000:82:00.0");
    assertThat(attr(mlx4, Names.NUMA_NODE)).isEqualTo(1L);
    assertThat(attr(mlx4, Names.PCIE_ROOT)).isEqualTo("pci0000:80");
    // gids/0 holds the port GUID (...bfa1), not the node GUID; ib0's address ends with it.
    assertThat(attr(mlx4, IF_NAME)).isEqualTo("ib0");
    assertThat(attr(mlx4, MTU)).isEqualTo(2044L);
    assertThat(attr(mlx4, MAC)).isEqualTo("80:00:00:48:fe:80:00:00:00:00:00:00:00:02:c9:03:00:f9:bf:a1");
    NicRdmaInventory inventory = NicRdmaScanner.scan(new FactReader(fs, m -> {}), false);
    assertThat(NicRdmaPublisher.netdevLinks(inventory).get("mlx4_0").get(1))
        .isEqualTo(new NetdevMapper.Link("ib0", NetdevMapper.Method.PORT_GUID));
    assertThat(inventory.rdmaDevice("mlx4_0").orElseThrow().ports()).hasSize(1);

    // No class/infiniband_{verbs,mad}: found under the PCI function, matched by ibdev; DEVNAME=umad0
    // is ignored and the node path is built as /dev/infiniband/<name>.
    assertThat(inventory.charDevices().uverbs("mlx4_0").map(CharDevice::dev).map(Object::toString)).contains("231:192");
    assertThat(inventory.charDevices().umad("mlx4_0", 1).map(CharDevice::dev).map(Object::toString)).contains("231:0");
    assertThat(inventory.charDevices().issm("mlx4_0", 1).map(CharDevice::dev).map(Object::toString)).contains("231:64");
    assertThat(mlx4.containerEdits().deviceNodes()).extracting(n -> n.path() + " " + n.major() + ":" + n.minor())
        .containsExactly("/dev/infiniband/uverbs0 231:192", "/dev/infiniband/umad0 231:0");

    Device eth0 = devices.get("nic-0000-02-00-0");
    assertThat(attr(eth0, IF_NAME)).isEqualTo("eth0");
    assertThat(attr(eth0, PciFunctionFacts.PCI_VENDOR_ID)).isEqualTo("8086");
    assertThat(attr(eth0, PciFunctionFacts.PCI_DEVICE_ID)).isEqualTo("1521");
    assertThat(attr(eth0, PciFunctionFacts.PCI_SUBSYSTEM_VENDOR_ID)).isEqualTo("1028");
    assertThat(attr(eth0, PciFunctionFacts.PCI_SUBSYSTEM_DEVICE_ID)).isEqualTo("0000");
    assertThat(attr(eth0, SPEED_MBPS)).isEqualTo(1000L);
    assertThat(attr(eth0, PciFunctionFacts.KERNEL_DRIVER)).isEqualTo("igb");
    assertThat(attr(eth0, VIRTUAL)).isEqualTo(false);
    assertThat(attr(eth0, Names.NUMA_NODE)).isEqualTo(0L);
    assertThat(attr(eth0, Names.PCIE_ROOT)).isEqualTo("pci0000:00");
    assertThat(attr(devices.get("nic-0000-02-00-3"), IF_NAME)).isEqualTo("eth1");

    // ib0's speed file is empty (a failed read in the capture): absent, not a warning. The non-PCI
    // scif0 (dangling), the missing rdma_cm and the unknown netns mode are the only warnings.
    assertThat(r.warnings()).extracting(DiscoveryWarning::message).containsExactlyInAnyOrder(
        "/sys/class/infiniband/scif0: leads to /sys/devices/scif_dma_0/infiniband/scif0, which is not a directory; "
            + "RDMA device left out",
        "/sys/class/misc/rdma_cm: missing (is rdma_ucm loaded?): containers get no /dev/infiniband/rdma_cm and "
            + "RDMA CM applications will fail",
        "/sys/module/ib_core/parameters/netns_mode: missing (is ib_core loaded?): RDMA netns mode unknown, "
            + "rdmaNetnsMode left out");
  }

  @Test
  void mlx4CaptureVirtualInterfacesDangleAndAreReportedWhenAskedFor() throws Exception {
    HostFs fs = capture("hwloc-32em64t-2n8c-mlx4-ib");
    DiscoveryResult r = new NicRdmaSource().discover(
        HostContext.of(fs).withOptions(SourceOptions.NONE.with("nic-rdma.includeVirtual", "true")));
    assertThat(byName(r)).containsOnlyKeys("nic-0000-02-00-0", "nic-0000-02-00-3", "rdma-mlx4-0");
    List<String> dangling = r.warnings().stream().map(DiscoveryWarning::message)
        .filter(m -> m.startsWith("/sys/class/net/")).toList();
    assertThat(dangling).containsExactly(
        "/sys/class/net/br0: leads to /sys/devices/virtual/net/br0, which is not a directory; interface left out",
        "/sys/class/net/eth0.1015: leads to /sys/devices/virtual/net/eth0.1015, which is not a directory; interface left out",
        "/sys/class/net/lo: leads to /sys/devices/virtual/net/lo, which is not a directory; interface left out",
        "/sys/class/net/mic0: leads to /sys/devices/virtual/net/mic0, which is not a directory; interface left out");
  }

  @Test
  void pcieSwitchCaptureConnectX4WithoutRdmaDeviceIsNotRdma() throws Exception {
    HostFs fs = capture("hwloc-32intel64-2p8co2t-pcie-switch");
    DiscoveryResult r = new NicRdmaSource().discover(HostContext.of(fs));
    assertThat(r.warnings()).isEmpty();
    Map<String, Device> devices = byName(r);
    assertThat(devices.keySet()).containsExactlyInAnyOrder("nic-0000-60-00-0", "nic-0000-60-00-1");
    assertThat(r.devices()).noneMatch(d -> "0000:1a:00.0".equals(attr(d, Names.PCI_BUS_ID)));
    assertThat(r.devices()).noneMatch(d -> "rdma".equals(attr(d, TYPE)));

    Device f0 = devices.get("nic-0000-60-00-0");
    assertThat(attr(f0, IF_NAME)).isEqualTo("enp96s0f0");
    assertThat(attr(f0, PciFunctionFacts.PCI_VENDOR_ID)).isEqualTo("8086");
    assertThat(attr(f0, PciFunctionFacts.PCI_DEVICE_ID)).isEqualTo("37d2");
    assertThat(attr(f0, PciFunctionFacts.KERNEL_DRIVER)).isEqualTo("i40e");
    assertThat(attr(f0, SRIOV_TOTAL_VFS)).isEqualTo(64L);
    assertThat(attr(f0, SRIOV_NUM_VFS)).isEqualTo(0L);
    // Old kernel format "2.5 GT/s" without " PCIe", normalised like the new one.
    assertThat(attr(f0, PciFunctionFacts.PCIE_LINK_SPEED)).isEqualTo("2.5 GT/s");
    assertThat(attr(f0, PciFunctionFacts.PCIE_LINK_WIDTH)).isEqualTo(1L);
    assertThat(attr(f0, MTU)).isEqualTo(1500L);
    assertThat(attr(f0, OPER_STATE)).isEqualTo("up");
    assertThat(attr(f0, SPEED_MBPS)).isEqualTo(1000L);
    assertThat(attr(f0, LINK_LAYER)).isEqualTo("ethernet");
    assertThat(attr(f0, Names.PCIE_ROOT)).isEqualTo("pci0000:5d");
    assertThat(attr(f0, Names.NUMA_NODE)).isEqualTo(0L);
    // phys_port_name and phys_switch_id are empty files (legacy NIC): absent.
    assertThat(attr(f0, PHYS_PORT_NAME)).isNull();
    assertThat(attr(f0, PHYS_SWITCH_ID)).isNull();
    assertThat(attr(devices.get("nic-0000-60-00-1"), IF_NAME)).isEqualTo("enp96s0f1");

    // Switch fan-out: every endpoint below the PLX switches resolves to its host bridge.
    for (String bdf : List.of("0000:1a:00.0", "0000:1b:00.0", "0000:1c:00.0", "0000:1d:00.0", "0000:1e:00.0",
        "0000:18:00.0", "0000:19:08.0")) {
      assertThat(PcieRoots.of(fs, bdf)).as(bdf).contains("pci0000:17");
    }
    for (String bdf : List.of("0000:3d:00.0", "0000:3e:00.0", "0000:3f:00.0", "0000:40:00.0", "0000:41:00.0")) {
      assertThat(PcieRoots.of(fs, bdf)).as(bdf).contains("pci0000:3a");
    }
    List<String> warnings = new ArrayList<>();
    PciFunctionFacts cx4 = new PciFunctionReader(new FactReader(fs, warnings::add)).read(PciAddress.parse("0000:1a:00.0"));
    assertThat(cx4.classCode()).contains("020700");
    assertThat(cx4.vendorId()).contains("15b3");
    assertThat(cx4.deviceId()).contains("1013");
    assertThat(cx4.kernelDriver()).contains("mlx5_core");
    assertThat(cx4.pcieRoot()).contains("pci0000:17");
    assertThat(warnings).isEmpty();
  }

  @Test
  void power9CaptureHasNoNetworkClassesAndPlainPciDirectories() {
    HostFs fs = capture("hwloc-power9-nvidia-gpu-numanodes");
    assertThat(new NicRdmaSource().availability(HostContext.of(fs)).available()).isFalse();
    List<String> warnings = new ArrayList<>();
    PciFunctionFacts gpu = new PciFunctionReader(new FactReader(fs, warnings::add)).read(PciAddress.parse("0035:04:00.0"));
    // Non-zero domain parsed; no numa_node file and no bus link: no NUMA node, no pcieRoot, no guess.
    assertThat(gpu.address().toString()).isEqualTo("0035:04:00.0");
    assertThat(gpu.address().standardBusId()).contains("0035:04:00.0");
    assertThat(gpu.classCode()).isPresent();
    assertThat(gpu.numaNode()).isEmpty();
    assertThat(gpu.pcieRoot()).isEmpty();
    assertThat(warnings).isEmpty();
  }

  @Test
  void hybridCaptureIsUnavailable() {
    HostFs fs = capture("hwloc-20em64t-hybrid-hugepages");
    assertThat(new NicRdmaSource().availability(HostContext.of(fs)).reason()).contains("class/net", "class/infiniband");
  }

  @Test
  void nfdCaptureSriovFields() {
    HostFs fs = capture("nfd-pci-rootfs-1");
    List<String> warnings = new ArrayList<>();
    FactReader facts = new FactReader(fs, warnings::add);
    PciFunctionReader reader = new PciFunctionReader(facts);
    SriovReader sriov = new SriovReader(facts);
    PciAddress x557Address = PciAddress.parse("0000:3f:00.0");
    PciFunctionFacts x557 = reader.read(x557Address);
    assertThat(x557.classCode()).contains("020000");
    assertThat(x557.vendorId()).contains("8086");
    assertThat(x557.deviceId()).contains("37d2");
    assertThat(x557.subsystemVendorId()).contains("8086");
    assertThat(x557.subsystemDeviceId()).contains("35cf");
    assertThat(x557.linkSpeed()).contains("2.5 GT/s");
    assertThat(x557.linkWidth()).hasValue(1);
    assertThat(x557.numaNode()).hasValue(0);
    assertThat(sriov.read(reader.directory(x557Address, Optional.empty()), x557Address))
        .isEqualTo(new SriovRole.PhysicalFunction(32, 0, List.of()));
    // Plain directories, no symlinks: no driver link, no pcieRoot.
    assertThat(x557.kernelDriver()).isEmpty();
    assertThat(x557.pcieRoot()).isEmpty();
    PciAddress qatAddress = PciAddress.parse("0000:3b:00.0");
    PciFunctionFacts qat = reader.read(qatAddress);
    assertThat(sriov.read(reader.directory(qatAddress, Optional.empty()), qatAddress))
        .isEqualTo(new SriovRole.PhysicalFunction(16, 16, List.of()));
    assertThat(qat.linkSpeed()).contains("5.0 GT/s");
    assertThat(warnings).isEmpty();
  }
}
