package io.nodeatlas.discovery.net;

import static io.nodeatlas.discovery.net.NicRdmaAttributes.*;
import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import io.nodeatlas.discovery.host.HostContext;
import io.nodeatlas.discovery.host.HostFs;
import io.nodeatlas.discovery.host.SourceOptions;
import io.nodeatlas.discovery.model.AttributeValue;
import io.nodeatlas.discovery.model.ContainerEdits;
import io.nodeatlas.discovery.model.Device;
import io.nodeatlas.discovery.model.Names;
import io.nodeatlas.discovery.net.fixture.SysfsNodeBuilder;
import io.nodeatlas.discovery.net.fixture.SysfsNodeBuilder.Gid;
import io.nodeatlas.discovery.net.fixture.SysfsNodeBuilder.Ibdev;
import io.nodeatlas.discovery.net.fixture.SysfsNodeBuilder.Netdev;
import io.nodeatlas.discovery.net.fixture.SysfsNodeBuilder.Port;
import io.nodeatlas.discovery.spi.DiscoveryException;
import io.nodeatlas.discovery.spi.DiscoveryResult;
import io.nodeatlas.discovery.report.DiscoveryWarning;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.TreeMap;
import java.util.function.Function;
import java.util.stream.Collectors;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.CsvSource;
import org.junit.jupiter.params.provider.ValueSource;

/**
 * Missing, garbage and unreadable files. As root, chmod does not stop reads, so "unreadable" is a
 * directory or a FIFO where a file is expected (HostFs refuses both). Each case must cost the one
 * fact and one warning, never the device list.
 */
class BadInputTest {

  static final String PF = "pci0000:15/0000:15:01.0/0000:1a:00.0";
  static final String PF2 = "pci0000:15/0000:15:01.0/0000:1b:00.0";
  static final String ONBOARD = "pci0000:00/0000:00:1c.0/0000:03:00.0";
  static final String PORT = "sys/devices/" + PF + "/infiniband/mlx5_0/ports/1/";

  @TempDir Path root;
  SysfsNodeBuilder b;

  @BeforeEach
  void smallNode() {
    b = new SysfsNodeBuilder(root);
    b.pciFunction(PF, "0x15b3", "0x1021", "0x020000", "mlx5_core", 0);
    b.netdev(PF, new Netdev("enp26s0np0", 3, 1, "b8:3f:d2:1a:00:00", 9000, "up", 400000, 0, "p0"));
    List<Gid> gids = new ArrayList<>(List.of(
        new Gid("fe80:0000:0000:0000:ba3f:d2ff:fe1a:0000", "IB/RoCE v1", "enp26s0np0"),
        new Gid("fe80:0000:0000:0000:ba3f:d2ff:fe1a:0000", "RoCE v2", "enp26s0np0")));
    gids.add(Gid.zero());
    gids.add(Gid.zero());
    b.rdma(PF, new Ibdev("mlx5_0", "1: CA", "b83f:d203:001a:0000", "b83f:d203:001a:0000", "28.39.1002", "MT4129", "MT_1"),
        List.of(new Port("4: ACTIVE", "5: LinkUp", "Ethernet", "400 Gb/sec (4X NDR)", "0x0", "0x0", gids, 0)));
    b.uverbs(PF, 0, "mlx5_0", "231:192");
    b.pciFunction(ONBOARD, "0x8086", "0x1521", "0x020000", "igb", -1);
    b.netdev(ONBOARD, new Netdev("eno1", 2, 1, "3c:ec:ef:00:00:01", 1500, "up", 1000, 0, null));
    b.rdmaGlobals("10:58", "Y");
  }

  DiscoveryResult discover() throws DiscoveryException {
    return new NicRdmaSource().discover(HostContext.of(HostFs.of(root)));
  }

  static Map<String, Device> byName(DiscoveryResult r) {
    return r.devices().stream().collect(Collectors.toMap(Device::name, Function.identity()));
  }

  static Object attr(DiscoveryResult r, String device, String name) {
    return byName(r).get(device).attribute(name).map(AttributeValue::asObject).orElse(null);
  }

  static List<String> messages(DiscoveryResult r) {
    return r.warnings().stream().map(DiscoveryWarning::message).toList();
  }

  void replaceWithDirectory(String relative) throws Exception {
    Files.delete(root.resolve(relative));
    Files.createDirectories(root.resolve(relative));
  }

