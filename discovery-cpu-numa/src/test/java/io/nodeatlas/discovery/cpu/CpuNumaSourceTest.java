package io.nodeatlas.discovery.cpu;

import static org.assertj.core.api.Assertions.assertThat;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import io.nodeatlas.discovery.host.HostContext;
import io.nodeatlas.discovery.host.HostFs;
import io.nodeatlas.discovery.model.AttributeValue;
import io.nodeatlas.discovery.model.ContainerEdits;
import io.nodeatlas.discovery.model.Device;
import io.nodeatlas.discovery.model.Names;
import io.nodeatlas.discovery.model.Quantity;
import io.nodeatlas.discovery.model.RequestPolicy;
import io.nodeatlas.discovery.engine.AttributeCatalogue;
import io.nodeatlas.discovery.model.AttributeDoc;
import io.nodeatlas.discovery.report.NodeReportCodec;
import io.nodeatlas.discovery.spi.DiscoveryResult;
import io.nodeatlas.discovery.engine.DiscoverySources;
import io.nodeatlas.discovery.engine.NodeDiscovery;
import io.nodeatlas.discovery.testing.FixtureTree;
import io.nodeatlas.discovery.topology.CpuSet;
import io.nodeatlas.discovery.topology.Topology;
import io.nodeatlas.discovery.topology.Topology.CacheInfo;
import io.nodeatlas.discovery.topology.Topology.CacheType;
import io.nodeatlas.discovery.topology.Topology.CoreInfo;
import io.nodeatlas.discovery.topology.Topology.DieInfo;
import io.nodeatlas.discovery.topology.Topology.HugepagePool;
import io.nodeatlas.discovery.topology.Topology.HugepageSize;
import io.nodeatlas.discovery.topology.Topology.NumaNodeInfo;
import io.nodeatlas.discovery.topology.Topology.PackageInfo;
import io.nodeatlas.discovery.parse.CpuListParser;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.TreeSet;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/** The source on the synthetic 2-socket node of {@link SyntheticNode}, asserting every value it is built with. */
class CpuNumaSourceTest {

  private static final long MI2 = 2L << 20;
  private static final long GI1 = 1L << 30;

  @TempDir
  Path root;

  /** The 128-CPU tree is thousands of files: written once and only read by the tests that use it. */
  @TempDir
  static Path synthetic;

  @BeforeAll
  static void writeSyntheticNode() {
    SyntheticNode.write(synthetic);
  }

  private static DiscoveryResult discoverSynthetic() {
    return Discover.run(HostContext.of(HostFs.of(synthetic)));
  }

  private DiscoveryResult discover() {
    return Discover.run(HostContext.of(HostFs.of(root)));
  }

  private static CpuSet cpus(String list) {
    return CpuListParser.parse(list);
  }

