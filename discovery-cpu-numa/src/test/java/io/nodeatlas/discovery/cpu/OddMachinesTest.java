package io.nodeatlas.discovery.cpu;

import static org.assertj.core.api.Assertions.assertThat;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import io.nodeatlas.discovery.host.HostContext;
import io.nodeatlas.discovery.host.HostFs;
import io.nodeatlas.discovery.host.SourceOptions;
import io.nodeatlas.discovery.model.AttributeValue;
import io.nodeatlas.discovery.model.Device;
import io.nodeatlas.discovery.model.Names;
import io.nodeatlas.discovery.report.NodeReportCodec;
import io.nodeatlas.discovery.engine.AttributeCatalogue;
import io.nodeatlas.discovery.spi.DiscoveryResult;
import io.nodeatlas.discovery.report.DiscoveryWarning;
import io.nodeatlas.discovery.engine.NodeDiscovery;
import io.nodeatlas.discovery.testing.FixtureTree;
import io.nodeatlas.discovery.parse.CpuListParser;
import io.nodeatlas.discovery.topology.CpuSet;
import io.nodeatlas.discovery.topology.Topology;
import io.nodeatlas.discovery.topology.Topology.CacheInfo;
import io.nodeatlas.discovery.topology.Topology.CacheType;
import io.nodeatlas.discovery.topology.Topology.CoreInfo;
import io.nodeatlas.discovery.topology.Topology.HugepagePool;
import io.nodeatlas.discovery.topology.Topology.NumaNodeInfo;
import io.nodeatlas.discovery.topology.Topology.PackageInfo;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.TreeMap;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * What {@code discover} shows on each of {@link OddMachines}: the classes of machine on which our
 * CPU/NUMA view disagreed with hwloc (issue 13). The conformance package checks the same trees against
 * lstopo itself.
 */
class OddMachinesTest {

  private static final long KIB = 1024;
  private static final long MI2 = 2L << 20;
  private static final long GI1 = 1L << 30;

  @TempDir
  Path root;

  private DiscoveryResult discover(String machine) {
    OddMachines.write(machine, root);
    return Discover.run(HostContext.of(HostFs.of(root)));
  }

  private DiscoveryResult discoverCores() {
    HostContext host = new HostContext(HostFs.of(root), SourceOptions.NONE.with(CpuNumaSource.CPU_DEVICES, "cores"),
        java.time.Clock.systemUTC());
    return Discover.run(host);
  }

  private static CpuSet cpus(String list) {
    return CpuListParser.parse(list);
  }

  private static Device device(DiscoveryResult r, String name) {
    return r.devices().stream().filter(d -> d.name().equals(name)).findFirst()
        .orElseThrow(() -> new AssertionError("no device " + name + " in " + r.devices().stream().map(Device::name).toList()));
  }

  private static AttributeValue attr(Device d, String name) {
    return d.attributes().get(Names.ours(name));
  }

  private JsonNode discoverDocument() throws Exception {
    HostContext host = HostContext.of(HostFs.of(root));
    String json = new NodeReportCodec().toJson(NodeDiscovery.run(List.of(new CpuNumaSource()), host));
    return new ObjectMapper().readTree(json).get("topology");
  }

  @Test
  void siblingMasksGroupPackagesAndCoresWhereTheKernelRepeatsIds() {
    DiscoveryResult r = discover("sibling-masks");
    assertThat(r.warnings()).isEmpty();
    Topology t = r.topology().orElseThrow();
    // Two packages by their masks, both named 0 as the kernel prints; ordered by their lowest CPU.
    assertThat(t.packages()).containsExactly(new PackageInfo(0, cpus("0-3")), new PackageInfo(0, cpus("4-7")));
    assertThat(t.cores()).containsExactly(
        new CoreInfo(0, -1, 0, cpus("0-1"), null), new CoreInfo(0, -1, 0, cpus("2-3"), null),
        new CoreInfo(0, -1, 0, cpus("4-5"), null), new CoreInfo(0, -1, 0, cpus("6-7"), null));
    // Devices: an id that names two packages is no socket a claim could match on.
    assertThat(r.devices()).extracting(Device::name).containsExactly("cpu-numa0", "cpu-numa1");
    assertThat(r.devices()).allSatisfy(d -> {
      assertThat(d.attributes()).doesNotContainKey(Names.ours("socket"));
      assertThat(attr(d, "threadsPerCore")).isEqualTo(AttributeValue.of(2));
      assertThat(attr(d, "smt")).isEqualTo(AttributeValue.of(true));
    });
  }