  void replaceWithFifo(String relative) throws Exception {
    Files.delete(root.resolve(relative));
    Process p = new ProcessBuilder("mkfifo", root.resolve(relative).toString()).start();
    assertThat(p.waitFor()).isZero();
  }

  @Test
  void cleanSmallNodeHasNoWarnings() throws Exception {
    DiscoveryResult r = discover();
    assertThat(messages(r)).isEmpty();
    assertThat(byName(r)).containsOnlyKeys("rdma-mlx5-0", "nic-0000-03-00-0");
    // numa_node -1 means no affinity: no numaNode attribute at all.
    assertThat(attr(r, "nic-0000-03-00-0", Names.NUMA_NODE)).isNull();
  }

  @Test
  void portStateThatIsADirectoryCostsOnlyThatFact() throws Exception {
    replaceWithDirectory(PORT + "state");
    DiscoveryResult r = discover();
    assertThat(attr(r, "rdma-mlx5-0", PORT_STATE)).isNull();
    assertThat(attr(r, "rdma-mlx5-0", RATE_GBPS)).isEqualTo(400L);
    assertThat(messages(r)).containsExactly("/" + PORT + "state: is a directory");
  }

  @Test
  void mtuThatIsAFifoCostsOnlyThatFact() throws Exception {
    replaceWithFifo("sys/devices/" + ONBOARD + "/net/eno1/mtu");
    DiscoveryResult r = discover();
    assertThat(attr(r, "nic-0000-03-00-0", MTU)).isNull();
    assertThat(attr(r, "nic-0000-03-00-0", IF_NAME)).isEqualTo("eno1");
    assertThat(messages(r)).containsExactly("/sys/devices/" + ONBOARD + "/net/eno1/mtu: not a regular file");
  }

  @Test
  void garbageValuesAreLeftOutWithAWarningEach() throws Exception {
    b.tree().value(PORT + "rate", "fast")
        .value(PORT + "link_layer", "Token Ring")
        .value("sys/devices/" + PF + "/infiniband/mlx5_0/node_guid", "not-a-guid")
        .value("sys/devices/" + PF + "/numa_node", "zero")
        .value("sys/devices/" + ONBOARD + "/net/eno1/address", "3c:ec:ef:zz:00:01");
    DiscoveryResult r = discover();
    assertThat(byName(r)).containsOnlyKeys("rdma-mlx5-0", "nic-0000-03-00-0");
    assertThat(attr(r, "rdma-mlx5-0", RATE_GBPS)).isNull();
    assertThat(attr(r, "rdma-mlx5-0", NODE_GUID)).isNull();
    assertThat(attr(r, "rdma-mlx5-0", Names.NUMA_NODE)).isNull();
    assertThat(attr(r, "rdma-mlx5-0", TRANSPORT)).isEqualTo("other");
    assertThat(attr(r, "nic-0000-03-00-0", MAC)).isNull();
    assertThat(messages(r)).containsExactlyInAnyOrder(
        "/" + PORT + "rate: not understood: expected \"<n> Gb/sec (<w>X <speed>)\", got \"fast\" (4 chars)",
        "/" + PORT + "link_layer: not understood: expected InfiniBand, Ethernet or Unknown, got \"Token Ring\" (10 chars)",
        "/sys/devices/" + PF + "/infiniband/mlx5_0/node_guid: not understood: expected a GUID of the form "
            + "xxxx:xxxx:xxxx:xxxx, got \"not-a-guid\" (10 chars)",
        "/sys/devices/" + PF + "/numa_node: not understood: not a NUMA node id: \"zero\" (4 chars)",
        "/sys/devices/" + ONBOARD + "/net/eno1/address: not understood: expected colon-separated hex bytes, "
            + "got \"3c:ec:ef:zz:00:01\" (17 chars)");
  }

  @Test
  void nulTerminatedValuesAreTrimmed() throws Exception {
    b.tree().bytes(PORT + "state", "4: ACTIVE\n\0".getBytes())
        .bytes("sys/devices/" + PF + "/numa_node", "0\n\0".getBytes());
    DiscoveryResult r = discover();
    assertThat(messages(r)).isEmpty();
    assertThat(attr(r, "rdma-mlx5-0", PORT_STATE)).isEqualTo("active");
    assertThat(attr(r, "rdma-mlx5-0", Names.NUMA_NODE)).isEqualTo(0L);
  }