  @Test
  void syntheticNodeTopology() {
    DiscoveryResult r = discoverSynthetic();
    assertThat(r.warnings()).isEmpty();
    Topology t = r.topology().orElseThrow();

    assertThat(t.cpus().online()).isEqualTo(CpuSet.range(0, 127));
    assertThat(t.cpus().possible()).isEqualTo(CpuSet.range(0, 127));
    assertThat(t.cpus().offline()).isEqualTo(CpuSet.EMPTY);

    assertThat(t.packages()).containsExactly(
        new PackageInfo(0, cpus("0-31,64-95")), new PackageInfo(1, cpus("32-63,96-127")));
    assertThat(t.dies()).containsExactly(
        new DieInfo(0, 0, cpus("0-15,64-79")), new DieInfo(0, 1, cpus("16-31,80-95")),
        new DieInfo(1, 0, cpus("32-47,96-111")), new DieInfo(1, 1, cpus("48-63,112-127")));
    assertThat(t.clusters()).hasSize(64);
    assertThat(t.clusters().get(0).cpus()).isEqualTo(cpus("0,64"));

    assertThat(t.cores()).hasSize(64).allSatisfy(c -> assertThat(c.cpus().size()).isEqualTo(2));
    assertThat(t.cores()).contains(new CoreInfo(0, 0, 0, cpus("0,64"), null));
    assertThat(t.cores()).contains(new CoreInfo(1, 0, 4, cpus("36,100"), null));

    assertThat(t.caches()).hasSize(64 * 3 + 4);
    assertThat(t.caches().stream().filter(c -> c.level() == 1 && c.type() == CacheType.DATA))
        .hasSize(64).allSatisfy(c -> assertThat(c.sizeBytes()).isEqualTo(48 << 10));
    assertThat(t.caches().stream().filter(c -> c.level() == 1 && c.type() == CacheType.INSTRUCTION))
        .hasSize(64).allSatisfy(c -> assertThat(c.sizeBytes()).isEqualTo(32 << 10));
    assertThat(t.caches().stream().filter(c -> c.level() == 2))
        .hasSize(64).allSatisfy(c -> assertThat(c.sizeBytes()).isEqualTo(2048 << 10));
    assertThat(t.caches()).contains(new CacheInfo(1, CacheType.DATA, 48 << 10, cpus("36,100")));
    // 4 dies, each with an L3 of 16 cores / 32 threads.
    assertThat(t.caches().stream().filter(c -> c.level() == 3).toList()).containsExactly(
        new CacheInfo(3, CacheType.UNIFIED, 49152L << 10, cpus("0-15,64-79")),
        new CacheInfo(3, CacheType.UNIFIED, 49152L << 10, cpus("16-31,80-95")),
        new CacheInfo(3, CacheType.UNIFIED, 49152L << 10, cpus("32-47,96-111")),
        new CacheInfo(3, CacheType.UNIFIED, 49152L << 10, cpus("48-63,112-127")));

    assertThat(t.numaNodes()).containsExactly(
        new NumaNodeInfo(0, cpus("0-31,64-95"), 527958016L << 10, 500000000L << 10,
            new java.util.TreeMap<>(Map.of(0, 10, 1, 21)),
            List.of(new HugepagePool(MI2, 4096, 4000, null, 0), new HugepagePool(GI1, 16, 16, null, 0))),
        new NumaNodeInfo(1, cpus("32-63,96-127"), 527958016L << 10, 500000000L << 10,
            new java.util.TreeMap<>(Map.of(0, 21, 1, 10)),
            List.of(new HugepagePool(MI2, 4096, 4096, null, 0), new HugepagePool(GI1, 16, 14, null, 0))));

    assertThat(t.hugepages()).containsExactly(
        new HugepageSize(MI2, 8192, 8096, 0L, 0, List.of("/dev/hugepages")),
        new HugepageSize(GI1, 32, 30, 0L, 0, List.of("/dev/hugepages-1G")));
    // The global values equal the sums of the per-node pools.
    for (HugepageSize size : t.hugepages()) {
      long total = 0;
      long free = 0;
      for (NumaNodeInfo n : t.numaNodes()) {
        for (HugepagePool p : n.hugepages()) {
          if (p.pageSizeBytes() == size.pageSizeBytes()) {
            total += p.total();
            free += p.free();
          }
        }
      }
      assertThat(total).isEqualTo(size.total());
      assertThat(free).isEqualTo(size.free());
    }
  }

