package io.nodeatlas.discovery.net;

import static io.nodeatlas.discovery.net.NicRdmaAttributes.*;
import static org.assertj.core.api.Assertions.assertThat;

import io.nodeatlas.discovery.host.HostContext;
import io.nodeatlas.discovery.host.HostFs;
import io.nodeatlas.discovery.host.SourceOptions;
import io.nodeatlas.discovery.model.AttributeValue;
import io.nodeatlas.discovery.model.Device;
import io.nodeatlas.discovery.net.fixture.CorpusTree;
import io.nodeatlas.discovery.net.fixture.GeneratedNode;
import io.nodeatlas.discovery.net.fixture.SyntheticNode;
import io.nodeatlas.discovery.net.fixture.SysfsNodeBuilder;
import io.nodeatlas.discovery.net.fixture.SysfsNodeBuilder.Ibdev;
import io.nodeatlas.discovery.net.fixture.SysfsNodeBuilder.Netdev;
import io.nodeatlas.discovery.net.fixture.SysfsNodeBuilder.Port;
import io.nodeatlas.discovery.engine.AttributeCatalogue;
import io.nodeatlas.discovery.model.AttributeDoc;
import io.nodeatlas.discovery.testing.Conformance;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.Locale;
import java.util.Set;
import java.util.TreeSet;
import java.util.stream.Collectors;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * The source's attribute catalogue against what it really publishes: every published name is
 * declared for its device type with its value type, every declared name is published by some
 * fixture, and the names and values follow the naming rules of the catalogue.
 */
class NicRdmaCatalogueTest {

  /** Captures of shared/conformance/sysfs-rdma that the other tests read. */
  static final List<String> CAPTURES = List.of("hwloc-32em64t-2n8c-mlx4-ib", "hwloc-32intel64-2p8co2t-pcie-switch",
      "hwloc-power9-nvidia-gpu-numanodes", "hwloc-20em64t-hybrid-hugepages", "nfd-pci-rootfs-1");

  @TempDir Path tmp;

  private final NicRdmaSource source = new NicRdmaSource();

  /** Every device of a tree, with and without the two settings. */
  private List<Device> devicesOf(HostFs fs) throws Exception {
    List<Device> devices = new ArrayList<>();
    if (!source.availability(HostContext.of(fs)).available()) {
      return devices;
    }
    for (String includeVirtual : List.of("false", "true")) {
      SourceOptions options = SourceOptions.NONE.with(NicRdmaSource.INCLUDE_VIRTUAL, includeVirtual)
          .with(NicRdmaSource.MAD_DEVICES, includeVirtual);
      devices.addAll(source.discover(HostContext.of(fs).withOptions(options)).devices());
    }
    return devices;
  }

  private List<Device> syntheticDevices() throws Exception {
    Path synthetic = tmp.resolve("synthetic");
    SyntheticNode.write(synthetic);
    Path generated = tmp.resolve("generated");
    GeneratedNode.write(generated, 2, 4);
    Path rare = tmp.resolve("rare");
    writeRareCases(rare);
    List<Device> devices = new ArrayList<>(devicesOf(HostFs.of(synthetic)));
    devices.addAll(devicesOf(HostFs.of(generated)));
    devices.addAll(devicesOf(HostFs.of(rare)));
    return devices;
  }