  @Test
  void missingFilesAreAbsentFactsWithoutWarnings() throws Exception {
    b.tree().delete(PORT + "rate").delete("sys/devices/" + PF + "/infiniband/mlx5_0/fw_ver")
        .delete("sys/devices/" + ONBOARD + "/net/eno1/speed").delete("sys/devices/" + PF + "/numa_node");
    DiscoveryResult r = discover();
    assertThat(messages(r)).isEmpty();
    assertThat(attr(r, "rdma-mlx5-0", RATE_GBPS)).isNull();
    assertThat(attr(r, "rdma-mlx5-0", FIRMWARE_VERSION)).isNull();
    assertThat(attr(r, "nic-0000-03-00-0", SPEED_MBPS)).isNull();
  }

  @Test
  void portsThatIsAFileCostsThePortsNotTheDevice() throws Exception {
    Path ports = root.resolve("sys/devices/" + PF + "/infiniband/mlx5_0/ports");
    try (var walk = Files.walk(ports)) {
      for (Path p : walk.sorted(java.util.Comparator.reverseOrder()).toList()) {
        Files.delete(p);
      }
    }
    Files.writeString(ports, "garbage\n");
    DiscoveryResult r = discover();
    assertThat(attr(r, "rdma-mlx5-0", RDMA_DEVICE)).isEqualTo("mlx5_0");
    assertThat(attr(r, "rdma-mlx5-0", PORT_COUNT)).isEqualTo(0L);
    assertThat(messages(r)).containsExactly("/sys/devices/" + PF + "/infiniband/mlx5_0/ports: not a directory");
  }

  @Test
  void gidAttrThatIsADirectoryCostsThatAttributeOnly() throws Exception {
    replaceWithDirectory(PORT + "gid_attrs/ndevs/0");
    DiscoveryResult r = discover();
    // Index 1 still names the netdev.
    assertThat(attr(r, "rdma-mlx5-0", IF_NAME)).isEqualTo("enp26s0np0");
    assertThat(messages(r)).containsExactly("/" + PORT + "gid_attrs/ndevs/0: is a directory");
  }

  @Test
  void brokenInterfaceCostsThatInterfaceOnly() throws Exception {
    b.tree().symlink("sys/class/net/eth9", "../../devices/" + ONBOARD + "/net/eth9");
    b.tree().value("sys/devices/" + ONBOARD + "/net/eth9", "a file, not a directory");
    DiscoveryResult r = discover();
    assertThat(byName(r)).containsOnlyKeys("rdma-mlx5-0", "nic-0000-03-00-0");
    assertThat(messages(r)).containsExactly("/sys/class/net/eth9: leads to /sys/devices/" + ONBOARD
        + "/net/eth9, which is not a directory; interface left out");
  }

  @Test
  void unreadableRdmaClassDirectoryCostsTheRdmaDevicesNotTheNics() throws Exception {
    Path cls = root.resolve("sys/class/infiniband");
    for (Path p : Files.list(cls).toList()) {
      Files.delete(p);
    }
    Files.delete(cls);
    Files.writeString(cls, "x\n");
    DiscoveryResult r = discover();
    assertThat(byName(r)).containsOnlyKeys("nic-0000-03-00-0", "nic-0000-1a-00-0");
    assertThat(messages(r)).containsExactly("/sys/class/infiniband: not a directory");
  }

  @Test
  void garbageDevNumberCostsTheNodeAndWarnsThatVerbsAreMissing() throws Exception {
    b.tree().value("sys/devices/" + PF + "/infiniband_verbs/uverbs0/dev", "231-192");
    DiscoveryResult r = discover();
    assertThat(byName(r).get("rdma-mlx5-0").containerEdits().deviceNodes())
        .extracting(ContainerEdits.DeviceNode::path).containsExactly("/dev/infiniband/rdma_cm");
    assertThat(messages(r)).containsExactlyInAnyOrder(
        "/sys/class/infiniband_verbs/uverbs0/dev: not understood: expected \"<major>:<minor>\", got \"231-192\" (7 chars)",
        "/sys/class/infiniband/mlx5_0: no uverbs char device maps to it (infiniband_verbs/uverbsN/ibdev); "
            + "containers will not see it through libibverbs");
  }