  @Test
  void syntheticNodeDevices() {
    List<Device> devices = discoverSynthetic().devices();
    assertThat(devices).extracting(Device::name).containsExactly(
        "cpu-numa0", "cpu-numa1", "hugepages-2mi-numa0", "hugepages-1gi-numa0", "hugepages-2mi-numa1", "hugepages-1gi-numa1");

    Device cpu1 = devices.get(1);
    assertThat(cpu1.source()).isEqualTo("cpu-numa");
    assertThat(cpu1.attributes()).containsExactlyInAnyOrderEntriesOf(Map.of(
        Names.ours("type"), AttributeValue.string("cpu"),
        Names.NUMA_NODE, AttributeValue.of(1),
        Names.ours("socket"), AttributeValue.of(1),
        Names.ours("cpuCount"), AttributeValue.of(64),
        Names.ours("reservedCPUs"), AttributeValue.of(0),
        Names.ours("smt"), AttributeValue.of(true),
        Names.ours("threadsPerCore"), AttributeValue.of(2)));
    assertThat(cpu1.capacity()).containsExactlyEntriesOf(Map.of(Names.ours("cpu"), Quantity.of(64)));
    // Shared (KEP-5075): a claim takes 1 CPU by default, or any whole number up to the node's 64.
    assertThat(cpu1.allowMultipleAllocations()).isTrue();
    assertThat(cpu1.requestPolicies()).containsExactlyEntriesOf(Map.of(Names.ours("cpu"),
        RequestPolicy.range(Quantity.of(1), Quantity.of(1), Quantity.of(64), Quantity.of(1))));
    assertThat(cpu1.containerEdits().isEmpty()).isTrue();

    Device gi1 = devices.stream().filter(d -> d.name().equals("hugepages-1gi-numa1")).findFirst().orElseThrow();
    assertThat(gi1.attributes()).containsExactlyInAnyOrderEntriesOf(Map.of(
        Names.ours("type"), AttributeValue.string("hugepages"),
        Names.NUMA_NODE, AttributeValue.of(1),
        Names.ours("pageSize"), AttributeValue.string("1Gi"),
        Names.ours("pageSizeBytes"), AttributeValue.of(GI1),
        Names.ours("memoryOnly"), AttributeValue.of(false)));
    assertThat(gi1.capacity()).containsExactlyEntriesOf(Map.of(Names.ours("memory"), Quantity.of(16 * GI1)));
    // Shared by bytes in whole pages: one page by default, up to the pool's 16 GiB.
    assertThat(gi1.allowMultipleAllocations()).isTrue();
    assertThat(gi1.requestPolicies()).containsExactlyEntriesOf(Map.of(Names.ours("memory"),
        RequestPolicy.range(Quantity.of(GI1), Quantity.of(GI1), Quantity.of(16 * GI1), Quantity.of(GI1))));
    // Each container gets its own hugetlbfs instance of the device's page size.
    assertThat(gi1.containerEdits().mounts()).containsExactly(new ContainerEdits.Mount(
        "nodev", "/dev/hugepages-1Gi", "hugetlbfs", List.of("rw", "nosuid", "nodev", "pagesize=1G")));
    assertThat(gi1.containerEdits().env()).containsExactly("NODEATLAS_HUGEPAGES_1GI=/dev/hugepages-1Gi");

    Device mi2 = devices.stream().filter(d -> d.name().equals("hugepages-2mi-numa0")).findFirst().orElseThrow();
    assertThat(mi2.capacity().get(Names.ours("memory"))).isEqualTo(Quantity.of(4096 * MI2));
    assertThat(mi2.requestPolicies().get(Names.ours("memory")).validRange().orElseThrow().step())
        .contains(Quantity.of(MI2));
    assertThat(mi2.containerEdits().mounts()).extracting(ContainerEdits.Mount::options)
        .containsExactly(List.of("rw", "nosuid", "nodev", "pagesize=2M"));
  }

  @Test
  void discoverDocumentShowsTheTopology() throws Exception {
    HostContext host = HostContext.of(HostFs.of(synthetic));
    String json = new NodeReportCodec().toJson(NodeDiscovery.run(List.of(new CpuNumaSource()), host));
    JsonNode t = new ObjectMapper().readTree(json).get("topology");
    assertThat(t.at("/cpus/online").asText()).isEqualTo("0-127");
    assertThat(t.at("/caches/0/type").asText()).isEqualTo("data");
    assertThat(t.at("/numaNodes/1/cpus").asText()).isEqualTo("32-63,96-127");
    assertThat(t.at("/numaNodes/0/distances/1").asInt()).isEqualTo(21);
    assertThat(t.at("/hugepages/1/mounts/0").asText()).isEqualTo("/dev/hugepages-1G");
    // Byte-stable: a second run prints the same document.
    assertThat(new NodeReportCodec().toJson(NodeDiscovery.run(List.of(new CpuNumaSource()), host))).isEqualTo(json);
  }

  @Test
  void registeredAsAServiceNamedCpuNuma() {
    assertThat(DiscoverySources.load(getClass().getClassLoader()).select("cpu-numa"))
        .singleElement().isInstanceOf(CpuNumaSource.class);
  }

  @Test
  void unavailableWithoutCpuDirectory() {
    assertThat(new CpuNumaSource().availability(HostContext.of(HostFs.of(root))).available()).isFalse();
    assertThat(new CpuNumaSource().availability(HostContext.of(HostFs.of(root))).reason()).contains("devices/system/cpu");
  }

  /** A 1-package hybrid laptop shape: cpus 0-3 are two P-cores with SMT, 4-7 four E-cores; no NUMA directory. */
  static void writeHybridLaptop(Path root) {
    FixtureTree t = FixtureTree.at(root);
    t.value("sys/devices/system/cpu/online", "0-7");
    for (int c = 0; c < 8; c++) {
      String dir = "sys/devices/system/cpu/cpu" + c + "/topology/";
      t.value(dir + "physical_package_id", 0).value(dir + "core_id", c < 4 ? (c / 2) * 4 : c * 4)
          .value(dir + "thread_siblings_list", c < 4 ? (c / 2 * 2) + "-" + (c / 2 * 2 + 1) : Integer.toString(c));
    }
    t.value("sys/devices/cpu_core/cpus", "0-3").value("sys/devices/cpu_atom/cpus", "4-7");
  }