  @Test
  void coresOfRepeatedIdsAreNamedByTheirFirstCpu() {
    OddMachines.write("sibling-masks", root);
    DiscoveryResult r = discoverCores();
    assertThat(r.devices()).filteredOn(d -> d.type().orElseThrow().equals("cpu")).extracting(Device::name)
        .containsExactly("cpu-core-cpu0", "cpu-core-cpu2", "cpu-core-cpu4", "cpu-core-cpu6");
    Device core = device(r, "cpu-core-cpu4");
    assertThat(core.attributes()).doesNotContainKey(Names.ours("socket"));
    assertThat(attr(core, "coreID")).isEqualTo(AttributeValue.of(0));
    assertThat(core.attributes().get(Names.NUMA_NODE)).isEqualTo(AttributeValue.of(1));
    assertThat(core.containerEdits().env()).contains("NODEATLAS_CPUS=4-5");
  }

  @Test
  void packagesOfDistinctIdsKeepTheirSocket() {
    // The same tree with the ids the masks imply: nothing changes but the names.
    OddMachines.write("sibling-masks", root);
    FixtureTree t = FixtureTree.at(root);
    for (int c = 4; c < 8; c++) {
      t.value("sys/devices/system/cpu/cpu" + c + "/topology/physical_package_id", 1);
    }
    DiscoveryResult r = Discover.run(HostContext.of(HostFs.of(root)));
    assertThat(r.topology().orElseThrow().packages())
        .containsExactly(new PackageInfo(0, cpus("0-3")), new PackageInfo(1, cpus("4-7")));
    assertThat(attr(device(r, "cpu-numa1"), "socket")).isEqualTo(AttributeValue.of(1));
  }

  @Test
  void aPackageMaskWithoutItsOwnCpuIsGarbageAndTheIdGroups() {
    OddMachines.write("sibling-masks", root);
    FixtureTree t = FixtureTree.at(root);
    for (int c = 4; c < 8; c++) {
      t.value("sys/devices/system/cpu/cpu" + c + "/topology/physical_package_id", 1);
    }
    t.value("sys/devices/system/cpu/cpu4/topology/package_cpus_list", "0-3");
    DiscoveryResult r = Discover.run(HostContext.of(HostFs.of(root)));
    assertThat(r.warnings()).extracting(DiscoveryWarning::message).containsExactly(
        "/sys/devices/system/cpu/cpu4/topology: package_cpus does not name cpu4 itself; its package is grouped by"
            + " physical_package_id");
    // cpu4's own package by its id; cpu6 (the next core) reads its intact mask and joins no one else.
    assertThat(r.topology().orElseThrow().packages()).extracting(PackageInfo::id, PackageInfo::cpus).containsExactly(
        org.assertj.core.groups.Tuple.tuple(0, cpus("0-3")), org.assertj.core.groups.Tuple.tuple(1, cpus("4-5")),
        org.assertj.core.groups.Tuple.tuple(1, cpus("6-7")));
  }