  @Test
  void charDevicesAreMatchedByIbdevAndPortFilesNotByNumber() throws Exception {
    b.pciFunction(PF2, "0x15b3", "0x1021", "0x020000", "mlx5_core", 0);
    b.rdma(PF2, new Ibdev("mlx5_1", "1: CA", "b83f:d203:001b:0000", "b83f:d203:001b:0000", "28.39.1002", "MT4129", "MT_1"),
        List.of(new Port("4: ACTIVE", "5: LinkUp", "InfiniBand", "200 Gb/sec (2X NDR)", "0x7", "0x1", List.of(), 0),
            new Port("4: ACTIVE", "5: LinkUp", "InfiniBand", "200 Gb/sec (2X NDR)", "0x8", "0x1", List.of(), 0)));
    // Numbers deliberately unrelated to the ibdev suffixes and to each other.
    b.tree().delete("sys/class/infiniband_verbs/uverbs0");
    b.uverbs(PF, 7, "mlx5_0", "231:199").uverbs(PF2, 3, "mlx5_1", "231:195")
        .mad(PF2, "umad9", "mlx5_1", 2, "231:9").mad(PF2, "umad4", "mlx5_1", 1, "231:4")
        .mad(PF2, "issm9", "mlx5_1", 1, "231:73");
    DiscoveryResult r = discover();
    assertThat(byName(r).get("rdma-mlx5-1").containerEdits().deviceNodes())
        .extracting(n -> n.path() + " " + n.major() + ":" + n.minor())
        .containsExactly("/dev/infiniband/uverbs3 231:195", "/dev/infiniband/umad4 231:4",
            "/dev/infiniband/umad9 231:9", "/dev/infiniband/rdma_cm 10:58");
    assertThat(byName(r).get("rdma-mlx5-0").containerEdits().deviceNodes())
        .extracting(ContainerEdits.DeviceNode::path).startsWith("/dev/infiniband/uverbs7");
    assertThat(attr(r, "rdma-mlx5-1", RATE_GBPS)).isEqualTo(200L);
    assertThat(attr(r, "rdma-mlx5-1", PORT_COUNT)).isEqualTo(2L);
    assertThat(attr(r, "rdma-mlx5-1", LID)).isEqualTo(7L);
  }

  /**
   * The small node's only port is RoCE: without madDevices nothing publishes a MAD device, so a broken
   * one (no ibdev file) costs nothing and says nothing; asked for, it is read and reported, and the good
   * ones are published.
   */
  @Test
  void madDevicesAreReadOnlyWhenARunCanPublishThem() throws Exception {
    b.mad(PF, "umad0", "mlx5_0", 1, "231:0").mad(PF, "issm0", "mlx5_0", 1, "231:64");
    b.tree().value("sys/devices/" + PF + "/infiniband_mad/umad1/dev", "231:1");
    b.tree().symlink("sys/class/infiniband_mad/umad1", "../../devices/" + PF + "/infiniband_mad/umad1");

    DiscoveryResult plain = discover();
    assertThat(messages(plain)).isEmpty();
    assertThat(byName(plain).get("rdma-mlx5-0").containerEdits().deviceNodes())
        .extracting(ContainerEdits.DeviceNode::path)
        .containsExactly("/dev/infiniband/uverbs0", "/dev/infiniband/rdma_cm");

    DiscoveryResult mad = new NicRdmaSource().discover(HostContext.of(HostFs.of(root))
        .withOptions(SourceOptions.NONE.with(NicRdmaSource.MAD_DEVICES, "true")));
    assertThat(messages(mad)).containsExactly(
        "/sys/class/infiniband_mad/umad1: no ibdev file to map it to an RDMA device; left out");
    assertThat(byName(mad).get("rdma-mlx5-0").containerEdits().deviceNodes())
        .extracting(ContainerEdits.DeviceNode::path)
        .containsExactly("/dev/infiniband/uverbs0", "/dev/infiniband/umad0", "/dev/infiniband/issm0",
            "/dev/infiniband/rdma_cm");
  }

  @Test
  void exclusiveNetnsModeIsPublishedAndWarnedAbout() throws Exception {
    b.tree().value("sys/module/ib_core/parameters/netns_mode", "N");
    DiscoveryResult r = discover();
    assertThat(attr(r, "rdma-mlx5-0", RDMA_NETNS_MODE)).isEqualTo("exclusive");
    assertThat(messages(r)).singleElement().asString()
        .startsWith("/sys/module/ib_core/parameters/netns_mode: RDMA netns mode is exclusive");
  }

  @Test
  void softRdmaDeviceWithoutPciParentIsSkippedWithAWarning() throws Exception {
    b.tree().value("sys/devices/virtual/infiniband/rxe0/node_type", "1: CA")
        .symlink("sys/class/infiniband/rxe0", "../../devices/virtual/infiniband/rxe0");
    DiscoveryResult r = discover();
    assertThat(byName(r)).containsOnlyKeys("rdma-mlx5-0", "nic-0000-03-00-0");
    assertThat(messages(r)).containsExactly("/sys/class/infiniband/rxe0: not backed by a PCI function; RDMA device left out");
  }