  @Test
  void hybridCoresGetTheirType() {
    writeHybridLaptop(root);
    DiscoveryResult r = discover();
    Topology topo = r.topology().orElseThrow();
    assertThat(topo.cores()).extracting(CoreInfo::type)
        .containsExactly("performance", "performance", "efficiency", "efficiency", "efficiency", "efficiency");
    // No NUMA directory: one device per package, with the mixed core type.
    assertThat(r.devices()).singleElement().satisfies(d -> {
      assertThat(d.name()).isEqualTo("cpu-package0");
      assertThat(d.attributes().get(Names.ours("coreType"))).isEqualTo(AttributeValue.string("mixed"));
      assertThat(d.attributes().get(Names.ours("socket"))).isEqualTo(AttributeValue.of(0));
      assertThat(d.attributes()).doesNotContainKey(Names.NUMA_NODE);
      assertThat(d.attributes().get(Names.ours("threadsPerCore"))).isEqualTo(AttributeValue.of(2));
      assertThat(d.attributes().get(Names.ours("smt"))).isEqualTo(AttributeValue.of(true));
    });
  }

  @Test
  void globalPoolsOnlyGiveOneDevicePerSize() {
    FixtureTree t = FixtureTree.at(root);
    t.value("sys/devices/system/cpu/online", "0-1")
        .value("sys/devices/system/cpu/cpu0/topology/physical_package_id", -1)
        .value("sys/devices/system/cpu/cpu1/topology/physical_package_id", -1)
        .value("sys/kernel/mm/hugepages/hugepages-1024kB/nr_hugepages", 3)
        .file("proc/meminfo", "Hugepagesize:       1024 kB\n")
        .file("proc/mounts", "none /hp hugetlbfs rw 0 0\n");
    DiscoveryResult r = discover();
    assertThat(r.warnings()).isEmpty();
    // Package id -1 (s390): no socket attribute, and the device is named by position.
    assertThat(r.devices()).extracting(Device::name).containsExactly("cpu-package0", "hugepages-1mi");
    assertThat(r.devices().get(0).attributes()).doesNotContainKey(Names.ours("socket"));
    // No core files: the kernel names no cores, so no threadsPerCore; the boolean is still there.
    assertThat(r.devices().get(0).attributes()).doesNotContainKey(Names.ours("threadsPerCore"))
        .containsEntry(Names.ours("smt"), AttributeValue.of(false));
    Device hp = r.devices().get(1);
    assertThat(hp.attributes()).doesNotContainKey(Names.NUMA_NODE);
    assertThat(hp.capacity().get(Names.ours("memory"))).isEqualTo(Quantity.of(3L << 20));
    assertThat(hp.containerEdits().mounts()).extracting(ContainerEdits.Mount::type, ContainerEdits.Mount::containerPath)
        .containsExactly(org.assertj.core.groups.Tuple.tuple("hugetlbfs", "/dev/hugepages-1Mi"));
  }

  @Test
  void memoryOnlyNodeHasNoCpuDeviceAndOfflineCpusAreLeftOut() {
    FixtureTree t = FixtureTree.at(root);
    t.value("sys/devices/system/cpu/online", "0-1").value("sys/devices/system/cpu/offline", "2-3")
        .value("sys/devices/system/node/online", "0,8")
        .value("sys/devices/system/node/node0/cpulist", "0-3")
        .file("sys/devices/system/node/node8/cpulist", "\n")
        .value("sys/devices/system/node/node0/distance", "10 40")
        .value("sys/devices/system/node/node8/distance", "40 10")
        .file("sys/devices/system/node/node8/meminfo", "Node 8 MemTotal:  1024 kB\n");
    DiscoveryResult r = discover();
    Topology topo = r.topology().orElseThrow();
    assertThat(topo.numaNodes()).extracting(NumaNodeInfo::cpus).containsExactly(cpus("0-1"), CpuSet.EMPTY);
    assertThat(topo.numaNodes().get(1).distances()).containsEntry(0, 40).containsEntry(8, 10);
    assertThat(topo.numaNodes().get(1).memoryTotalBytes()).isEqualTo(1L << 20);
    assertThat(r.devices()).extracting(Device::name).containsExactly("cpu-numa0");
    assertThat(r.devices().get(0).capacity().get(Names.ours("cpu"))).isEqualTo(Quantity.of(2));
  }