  @Test
  void anEmptySharingMaskIsTheCoresAndTheMapWinsOverTheList() {
    DiscoveryResult r = discover("cache-masks");
    assertThat(r.warnings()).isEmpty();
    assertThat(r.topology().orElseThrow().caches()).containsExactly(
        new CacheInfo(1, CacheType.DATA, 32 * KIB, cpus("0-1")),
        new CacheInfo(1, CacheType.DATA, 32 * KIB, cpus("2-3")),
        new CacheInfo(1, CacheType.INSTRUCTION, 32 * KIB, cpus("0-1")),
        new CacheInfo(1, CacheType.INSTRUCTION, 32 * KIB, cpus("2-3")),
        new CacheInfo(2, CacheType.UNIFIED, 1024 * KIB, cpus("0-1")),
        new CacheInfo(2, CacheType.UNIFIED, 1024 * KIB, cpus("2-3")),
        new CacheInfo(3, CacheType.UNIFIED, 8192 * KIB, cpus("0-3")));
  }

  @Test
  void withoutTheMapTheListStillCounts() {
    OddMachines.write("cache-masks", root);
    FixtureTree t = FixtureTree.at(root);
    for (int c = 0; c < 4; c++) {
      t.delete("sys/devices/system/cpu/cpu" + c + "/cache/index2/shared_cpu_map");
    }
    DiscoveryResult r = Discover.run(HostContext.of(HostFs.of(root)));
    assertThat(r.topology().orElseThrow().caches()).filteredOn(c -> c.level() == 2)
        .containsExactly(new CacheInfo(2, CacheType.UNIFIED, 1024 * KIB, cpus("0-3")));
  }

  @Test
  void anEmptySharingMaskWithoutCoresIsTheCpusOwn() {
    OddMachines.write("cache-masks", root);
    FixtureTree t = FixtureTree.at(root);
    for (int c = 0; c < 4; c++) {
      String topo = "sys/devices/system/cpu/cpu" + c + "/topology/";
      t.delete(topo + "thread_siblings").delete(topo + "thread_siblings_list").delete(topo + "core_cpus")
          .delete(topo + "core_cpus_list").delete(topo + "core_id");
    }
    DiscoveryResult r = Discover.run(HostContext.of(HostFs.of(root)));
    assertThat(r.topology().orElseThrow().cores()).isEmpty();
    assertThat(r.topology().orElseThrow().caches()).filteredOn(c -> c.level() == 1 && c.type() == CacheType.DATA)
        .extracting(CacheInfo::cpus).containsExactly(cpus("0"), cpus("1"), cpus("2"), cpus("3"));
  }

  @Test
  void oneBadMeminfoLineCostsOnlyThatLine() {
    DiscoveryResult r = discover("meminfo-bad-line");
    assertThat(r.warnings()).extracting(DiscoveryWarning::message).satisfiesExactly(
        w -> assertThat(w).startsWith("/sys/devices/system/node/node0/meminfo: line 2 left out: not \"key: value\""),
        w -> assertThat(w).startsWith("/sys/devices/system/node/node1/meminfo: MemFree left out: not a number"));
    List<NumaNodeInfo> nodes = r.topology().orElseThrow().numaNodes();
    assertThat(nodes).extracting(NumaNodeInfo::memoryTotalBytes).containsExactly(2048L << 20, 2048L << 20);
    assertThat(nodes).extracting(NumaNodeInfo::memoryFreeBytes).containsExactly(1024L << 20, null);
    assertThat(r.devices()).extracting(Device::name).containsExactly("cpu-numa0", "cpu-numa1");
  }