  @Test
  void switchdevRepresentorsAreNotPublished() throws Exception {
    b.netdev(ONBOARD, new Netdev("eno1_0", 30, 1, "3c:ec:ef:00:10:01", 1500, "up", null, null, "pf0vf0"));
    b.tree().value("sys/devices/" + ONBOARD + "/net/eno1_0/phys_switch_id", "c2cfc60003a1420c");
    DiscoveryResult r = discover();
    assertThat(byName(r).get("nic-0000-03-00-0").containerEdits().netDevices())
        .containsExactly(new ContainerEdits.NetDevice("eno1", "eno1"));
  }

  /** A VF of PF with a netdev; its function directory. */
  String vfWithNetdev(Netdev netdev) {
    String vf = "pci0000:15/0000:15:01.0/0000:1a:00.1";
    b.sriovPf(PF, 8, List.of("0000:1a:00.1"));
    b.pciFunction(vf, "0x15b3", "0x101e", "0x020000", "mlx5_core", 0).sriovVf(vf, "0000:1a:00.0");
    b.netdev(vf, netdev);
    return vf;
  }

  @Test
  void aVfsNetdevIsNotAskedForSwitchPortAttributesAndAPfsStillIs() throws Exception {
    // A kernel fails phys_port_name and phys_switch_id of a VF's netdev with EOPNOTSUPP (sysfs-class-net);
    // here they hold a representor's values and would make it one. Not read, the VF keeps its netdev.
    String vf = vfWithNetdev(new Netdev("enp26s0v0", 4, 1, "02:1a:00:00:00:00", 9000, "up", 400000, 0, "pf0vf0"));
    b.tree().value("sys/devices/" + vf + "/net/enp26s0v0/phys_switch_id", "c2cfc60003a1420c");
    // The PF's netdev is still asked: a switch id that is no token is still said to be one.
    b.tree().value("sys/devices/" + PF + "/net/enp26s0np0/phys_switch_id", "two words");
    DiscoveryResult r = discover();
    assertThat(attr(r, "vf-0000-1a-00-1", IF_NAME)).isEqualTo("enp26s0v0");
    assertThat(byName(r).get("vf-0000-1a-00-1").containerEdits().netDevices())
        .containsExactly(new ContainerEdits.NetDevice("enp26s0v0", "enp26s0v0"));
    assertThat(messages(r)).containsExactly("/sys/devices/" + PF + "/net/enp26s0np0/phys_switch_id: not understood: "
        + "expected a token of printable ASCII characters, got \"two words\" (9 chars)");
  }

  @Test
  void aNetdevTakenForAVfsWhoseFunctionIsReadAsNoVfIsAskedForSwitchPortAttributesAfterAll() throws Exception {
    // The netdev's device link leads to a directory with a physfn link; the RDMA device's, which the
    // function is read from, to another one of the same name without it: the function is no VF, and its
    // netdev's switch port attributes count (here a switch id that is no token, which is said).
    String copy = "pci0000:99/0000:1a:00.1";
    vfWithNetdev(new Netdev("enp26s0v0", 4, 1, "02:1a:00:00:00:00", 9000, "up", 400000, 0, null));
    b.pciFunction(copy, "0x15b3", "0x101e", "0x020000", "mlx5_core", 0);
    b.rdma(copy, new Ibdev("mlx5_1", "1: CA", "b83f:d203:001a:0100", "b83f:d203:001a:0000", "28.39.1002", "MT4126", "MT_1"),
        List.of(new Port("4: ACTIVE", "5: LinkUp", "Ethernet", "400 Gb/sec (4X NDR)", "0x0", "0x0", List.of(Gid.zero()), 0)));
    b.uverbs(copy, 1, "mlx5_1", "231:193");
    b.tree().value("sys/devices/pci0000:15/0000:15:01.0/0000:1a:00.1/net/enp26s0v0/phys_switch_id", "two words");
    DiscoveryResult r = discover();
    assertThat(byName(r)).doesNotContainKey("vf-0000-1a-00-1").containsKey("rdma-mlx5-1");
    assertThat(messages(r)).contains("/sys/devices/pci0000:15/0000:15:01.0/0000:1a:00.1/net/enp26s0v0/phys_switch_id: "
        + "not understood: expected a token of printable ASCII characters, got \"two words\" (9 chars)");
  }