  /**
   * What neither the synthetic node nor the generated one has: an InfiniBand VF (its LID), a VF without an
   * RDMA device, and the uplink of an eswitch in switchdev mode (phys_port_name, phys_switch_id), a
   * plain NIC behind a PCIe switch (upstream port {@code 0000:01:00.0}: its pcieSwitch).
   */
  static void writeRareCases(Path root) {
    SysfsNodeBuilder b = new SysfsNodeBuilder(root);
    b.rdmaGlobals("10:58", "Y");
    String rp = "pci0000:5d/0000:5d:01.0";
    String pf = rp + "/0000:5e:00.0";
    String ibVf = rp + "/0000:5e:00.1";
    String plainVf = rp + "/0000:5e:00.2";
    b.bridge(rp, "0x8086", "0x352a");
    b.pciFunction(pf, "0x15b3", "0x1021", "0x020700", "mlx5_core", 0).sriovPf(pf, 8, List.of("0000:5e:00.1", "0000:5e:00.2"));
    b.netdev(pf, new Netdev("ibp94s0", 2, 32, "00:00:10:49:fe:80:00:00:00:00:00:00:a0:88:c2:03:00:5e:00:00", 4092, "up", null, 0, null));
    b.rdma(pf, new Ibdev("mlx5_0", "1: CA", "a088:c203:005e:0000", "a088:c203:005e:0000", "28.39.1002", "MT4129", "MT_1"),
        List.of(new Port("4: ACTIVE", "5: LinkUp", "InfiniBand", "400 Gb/sec (4X NDR)", "0x5", "0x1", List.of(), 0)));
    b.uverbs(pf, 0, "mlx5_0", "231:192");
    b.pciFunction(ibVf, "0x15b3", "0x101e", "0x020700", "mlx5_core", 0).sriovVf(ibVf, "0000:5e:00.0");
    b.netdev(ibVf, new Netdev("ibp94s0v0", 3, 32, "00:00:10:49:fe:80:00:00:00:00:00:00:a0:88:c2:03:00:5e:01:00", 4092, "up", null, 0, null));
    b.rdma(ibVf, new Ibdev("mlx5_1", "1: CA", "a088:c203:005e:0100", "a088:c203:005e:0000", "28.39.1002", "MT4126", "MT_1"),
        List.of(new Port("4: ACTIVE", "5: LinkUp", "InfiniBand", "400 Gb/sec (4X NDR)", "0x6", "0x1", List.of(), 0)));
    b.uverbs(ibVf, 1, "mlx5_1", "231:193");
    b.pciFunction(plainVf, "0x8086", "0x154c", "0x020000", "iavf", 0).sriovVf(plainVf, "0000:5e:00.0");
    b.netdev(plainVf, new Netdev("enp94s0v1", 4, 1, "02:5e:00:00:00:02", 1500, "up", 25000, 0, null));
    b.bridge("pci0000:00/0000:00:1c.0", "0x8086", "0x352a");
    b.bridge("pci0000:00/0000:00:1c.0/0000:01:00.0", "0x1000", "0xc030");
    b.bridge("pci0000:00/0000:00:1c.0/0000:01:00.0/0000:02:00.0", "0x1000", "0xc030");
    String uplink = "pci0000:00/0000:00:1c.0/0000:01:00.0/0000:02:00.0/0000:03:00.0";
    b.pciFunction(uplink, "0x15b3", "0x101d", "0x020000", "mlx5_core", 0);
    b.netdev(uplink, new Netdev("enp3s0np0", 5, 1, "b8:3f:d2:03:00:00", 1500, "up", 100000, 0, "p0"));
    b.tree().value("sys/devices/" + uplink + "/net/enp3s0np0/phys_switch_id", "c2cfc60003a1420c");
  }

  @Test
  void everyAttributeOfTheSyntheticNodeIsCatalogued() throws Exception {
    List<Device> devices = syntheticDevices();
    assertThat(devices).extracting(d -> d.type().orElseThrow()).contains(RDMA, VF, NIC);
    assertThat(AttributeCatalogue.undocumented(source.catalogue(), devices)).isEmpty();
    assertNamingRules(devices);
  }

  @Test
  void everyAttributeOfEveryConformanceCaptureIsCatalogued() throws Exception {
    Path corpus = Conformance.corpus("sysfs-rdma");
    List<Device> devices = new ArrayList<>();
    for (String capture : CAPTURES) {
      devices.addAll(devicesOf(HostFs.of(CorpusTree.materialise(corpus.resolve(capture), tmp.resolve(capture)))));
    }
    assertThat(devices).extracting(d -> d.type().orElseThrow()).contains(RDMA, NIC);
    assertThat(AttributeCatalogue.undocumented(source.catalogue(), devices)).isEmpty();
    assertNamingRules(devices);
  }

  @Test
  void everyCataloguedAttributeIsPublishedBySomeFixture() throws Exception {
    List<Device> devices = syntheticDevices();
    Set<String> published = new TreeSet<>();
    for (Device d : devices) {
      d.attributes().keySet().forEach(name -> published.add(d.type().orElseThrow() + " " + name));
    }
    Set<String> declared = source.catalogue().stream().map(doc -> doc.deviceType() + " " + doc.name())
        .collect(Collectors.toCollection(TreeSet::new));
    assertThat(published).containsAll(declared);
  }