  @Test
  void aKernelWithoutNumaShowsOneNodeZeroAsHwlocAndNumactlDo() throws Exception {
    DiscoveryResult r = discover("without-numa");
    assertThat(r.warnings()).isEmpty();
    Topology t = r.topology().orElseThrow();
    assertThat(t.numaNodes()).containsExactly(new NumaNodeInfo(0, cpus("0-3"), 8000000L * KIB, 6000000L * KIB,
        new TreeMap<>(Map.of(0, 10)), List.of(new HugepagePool(MI2, 16, 12, 1L, 0))));
    // The devices keep to the kernel, which knows no NUMA node: per package, and no numaNode.
    assertThat(r.devices()).extracting(Device::name).containsExactly("cpu-package0", "hugepages-2mi");
    assertThat(r.devices()).allSatisfy(d -> assertThat(d.attributes()).doesNotContainKey(Names.NUMA_NODE));
    assertThat(attr(device(r, "cpu-package0"), "socket")).isEqualTo(AttributeValue.of(0));
    assertThat(attr(device(r, "hugepages-2mi"), "memoryOnly")).isEqualTo(AttributeValue.of(false));
    assertThat(device(r, "hugepages-2mi").attributes()).doesNotContainKey(Names.ours("memoryTier"));

    JsonNode doc = discoverDocument();
    assertThat(doc.at("/numaNodes").size()).isEqualTo(1);
    assertThat(doc.at("/numaNodes/0/cpus").asText()).isEqualTo("0-3");
    assertThat(doc.at("/numaNodes/0/memoryTotalBytes").asLong()).isEqualTo(8000000L * KIB);
    assertThat(doc.at("/numaNodes/0/distances/0").asInt()).isEqualTo(10);
    assertThat(doc.at("/numaNodes/0/hugepages/0/total").asLong()).isEqualTo(16);
  }

  @Test
  void aNodeDirectoryWithoutNodesIsTheKernelsAnswer() {
    OddMachines.write("without-numa", root);
    FixtureTree.at(root).dir("sys/devices/system/node");
    DiscoveryResult r = Discover.run(HostContext.of(HostFs.of(root)));
    assertThat(r.topology().orElseThrow().numaNodes()).isEmpty();
  }

  @Test
  void memoryOnlyNodesCarryTheirInitiatorsAndTiers() throws Exception {
    DiscoveryResult r = discover("hbm-cxl");
    assertThat(r.warnings()).isEmpty();
    List<NumaNodeInfo> nodes = r.topology().orElseThrow().numaNodes();
    assertThat(nodes).extracting(NumaNodeInfo::id).containsExactly(0, 1, 2, 3, 4);
    assertThat(nodes).extracting(NumaNodeInfo::memoryOnly).containsExactly(false, false, true, true, true);
    assertThat(nodes).extracting(NumaNodeInfo::memoryTier).containsExactly(4, 4, 4, 4, 22);
    assertThat(nodes).extracting(NumaNodeInfo::initiatorNodes)
        .containsExactly(List.of(0), List.of(1), List.of(0), List.of(1), List.of(0));
    assertThat(nodes).extracting(NumaNodeInfo::initiatorCpus)
        .containsExactly(cpus("0-3"), cpus("4-7"), cpus("0-3"), cpus("4-7"), cpus("0-3"));
    assertThat(nodes.get(4).memoryTotalBytes()).isEqualTo(64L << 30);
    assertThat(nodes.get(2).hugepages()).containsExactly(new HugepagePool(MI2, 512, 512, null, 0));

    assertThat(r.devices()).extracting(Device::name).containsExactly(
        "cpu-numa0", "cpu-numa1", "hugepages-2mi-numa0", "hugepages-2mi-numa2", "hugepages-1gi-numa4");
    Device dram = device(r, "hugepages-2mi-numa0");
    Device hbm = device(r, "hugepages-2mi-numa2");
    Device cxl = device(r, "hugepages-1gi-numa4");
    assertThat(attr(dram, "memoryOnly")).isEqualTo(AttributeValue.of(false));
    assertThat(attr(dram, "memoryTier")).isEqualTo(AttributeValue.of(4));
    assertThat(attr(hbm, "memoryOnly")).isEqualTo(AttributeValue.of(true));
    assertThat(attr(hbm, "memoryTier")).isEqualTo(AttributeValue.of(4));
    assertThat(hbm.attributes().get(Names.NUMA_NODE)).isEqualTo(AttributeValue.of(2));
    assertThat(attr(cxl, "memoryOnly")).isEqualTo(AttributeValue.of(true));
    assertThat(attr(cxl, "memoryTier")).isEqualTo(AttributeValue.of(22));
    assertThat(cxl.capacity().get(Names.ours("memory"))).isEqualTo(io.nodeatlas.discovery.model.Quantity.of(4 * GI1));
    // Nothing repeats numaNode: the cpu devices carry neither new attribute.
    assertThat(device(r, "cpu-numa0").attributes())
        .doesNotContainKeys(Names.ours("memoryOnly"), Names.ours("memoryTier"));

    JsonNode doc = discoverDocument();
    assertThat(doc.at("/numaNodes/2/cpus").asText()).isEmpty();
    assertThat(doc.at("/numaNodes/2/memoryOnly").asBoolean()).isTrue();
    assertThat(doc.at("/numaNodes/2/memoryTier").asInt()).isEqualTo(4);
    assertThat(doc.at("/numaNodes/2/initiatorNodes/0").asInt()).isEqualTo(0);
    assertThat(doc.at("/numaNodes/2/initiatorCpus").asText()).isEqualTo("0-3");
    assertThat(doc.at("/numaNodes/4/memoryTier").asInt()).isEqualTo(22);
    assertThat(doc.at("/numaNodes/3/initiatorCpus").asText()).isEqualTo("4-7");
    assertThat(doc.at("/numaNodes/0/memoryOnly").isMissingNode()).isTrue();
  }