  @Test
  void aVfsRdmaDeviceIsNotAskedForWhatOnlyAnRdmaDeviceOfItsOwnPublishes() throws Exception {
    // board_id, phys_state and a GID's netdev feed boardID, physState and the netdev an RDMA device of its
    // own maps to, none of which a VF's device carries: garbage there is not read on a VF, so not warned
    // about (on a PF it is: see the garbage cases below). The GID's type still counts.
    String vf = vfWithNetdev(new Netdev("enp26s0v0", 4, 1, "02:1a:00:00:00:00", 9000, "up", 400000, 0, null));
    b.rdma(vf, new Ibdev("mlx5_1", "1: CA", "b83f:d203:001a:0100", "b83f:d203:001a:0000", "28.39.1002", "MT4126", "\u001b[31m"),
        List.of(new Port("4: ACTIVE", "garbage", "Ethernet", "400 Gb/sec (4X NDR)", "0x0", "0x0",
            List.of(new Gid("fe80:0000:0000:0000:001a:00ff:fe00:0000", "RoCE v2", "two words"), Gid.zero()), 0)));
    b.uverbs(vf, 1, "mlx5_1", "231:193");
    DiscoveryResult r = discover();
    assertThat(messages(r)).isEmpty();
    assertThat(attr(r, "vf-0000-1a-00-1", RDMA_DEVICE)).isEqualTo("mlx5_1");
    assertThat(attr(r, "vf-0000-1a-00-1", PORT_STATE)).isEqualTo("active");
    assertThat(attr(r, "vf-0000-1a-00-1", ROCE_VERSIONS)).isEqualTo("v2");
    assertThat(attr(r, "vf-0000-1a-00-1", IF_NAME)).isEqualTo("enp26s0v0");
  }

  @Test
  void anRdmaDeviceTakenForAVfsWhoseFunctionIsReadAsNoVfIsReadInFull() throws Exception {
    // mlx5_1's device link leads to another directory of the VF's name, without physfn, and the function
    // is read there (through its first RDMA device): no VF. mlx5_2 sits on the VF's own directory; published
    // as an RDMA device of a function of its own, it carries boardID and physState after all, and its port
    // maps to the netdev its GID names (the PF's here), not to the netdev of its function.
    String vf = vfWithNetdev(new Netdev("enp26s0v0", 4, 1, "02:1a:00:00:00:00", 9000, "up", 400000, 0, null));
    String copy = "pci0000:99/0000:1a:00.1";
    b.pciFunction(copy, "0x15b3", "0x101e", "0x020000", "mlx5_core", 0);
    for (String[] ib : new String[][] {{copy, "mlx5_1", "MT_1"}, {vf, "mlx5_2", "MT_2"}}) {
      b.rdma(ib[0], new Ibdev(ib[1], "1: CA", "b83f:d203:001a:0100", "b83f:d203:001a:0000", "28.39.1002", "MT4126", ib[2]),
          List.of(new Port("4: ACTIVE", "5: LinkUp", "Ethernet", "400 Gb/sec (4X NDR)", "0x0", "0x0",
              List.of(new Gid("fe80:0000:0000:0000:001a:00ff:fe00:0000", "RoCE v2", "enp26s0np0"), Gid.zero()), 0)));
    }
    b.uverbs(copy, 1, "mlx5_1", "231:193").uverbs(vf, 2, "mlx5_2", "231:194");
    DiscoveryResult r = discover();
    assertThat(byName(r)).doesNotContainKey("vf-0000-1a-00-1").containsKeys("rdma-mlx5-1", "rdma-mlx5-2");
    assertThat(attr(r, "rdma-mlx5-2", BOARD_ID)).isEqualTo("MT_2");
    assertThat(attr(r, "rdma-mlx5-2", PHYS_STATE)).isEqualTo("linkup");
    assertThat(attr(r, "rdma-mlx5-2", IF_NAME)).isEqualTo("enp26s0np0");
  }

  @Test
  void invalidSettingFailsTheSourceWithAClearMessage() {
    HostContext ctx = HostContext.of(HostFs.of(root)).withOptions(SourceOptions.NONE.with("nic-rdma.madDevices", "sometimes"));
    assertThatThrownBy(() -> new NicRdmaSource().discover(ctx))
        .isInstanceOf(DiscoveryException.class)
        .hasMessage("setting nic-rdma.madDevices: --rdma-mad-devices must be true or false, got \"sometimes\"");
  }