  @Test
  void theRareCasesPublishWhatTheyAreFor() throws Exception {
    Path rare = tmp.resolve("rare");
    writeRareCases(rare);
    var result = source.discover(HostContext.of(HostFs.of(rare)));
    assertThat(result.warnings()).isEmpty();
    var byName = result.devices().stream().collect(Collectors.toMap(Device::name, d -> d));
    assertThat(byName.get("vf-0000-5e-00-1").attribute(LID)).contains(AttributeValue.of(6));
    assertThat(byName.get("vf-0000-5e-00-1").attribute(TRANSPORT)).contains(AttributeValue.string("infiniband"));
    assertThat(byName.get("vf-0000-5e-00-2").attribute(LINK_LAYER)).contains(AttributeValue.string("ethernet"));
    assertThat(byName.get("vf-0000-5e-00-2").attribute(RDMA_DEVICE)).isEmpty();
    assertThat(byName.get("nic-0000-03-00-0").attribute(PHYS_SWITCH_ID)).contains(AttributeValue.string("c2cfc60003a1420c"));
    assertThat(byName.get("nic-0000-03-00-0").attribute(PHYS_PORT_NAME)).contains(AttributeValue.string("p0"));
    assertThat(byName.get("nic-0000-03-00-0").attribute(io.nodeatlas.discovery.pci.PciFunctionFacts.PCIE_SWITCH))
        .contains(AttributeValue.string("0000:01:00.0"));
    assertThat(byName.get("vf-0000-5e-00-1").attribute(io.nodeatlas.discovery.pci.PciFunctionFacts.PCIE_SWITCH))
        .as("a VF on a root port, as its PF").isEmpty();
  }

  @Test
  void theCatalogueFollowsTheNamingRules() {
    List<AttributeDoc> catalogue = source.catalogue();
    assertThat(catalogue).extracting(AttributeDoc::deviceType).containsOnly(RDMA, VF, NIC);
    assertThat(catalogue).extracting(AttributeDoc::kind).containsOnly(AttributeDoc.Kind.ATTRIBUTE);
    assertThat(catalogue).extracting(d -> d.deviceType() + " " + d.name()).doesNotHaveDuplicates();
    for (AttributeDoc doc : catalogue) {
      String identifier = doc.name().substring(doc.name().indexOf('/') + 1);
      assertThat(identifier).as(doc.name()).matches("[a-z][A-Za-z0-9]*")
          // One spelling for acronyms: ID, GUID, UUID, VFs, not Id, Guid, Vfs.
          .doesNotContainPattern("(Id|Guid|Uuid|Vfs|Pci)(?![a-z])")
          .isNotEqualTo("driver");
      assertThat(doc.meaning()).as(doc.name()).isNotBlank();
      assertThat(doc.example()).as(doc.name()).isNotBlank();
    }
    assertThat(catalogue).filteredOn(d -> d.name().endsWith("Mbps")).allSatisfy(d -> assertThat(d.unit()).isEqualTo("Mb/s"));
    assertThat(catalogue).filteredOn(d -> d.name().endsWith("Gbps")).allSatisfy(d -> assertThat(d.unit()).isEqualTo("Gb/s"));
  }

  /** Enum-like values are lower case, and booleans are always present. */
  private static void assertNamingRules(List<Device> devices) {
    for (Device d : devices) {
      for (String name : List.of(LINK_LAYER, TRANSPORT, PORT_STATE, PHYS_STATE, OPER_STATE, RDMA_NETNS_MODE, ROCE_VERSIONS)) {
        d.attribute(name).map(AttributeValue::asObject).map(Object::toString)
            .ifPresent(v -> assertThat(v).as(d.name() + " " + name).isEqualTo(v.toLowerCase(Locale.ROOT)));
      }
      if (d.type().orElseThrow().equals(NIC)) {
        assertThat(d.attribute(VIRTUAL)).as(d.name()).isPresent();
      }
      assertThat(d.allowMultipleAllocations()).as(d.name()).isFalse();
    }
  }
}