  @Test
  void poolsWithoutPagesAreNoDevicesButStayInTheTopology() {
    // A 1 GiB pool nobody reserved pages in: a device from it could never be allocated.
    FixtureTree t = FixtureTree.at(root);
    t.value("sys/devices/system/cpu/online", "0")
        .value("sys/kernel/mm/hugepages/hugepages-2048kB/nr_hugepages", 4)
        .value("sys/kernel/mm/hugepages/hugepages-1048576kB/nr_hugepages", 0);
    DiscoveryResult r = discover();
    assertThat(r.warnings()).isEmpty();
    assertThat(r.devices()).extracting(Device::name).containsExactly("cpu-package0", "hugepages-2mi");
    assertThat(r.topology().orElseThrow().hugepages()).extracting(HugepageSize::pageSizeBytes, HugepageSize::total)
        .containsExactly(org.assertj.core.groups.Tuple.tuple(MI2, 4L), org.assertj.core.groups.Tuple.tuple(GI1, 0L));
  }

  @Test
  void aPoolTooLargeForABytesCountKeepsItsDeviceWithoutTheMemoryCapacity() {
    FixtureTree t = FixtureTree.at(root);
    t.value("sys/devices/system/cpu/online", "0")
        .value("sys/kernel/mm/hugepages/hugepages-1048576kB/nr_hugepages", "100000000000000000");
    DiscoveryResult r = discover();
    assertThat(r.warnings()).extracting(w -> w.message()).containsExactly(
        "device hugepages-1gi: nodeatlas.io/memory left out: 100000000000000000 pages of 1Gi are more bytes"
            + " than a 64-bit count holds");
    Device hp = r.devices().get(1);
    assertThat(hp.name()).isEqualTo("hugepages-1gi");
    assertThat(hp.capacity()).isEmpty();
    assertThat(hp.allowMultipleAllocations()).isFalse();
    assertThat(hp.attributes()).containsEntry(Names.ours("pageSize"), AttributeValue.string("1Gi"));
  }

  @Test
  void everyPublishedNameIsCataloguedAndEveryCatalogueEntryIsPublished() throws Exception {
    CpuNumaSource source = new CpuNumaSource();
    writeHybridLaptop(root);
    List<Device> devices = new ArrayList<>(discoverSynthetic().devices());
    devices.addAll(discover().devices());
    devices.addAll(CpuDevicesTest.devicesOfEveryKind(root.resolve("kinds")));
    OddMachines.hbmAndCxl(root.resolve("hbm"));
    // --cpu-pcie-roots adds the list attribute pcieRoot to cpu devices of a NUMA node.
    devices.addAll(CpuNumaDevices.withPcieRoots(Discover.run(HostContext.of(HostFs.of(root.resolve("hbm")))).devices(),
        java.util.Map.of(0, List.of("pci0000:00")), w -> { }));
    assertThat(AttributeCatalogue.undocumented(source.catalogue(), devices)).isEmpty();
    // The synthetic node, the hybrid laptop, an x86 and an arm64 node in both modes and a node with HBM
    // and CXL memory together publish every documented name: none is stale.
    TreeSet<String> published = new TreeSet<>();
    for (Device d : devices) {
      d.attributes().keySet().forEach(k -> published.add(d.type().orElseThrow() + " " + k));
      d.capacity().keySet().forEach(k -> published.add(d.type().orElseThrow() + " " + k));
    }
    TreeSet<String> documented = new TreeSet<>();
    source.catalogue().forEach(doc -> documented.add(doc.deviceType() + " " + doc.name()));
    assertThat(published).isEqualTo(documented);
    assertThat(source.catalogue()).allSatisfy(doc -> {
      assertThat(doc.example()).isNotBlank();
      assertThat(doc.meaning()).isNotBlank();
    });
    assertThat(source.catalogue()).filteredOn(doc -> doc.kind() == AttributeDoc.Kind.CAPACITY)
        .extracting(AttributeDoc::unit).containsOnly("CPUs", "bytes");
  }
}