  @Test
  void overlongBoardIdIsLeftOutNotTruncated() throws Exception {
    b.tree().value("sys/devices/" + PF + "/infiniband/mlx5_0/board_id",
        "HPE 100Gb 1-port OP101 QSFP28 x16 PCIe Gen3 with Intel Omni-Path Adapter");
    DiscoveryResult r = discover();
    assertThat(attr(r, "rdma-mlx5-0", BOARD_ID)).isNull();
    assertThat(messages(r)).containsExactly(
        "device rdma-mlx5-0: nodeatlas.io/boardID left out: the value is 72 bytes, a ResourceSlice allows at most 64");
  }

  @Test
  void unavailableWithoutNetOrInfinibandClasses(@TempDir Path empty) {
    assertThat(new NicRdmaSource().availability(HostContext.of(HostFs.of(empty))).available()).isFalse();
    assertThat(new NicRdmaSource().availability(HostContext.of(HostFs.of(root))).available()).isTrue();
  }

  /** A directory outside the host root that looks like a PCI function; nothing of it may be published. */
  Path outsideFunction(Path outside) throws Exception {
    Path fn = outside.resolve("0000:66:00.0");
    io.nodeatlas.discovery.testing.FixtureTree.at(fn).value("vendor", "0x6666").value("device", "0x6666")
        .value("numa_node", 7).value("sriov_totalvfs", 8);
    return fn;
  }

  @ParameterizedTest
  @ValueSource(strings = {"sys/devices/" + ONBOARD + "/net/eno1/device", "sys/devices/" + PF + "/infiniband/mlx5_0/device"})
  void relativeDeviceLinkEscapingTheHostRootIsRefusedWithAWarning(String link, @TempDir Path outside) throws Exception {
    Path fn = outsideFunction(outside);
    Path linkPath = root.resolve(link);
    b.tree().symlink(link, linkPath.getParent().relativize(fn).toString());
    for (boolean includeVirtual : List.of(false, true)) {
      DiscoveryResult r = new NicRdmaSource().discover(HostContext.of(HostFs.of(root))
          .withOptions(SourceOptions.NONE.with(NicRdmaSource.INCLUDE_VIRTUAL, Boolean.toString(includeVirtual))));
      assertThat(messages(r)).singleElement().asString()
          .startsWith("/" + link + ": points outside the host root (to ").endsWith("); not followed");
      // The function behind the refused link is left out, never published as a virtual interface.
      // Without its RDMA device, the PF is still a NIC through its own (unrefused) netdev.
      List<String> kept = link.contains("eno1") ? List.of("rdma-mlx5-0") : List.of("nic-0000-03-00-0", "nic-0000-1a-00-0");
      assertThat(byName(r)).as("includeVirtual=%s", includeVirtual).containsOnlyKeys(kept);
      assertThat(r.devices()).allSatisfy(d -> assertThat(d.attributes().values()).noneMatch(v -> v.asObject().equals("6666")));
    }
  }

  @Test
  void absoluteDeviceLinkNamesAHostPathAndIsNeverFollowedOutOfTheRoot(@TempDir Path outside) throws Exception {
    Path fn = outsideFunction(outside);
    String link = "sys/devices/" + ONBOARD + "/net/eno1/device";
    // Absolute targets name paths on the host: re-rooted under the host root, where this one does not exist.
    b.tree().symlink(link, fn.toString());
    DiscoveryResult r = discover();
    assertThat(messages(r)).containsExactly("/" + link + ": leads to " + fn + ", but sysfs has no PCI function "
        + "0000:66:00.0; interface eno1 left out");
    assertThat(byName(r)).containsOnlyKeys("rdma-mlx5-0");
    assertThat(r.devices()).allSatisfy(d -> assertThat(d.attributes().values()).noneMatch(v -> v.asObject().equals("6666")));
  }

  @Test
  void classEntryEscapingTheHostRootIsRefusedWithAWarning(@TempDir Path outside) throws Exception {
    io.nodeatlas.discovery.testing.FixtureTree.at(outside).value("net/evil/mtu", 1500).symlink("net/evil/device", "../../0000:66:00.0");
    outsideFunction(outside);
    b.tree().symlink("sys/class/net/evil", root.resolve("sys/class/net").relativize(outside.resolve("net/evil")).toString());
    DiscoveryResult r = discover();
    assertThat(messages(r)).singleElement().asString()
        .startsWith("/sys/class/net/evil: points outside the host root (to ").endsWith("); not followed");
    assertThat(byName(r)).containsOnlyKeys("rdma-mlx5-0", "nic-0000-03-00-0");
  }