  @Test
  void anInitiatorThatIsNotOnlineCostsThatLinkAndAWarning() {
    OddMachines.write("hbm-cxl", root);
    FixtureTree.at(root).symlink("sys/devices/system/node/node3/access0/initiators/node9", "../../../node9");
    DiscoveryResult r = Discover.run(HostContext.of(HostFs.of(root)));
    assertThat(r.warnings()).extracting(DiscoveryWarning::message).containsExactly(
        "/sys/devices/system/node/node3/access0/initiators/node9: names node 9, which is not online;"
            + " left out of the initiators");
    NumaNodeInfo hbm = r.topology().orElseThrow().numaNodes().get(3);
    assertThat(hbm.initiatorNodes()).containsExactly(1);
    assertThat(hbm.initiatorCpus()).isEqualTo(cpus("4-7"));
  }

  @Test
  void aMemoryNodeWhoseBestInitiatorHasNoCpusTakesItsLocalityFromAccess1() throws Exception {
    // Kernels 5.18+: access0 names the best initiator of any kind, here CPU-less node 3 standing in for a
    // generic initiator (an accelerator); access1 names the best initiator with CPUs, node 0.
    OddMachines.write("hbm-cxl", root);
    String node2 = "sys/devices/system/node/node2/";
    FixtureTree.at(root).delete(node2 + "access0/initiators/node0")
        .symlink(node2 + "access0/initiators/node3", "../../../node3")
        .symlink(node2 + "access1/initiators/node0", "../../../node0")
        .value(node2 + "access1/initiators/read_latency", 120);
    DiscoveryResult r = Discover.run(HostContext.of(HostFs.of(root)));
    assertThat(r.warnings()).isEmpty();
    NumaNodeInfo hbm = r.topology().orElseThrow().numaNodes().get(2);
    assertThat(hbm.initiatorNodes()).containsExactly(0);
    assertThat(hbm.initiatorCpus()).isEqualTo(cpus("0-3"));
    JsonNode doc = discoverDocument();
    assertThat(doc.at("/numaNodes/2/initiatorNodes").toString()).isEqualTo("[0]");
    assertThat(doc.at("/numaNodes/2/initiatorCpus").asText()).isEqualTo("0-3");
  }

  @Test
  void anAccess1WithoutNodesLeavesTheLocalityToAccess0() {
    OddMachines.write("hbm-cxl", root);
    FixtureTree.at(root).value("sys/devices/system/node/node3/access1/initiators/read_latency", 120);
    DiscoveryResult r = Discover.run(HostContext.of(HostFs.of(root)));
    assertThat(r.warnings()).isEmpty();
    NumaNodeInfo hbm = r.topology().orElseThrow().numaNodes().get(3);
    assertThat(hbm.initiatorNodes()).containsExactly(1);
    assertThat(hbm.initiatorCpus()).isEqualTo(cpus("4-7"));
  }