  @Test
  void aFileLinkedOutOfTheRootCostsThatFactOnly(@TempDir Path outside) throws Exception {
    io.nodeatlas.discovery.testing.FixtureTree.at(outside).value("mtu", 1234);
    String mtu = "sys/devices/" + ONBOARD + "/net/eno1/mtu";
    b.tree().symlink(mtu, root.resolve(mtu).getParent().relativize(outside.resolve("mtu")).toString());
    DiscoveryResult r = discover();
    assertThat(attr(r, "nic-0000-03-00-0", MTU)).isNull();
    assertThat(attr(r, "nic-0000-03-00-0", IF_NAME)).isEqualTo("eno1");
    assertThat(messages(r)).singleElement().asString().startsWith("/" + mtu + ": resolves outside the host root");
  }

  /** Each file the readers parse, garbage in it (an ANSI escape included), and the one attribute it feeds. */
  @ParameterizedTest
  @CsvSource({
      PORT + "state, rdma-mlx5-0, nodeatlas.io/portState",
      PORT + "phys_state, rdma-mlx5-0, nodeatlas.io/physState",
      PORT + "rate, rdma-mlx5-0, nodeatlas.io/rateGbps",
      "sys/devices/" + PF + "/infiniband/mlx5_0/node_guid, rdma-mlx5-0, nodeatlas.io/nodeGUID",
      "sys/devices/" + PF + "/infiniband/mlx5_0/sys_image_guid, rdma-mlx5-0, nodeatlas.io/sysImageGUID",
      "sys/devices/" + PF + "/infiniband/mlx5_0/fw_ver, rdma-mlx5-0, nodeatlas.io/firmwareVersion",
      "sys/devices/" + PF + "/infiniband/mlx5_0/hca_type, rdma-mlx5-0, nodeatlas.io/hcaType",
      "sys/devices/" + PF + "/numa_node, rdma-mlx5-0, resource.kubernetes.io/numaNode",
      "sys/devices/" + PF + "/vendor, rdma-mlx5-0, nodeatlas.io/pciVendorID",
      "sys/devices/" + PF + "/current_link_speed, rdma-mlx5-0, nodeatlas.io/pcieLinkSpeed",
      "sys/devices/" + PF + "/current_link_width, rdma-mlx5-0, nodeatlas.io/pcieLinkWidth",
      "sys/devices/" + ONBOARD + "/subsystem_device, nic-0000-03-00-0, nodeatlas.io/pciSubsystemDeviceID",
      "sys/devices/" + ONBOARD + "/net/eno1/mtu, nic-0000-03-00-0, nodeatlas.io/mtu",
      "sys/devices/" + ONBOARD + "/net/eno1/address, nic-0000-03-00-0, nodeatlas.io/mac",
      "sys/devices/" + ONBOARD + "/net/eno1/operstate, nic-0000-03-00-0, nodeatlas.io/operState",
      "sys/devices/" + ONBOARD + "/net/eno1/speed, nic-0000-03-00-0, nodeatlas.io/speedMbps",
      "sys/module/ib_core/parameters/netns_mode, rdma-mlx5-0, nodeatlas.io/rdmaNetnsMode"})
  void oneBadFileCostsOneFactAndOneWarning(String file, String device, String attribute) throws Exception {
    Map<String, Device> clean = byName(discover());
    assertThat(clean.get(device).attributes()).containsKey(attribute);
    b.tree().file(file, "\u001b[31mgarbage\n");
    DiscoveryResult r = discover();
    Map<String, Device> bad = byName(r);
    assertThat(bad.keySet()).isEqualTo(clean.keySet());
    Map<String, AttributeValue> expected = new TreeMap<>(clean.get(device).attributes());
    expected.remove(attribute);
    assertThat(bad.get(device).attributes()).isEqualTo(expected);
    clean.keySet().stream().filter(n -> !n.equals(device))
        .forEach(n -> assertThat(bad.get(n)).as(n).isEqualTo(clean.get(n)));
    // One warning, naming the file as the host sees it; the escape sequence is shown, not sent.
    assertThat(messages(r)).singleElement().asString()
        .startsWith("/" + file + ": not understood: ").contains("\\x1b[31mgarbage").doesNotContain("\u001b");
  }
}