  @Test
  void aNodeInTwoTiersStaysInTheFasterOne() {
    OddMachines.write("hbm-cxl", root);
    FixtureTree.at(root).value("sys/devices/virtual/memory_tiering/memory_tier22/nodelist", "3-4");
    DiscoveryResult r = Discover.run(HostContext.of(HostFs.of(root)));
    assertThat(r.warnings()).extracting(DiscoveryWarning::message).containsExactly(
        "/sys/devices/virtual/memory_tiering/memory_tier22/nodelist: node 3 is already in memory_tier4; kept there");
    assertThat(r.topology().orElseThrow().numaNodes()).extracting(NumaNodeInfo::memoryTier)
        .containsExactly(4, 4, 4, 4, 22);
  }

  @Test
  void withoutTiersOrInitiatorsNodesHaveNeither() {
    OddMachines.write("hbm-cxl", root);
    FixtureTree t = FixtureTree.at(root);
    t.delete("sys/devices/virtual/memory_tiering/memory_tier4/nodelist")
        .delete("sys/devices/virtual/memory_tiering/memory_tier22/nodelist");
    for (int n = 0; n < 5; n++) {
      for (String f : List.of("node0", "node1", "read_bandwidth", "write_bandwidth", "read_latency", "write_latency")) {
        t.delete("sys/devices/system/node/node" + n + "/access0/initiators/" + f);
      }
    }
    DiscoveryResult r = Discover.run(HostContext.of(HostFs.of(root)));
    assertThat(r.warnings()).isEmpty();
    assertThat(r.topology().orElseThrow().numaNodes()).allSatisfy(n -> {
      assertThat(n.memoryTier()).isNull();
      assertThat(n.initiatorNodes()).isEmpty();
      assertThat(n.initiatorCpus()).isEqualTo(CpuSet.EMPTY);
    });
    Device hbm = device(r, "hugepages-2mi-numa2");
    assertThat(attr(hbm, "memoryOnly")).isEqualTo(AttributeValue.of(true));
    assertThat(hbm.attributes()).doesNotContainKey(Names.ours("memoryTier"));
  }

  @Test
  void aBrokenTieringDirectoryCostsTheTiers() {
    OddMachines.write("hbm-cxl", root);
    FixtureTree t = FixtureTree.at(root);
    t.delete("sys/devices/virtual/memory_tiering/memory_tier4/nodelist")
        .delete("sys/devices/virtual/memory_tiering/memory_tier22/nodelist")
        .delete("sys/devices/virtual/memory_tiering/memory_tier4").delete("sys/devices/virtual/memory_tiering/memory_tier22")
        .delete("sys/devices/virtual/memory_tiering");
    t.value("sys/devices/virtual/memory_tiering", "not a directory");
    DiscoveryResult r = Discover.run(HostContext.of(HostFs.of(root)));
    assertThat(r.warnings()).extracting(DiscoveryWarning::message).containsExactly(
        "/sys/devices/virtual/memory_tiering: not a directory; memory tiers left out");
    assertThat(r.topology().orElseThrow().numaNodes()).extracting(NumaNodeInfo::memoryTier).containsOnlyNulls();
    assertThat(r.topology().orElseThrow().numaNodes().get(2).initiatorCpus()).isEqualTo(cpus("0-3"));
  }

  @Test
  void everyNameTheOddMachinesPublishIsCatalogued() {
    List<Device> devices = new ArrayList<>();
    for (String machine : OddMachines.NAMES) {
      Path dir = root.resolve(machine);
      OddMachines.write(machine, dir);
      devices.addAll(Discover.run(HostContext.of(HostFs.of(dir))).devices());
    }
    assertThat(devices).isNotEmpty();
    assertThat(AttributeCatalogue.undocumented(new CpuNumaSource().catalogue(), devices)).isEmpty();
  }
}
