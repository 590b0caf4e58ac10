package io.nodeatlas.discovery.cpu;

import static org.assertj.core.api.Assertions.assertThat;

import com.code_intelligence.jazzer.api.FuzzedDataProvider;
import com.code_intelligence.jazzer.junit.FuzzTest;
import io.nodeatlas.discovery.host.HostContext;
import io.nodeatlas.discovery.host.HostFs;
import io.nodeatlas.discovery.model.Device;
import io.nodeatlas.discovery.model.Names;
import io.nodeatlas.discovery.model.Quantity;
import io.nodeatlas.discovery.spi.DiscoveryResult;
import io.nodeatlas.discovery.report.DiscoveryWarning;
import io.nodeatlas.discovery.testing.FixtureTree;
import io.nodeatlas.discovery.topology.CpuSet;
import io.nodeatlas.discovery.topology.Topology;
import java.io.IOException;
import java.io.UncheckedIOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.Comparator;
import java.util.List;
import java.util.stream.Stream;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * Broken host files: each costs one fact and one warning, never the run. A missing file or a
 * dangling symlink is an absent fact (old kernels lack many files), so it costs the fact and no warning.
 * Every warning has the one form {@code <path as the host names it>: <reason>}.
 */
class BadInputTest {

  @TempDir
  Path root;

  private FixtureTree tree;

  /** Every file the readers parse in {@link #writeSmallNode}, for the reader fuzz test. */
  static final List<String> PARSED_FILES = List.of(
      "sys/devices/system/cpu/online",
      "sys/devices/system/cpu/possible",
      "sys/devices/system/cpu/cpu0/topology/physical_package_id",
      "sys/devices/system/cpu/cpu0/topology/core_id",
      "sys/devices/system/cpu/cpu0/topology/die_id",
      "sys/devices/system/cpu/cpu0/topology/thread_siblings_list",
      "sys/devices/system/cpu/cpu1/topology/core_id",
      "sys/devices/system/cpu/cpu0/cache/index0/level",
      "sys/devices/system/cpu/cpu0/cache/index0/type",
      "sys/devices/system/cpu/cpu0/cache/index0/size",
      "sys/devices/system/cpu/cpu0/cache/index0/shared_cpu_list",
      "sys/devices/cpu_core/cpus",
      "sys/devices/system/node/online",
      "sys/devices/system/node/node0/cpulist",
      "sys/devices/system/node/node0/meminfo",
      "sys/devices/system/node/node0/distance",
      "sys/devices/system/node/node0/hugepages/hugepages-2048kB/nr_hugepages",
      "sys/kernel/mm/hugepages/hugepages-2048kB/nr_hugepages",
      "sys/kernel/mm/hugepages/hugepages-2048kB/resv_hugepages",
      "proc/meminfo",
      "proc/mounts",
      "proc/cpuinfo",
      "proc/sys/kernel/arch",
      "sys/devices/system/cpu/modalias");

  /** A Sapphire Rapids' cpuinfo, shortened, for the 4 CPUs of the small node. */
  static final String SMALL_NODE_CPUINFO = smallNodeCpuinfo();

  private static String smallNodeCpuinfo() {
    StringBuilder out = new StringBuilder();
    for (int c = 0; c < 4; c++) {
      out.append("processor\t: ").append(c).append("\nvendor_id\t: GenuineIntel\ncpu family\t: 6\nmodel\t\t: 143\n")
          .append("model name\t: Intel(R) Xeon(R) Platinum 8480+\nstepping\t: 8\n")
          .append("flags\t\t: fpu lm avx2 avx512f amx_bf16 amx_tile\n\n");
    }
    return out.toString();
  }

  /** One package, two cores with two threads each, one NUMA node, a 2 MiB pool and its mount. */
  static FixtureTree writeSmallNode(Path root) {
    FixtureTree t = FixtureTree.at(root);
    String cpu = "sys/devices/system/cpu/";
    t.value(cpu + "online", "0-3").value(cpu + "possible", "0-3");
    for (int c = 0; c < 4; c++) {
      String dir = cpu + "cpu" + c + "/";
      String siblings = (c % 2) + "," + (c % 2 + 2);
      t.value(dir + "topology/physical_package_id", 0).value(dir + "topology/die_id", 0)
          .value(dir + "topology/core_id", c % 2).value(dir + "topology/thread_siblings_list", siblings)
          .value(dir + "cache/index0/level", 1).value(dir + "cache/index0/type", "Data")
          .value(dir + "cache/index0/size", "48K").value(dir + "cache/index0/shared_cpu_list", siblings)
          .value(dir + "cache/index3/level", 3).value(dir + "cache/index3/type", "Unified")
          .value(dir + "cache/index3/size", "8192K").value(dir + "cache/index3/shared_cpu_list", "0-3");
    }
    String node = "sys/devices/system/node/";
    t.value(node + "online", "0").value(node + "node0/cpulist", "0-3").value(node + "node0/distance", "10")
        .file(node + "node0/meminfo", "Node 0 MemTotal:  1048576 kB\nNode 0 MemFree:  524288 kB\n")
        .value(node + "node0/hugepages/hugepages-2048kB/nr_hugepages", 8)
        .value(node + "node0/hugepages/hugepages-2048kB/free_hugepages", 8)
        .value(node + "node0/hugepages/hugepages-2048kB/surplus_hugepages", 0)
        .value("sys/kernel/mm/hugepages/hugepages-2048kB/nr_hugepages", 8)
        .value("sys/kernel/mm/hugepages/hugepages-2048kB/free_hugepages", 8)
        .value("sys/kernel/mm/hugepages/hugepages-2048kB/resv_hugepages", 0)
        .value("sys/kernel/mm/hugepages/hugepages-2048kB/surplus_hugepages", 0)
        .file("proc/meminfo", "MemTotal: 1048576 kB\nHugepagesize:       2048 kB\n")
        .file("proc/mounts", "hugetlbfs /dev/hugepages hugetlbfs rw,relatime,pagesize=2M 0 0\n")
        .value("proc/sys/kernel/arch", "x86_64")
        .value(cpu + "modalias", "cpu:type:x86,ven0000fam0006mod008F:feature:,0000,0001,0125")
        .file("proc/cpuinfo", SMALL_NODE_CPUINFO);
    return t;
  }

  @BeforeEach
  void write() {
    tree = writeSmallNode(root);
  }

  private DiscoveryResult discover() {
    return Discover.run(HostContext.of(HostFs.of(root)));
  }

  private static Topology topology(DiscoveryResult r) {
    return r.topology().orElseThrow();
  }

  @Test
  void intactTreeHasNoWarnings() {
    DiscoveryResult r = discover();
    assertThat(r.warnings()).isEmpty();
    assertThat(r.devices()).extracting(Device::name).containsExactly("cpu-numa0", "hugepages-2mi-numa0");
  }

  @Test
  void missingFileIsAnAbsentFactWithoutWarning() {
    tree.delete("sys/devices/system/node/node0/distance");
    DiscoveryResult r = discover();
    assertThat(r.warnings()).isEmpty();
    assertThat(topology(r).numaNodes().get(0).distances()).isEmpty();
    assertThat(topology(r).numaNodes().get(0).memoryTotalBytes()).isEqualTo(1L << 30);
  }

  @Test
  void danglingSymlinkIsAnAbsentFact() {
    tree.symlink("sys/devices/system/node/node0/meminfo", "../../../../nowhere/meminfo");
    DiscoveryResult r = discover();
    assertThat(r.warnings()).isEmpty();
    assertThat(topology(r).numaNodes().get(0).memoryTotalBytes()).isNull();
    assertThat(topology(r).numaNodes().get(0).cpus()).isEqualTo(CpuSet.range(0, 3));
  }

  @Test
  void emptyCounterCostsThePool() {
    tree.file("sys/devices/system/node/node0/hugepages/hugepages-2048kB/nr_hugepages", "");
    DiscoveryResult r = discover();
    assertOneWarning(r, "/sys/devices/system/node/node0/hugepages/hugepages-2048kB/nr_hugepages: not understood:"
        + " not a number: \"\"");
    assertThat(topology(r).numaNodes().get(0).hugepages()).isEmpty();
    // Without per-node pools the global pool still gives a device.
    assertThat(r.devices()).extracting(Device::name).containsExactly("cpu-numa0", "hugepages-2mi");
  }

  @Test
  void nulTerminatedValuesAreRead() {
    tree.file("sys/devices/system/node/online", "0\n\0");
    tree.file("sys/devices/system/cpu/cpu0/topology/core_id", "0\n\0");
    DiscoveryResult r = discover();
    assertThat(r.warnings()).isEmpty();
    assertThat(topology(r).numaNodes()).hasSize(1);
    assertThat(topology(r).cores()).hasSize(2);
  }

  @Test
  void nonNumericIdCostsThePackageId() {
    tree.value("sys/devices/system/cpu/cpu0/topology/physical_package_id", "zero");
    DiscoveryResult r = discover();
    assertOneWarning(r, "/sys/devices/system/cpu/cpu0/topology/physical_package_id: not understood: not a number");
    assertThat(topology(r).cores()).hasSize(2);
    assertThat(topology(r).numaNodes().get(0).cpus()).isEqualTo(CpuSet.range(0, 3));
  }

  @Test
  void hugeNumberCostsTheFact() {
    tree.value("sys/kernel/mm/hugepages/hugepages-2048kB/resv_hugepages", "123456789012345678901234567890");
    DiscoveryResult r = discover();
    assertOneWarning(r, "/sys/kernel/mm/hugepages/hugepages-2048kB/resv_hugepages: not understood: not a number");
    assertThat(topology(r).hugepages()).singleElement().satisfies(h -> {
      assertThat(h.total()).isEqualTo(8);
      assertThat(h.reserved()).isNull();
    });
  }

  /**
   * Issue 35 item 6: ten bytes of {@code cpu/online} naming a million CPUs made discover read a
   * million CPUs' files (200 s). Ids are bounded by what the kernel can have ({@code kernel_max},
   * {@code possible}; without them NR_CPUS' and MAX_NUMNODES' largest values), with one warning.
   */
  @Test
  void hugeIdRangesAreBoundedByWhatTheKernelCanHave() {
    tree.value("sys/devices/system/cpu/online", "0-1048575");
    tree.value("sys/devices/system/cpu/kernel_max", "8191");
    long start = System.nanoTime();
    DiscoveryResult r = discover();
    assertThat(java.time.Duration.ofNanos(System.nanoTime() - start)).isLessThan(java.time.Duration.ofSeconds(20));
    assertOneWarning(r, "/sys/devices/system/cpu/online: names CPU 4 to 1048575, which this kernel cannot have"
        + " (possible 0-3); 1048572 id(s) left out");
    assertThat(topology(r).cpus().online()).isEqualTo(CpuSet.range(0, 3));
    assertDevicesIntact(r);

    // No possible file: kernel_max bounds every list.
    tree.delete("sys/devices/system/cpu/possible");
    tree.value("sys/devices/system/cpu/kernel_max", "3");
    r = discover();
    assertOneWarning(r, "/sys/devices/system/cpu/online: names CPU 4 to 1048575, which this kernel cannot have"
        + " (kernel_max 3)");
    assertThat(topology(r).cpus().online()).isEqualTo(CpuSet.range(0, 3));

    // Neither: at most 8192 CPU ids; and node ids at most 1024 (or node/possible).
    tree.delete("sys/devices/system/cpu/kernel_max");
    tree.value("sys/devices/system/cpu/online", "0-3");
    tree.value("sys/devices/system/node/online", "0-1048575");
    start = System.nanoTime();
    r = discover();
    assertThat(java.time.Duration.ofNanos(System.nanoTime() - start)).isLessThan(java.time.Duration.ofSeconds(20));
    assertThat(r.warnings()).extracting(DiscoveryWarning::message).first().asString()
        .contains("/sys/devices/system/node/online: names node 1024 to 1048575, which this kernel cannot have");
    assertThat(topology(r).numaNodes().get(0).cpus()).isEqualTo(CpuSet.range(0, 3));
    tree.value("sys/devices/system/node/possible", "0");
    r = discover();
    assertOneWarning(r, "/sys/devices/system/node/online: names node 1 to 1048575, which this kernel cannot have"
        + " (possible 0)");
    assertThat(topology(r).numaNodes()).hasSize(1);
    assertDevicesIntact(r);
  }

  @Test
  void hugeFileCostsTheFact() {
    tree.bytes("sys/devices/system/node/node0/distance", new byte[HostFs.MAX_FILE_BYTES + 10]);
    DiscoveryResult r = discover();
    assertOneWarning(r, "/sys/devices/system/node/node0/distance: larger than 4 MiB");
    assertThat(topology(r).numaNodes().get(0).memoryTotalBytes()).isEqualTo(1L << 30);
  }

  @Test
  void directoryWhereAFileBelongs() {
    tree.delete("sys/devices/system/cpu/cpu0/cache/index3/size").dir("sys/devices/system/cpu/cpu0/cache/index3/size");
    DiscoveryResult r = discover();
    assertOneWarning(r, "/sys/devices/system/cpu/cpu0/cache/index3/size: is a directory");
    // Only the size is lost; the L3 instance itself is still known (size 0).
    assertThat(topology(r).caches()).filteredOn(c -> c.level() == 3).singleElement()
        .satisfies(c -> assertThat(c.cpus()).isEqualTo(CpuSet.range(0, 3)));
  }

  @Test
  void fifoWhereAFileBelongsIsNeverOpened() throws Exception {
    Path fifo = tree.path("proc/mounts");
    Files.delete(fifo);
    Process p = new ProcessBuilder("mkfifo", fifo.toString()).start();
    assertThat(p.waitFor()).isZero();
    DiscoveryResult r = discover();
    assertOneWarning(r, "/proc/mounts: not a regular file");
    assertThat(topology(r).hugepages()).singleElement().satisfies(h -> assertThat(h.mounts()).isEmpty());
  }

  @Test
  void garbageCacheTypeCostsThatCache() {
    for (int c = 0; c < 4; c++) {
      tree.value("sys/devices/system/cpu/cpu" + c + "/cache/index3/type", "Victim");
    }
    DiscoveryResult r = discover();
    assertThat(r.warnings()).extracting(DiscoveryWarning::message).containsExactly(
        "/sys/devices/system/cpu/cpu0/cache/index3: not a cache type (Data, Instruction or Unified): \"Victim\"; cache left out",
        "/sys/devices/system/cpu/cpu1/cache/index3: not a cache type (Data, Instruction or Unified): \"Victim\"; cache left out",
        "/sys/devices/system/cpu/cpu2/cache/index3: not a cache type (Data, Instruction or Unified): \"Victim\"; cache left out",
        "/sys/devices/system/cpu/cpu3/cache/index3: not a cache type (Data, Instruction or Unified): \"Victim\"; cache left out");
    assertThat(topology(r).caches()).hasSize(2).allSatisfy(c -> assertThat(c.level()).isEqualTo(1));
  }

  @Test
  void aSharedCpuMapInTheKernelsFormIsReadFromItsBytesAndAnyOtherAsText() {
    // The map wins over the list (as hwloc). index0: the plain form, parsed from the read's bytes;
    // index3: a sign, which only the text parser takes (Long.parseLong's -1: CPUs 0-31), and garbage.
    for (int c = 0; c < 4; c++) {
      String dir = "sys/devices/system/cpu/cpu" + c + "/cache/";
      tree.value(dir + "index0/shared_cpu_map", "00000000," + (c % 2 == 0 ? "00000005" : "0000000a"))
          .value(dir + "index3/shared_cpu_map", c < 2 ? "-1" : "zz,0f");
    }
    DiscoveryResult r = discover();
    assertThat(topology(r).caches()).filteredOn(c -> c.level() == 1).extracting(c -> c.cpus().toString())
        .containsExactlyInAnyOrder("0,2", "1,3");
    assertThat(topology(r).caches()).filteredOn(c -> c.level() == 3).singleElement()
        .satisfies(c -> assertThat(c.cpus().toString()).isEqualTo("0-3"));
    assertThat(r.warnings()).isEmpty(); // cpu2 and cpu3 share cpu0's L3, so their garbage maps are never read
  }

  @Test
  void aGarbageSharedCpuMapCostsThatCache() {
    // Maps in index0 too: a reader that found only lists tries the list first from then on.
    for (int c = 0; c < 4; c++) {
      String dir = "sys/devices/system/cpu/cpu" + c + "/cache/";
      tree.value(dir + "index0/shared_cpu_map", c % 2 == 0 ? "5" : "a").value(dir + "index3/shared_cpu_map", "zz,0f");
    }
    DiscoveryResult r = discover();
    assertThat(r.warnings()).extracting(DiscoveryWarning::message).containsExactly(
        "/sys/devices/system/cpu/cpu0/cache/index3: not a CPU mask (\"zz\" is not hex): \"zz,0f\"; cache left out",
        "/sys/devices/system/cpu/cpu1/cache/index3: not a CPU mask (\"zz\" is not hex): \"zz,0f\"; cache left out",
        "/sys/devices/system/cpu/cpu2/cache/index3: not a CPU mask (\"zz\" is not hex): \"zz,0f\"; cache left out",
        "/sys/devices/system/cpu/cpu3/cache/index3: not a CPU mask (\"zz\" is not hex): \"zz,0f\"; cache left out");
    assertThat(topology(r).caches()).hasSize(2).allSatisfy(c -> assertThat(c.level()).isEqualTo(1));
  }

  @Test
  void wrongDistanceColumnCount() {
    tree.value("sys/devices/system/node/node0/distance", "10 20");
    DiscoveryResult r = discover();
    assertOneWarning(r, "/sys/devices/system/node/node0/distance: not understood: distance row has 2 values but 1 nodes are online");
    assertThat(topology(r).numaNodes().get(0).distances()).isEmpty();
  }

  /** Exactly one warning, from this source, starting with {@code expectedStart} (host path, colon, reason). */
  private static void assertOneWarning(DiscoveryResult r, String expectedStart) {
    assertThat(r.warnings()).as("warnings").hasSize(1);
    DiscoveryWarning w = r.warnings().get(0);
    assertThat(w.source()).isEqualTo("cpu-numa");
    assertThat(w.message()).startsWith(expectedStart);
  }

  /** The small node's devices, unchanged by whatever a test broke elsewhere. */
  private static void assertDevicesIntact(DiscoveryResult r) {
    assertThat(r.devices()).extracting(Device::name).containsExactly("cpu-numa0", "hugepages-2mi-numa0");
    assertThat(r.devices().get(0).capacity()).containsEntry(Names.ours("cpu"), Quantity.of(4));
  }

  private void deleteTree(String relative) throws IOException {
    Path top = tree.path(relative);
    try (Stream<Path> s = Files.walk(top)) {
      for (Path p : s.sorted(Comparator.reverseOrder()).toList()) {
        Files.delete(p);
      }
    }
  }

  @Test
  void oneGarbageLineInANodeMeminfoCostsThatLine() {
    tree.file("sys/devices/system/node/node0/meminfo",
        "Node 0 MemTotal:  1048576 kB\nthis line has no key\nNode 0 MemFree:  524288 kB\n");
    DiscoveryResult r = discover();
    assertThat(r.warnings()).extracting(DiscoveryWarning::message).containsExactly(
        "/sys/devices/system/node/node0/meminfo: line 2 left out: not \"key: value\": \"this line has no key\" (20 chars)");
    assertThat(topology(r).numaNodes().get(0).memoryTotalBytes()).isEqualTo(1L << 30);
    assertThat(topology(r).numaNodes().get(0).memoryFreeBytes()).isEqualTo(512L << 20);
    assertDevicesIntact(r);
  }

  @Test
  void oneMalformedMeminfoValueCostsThatKey() {
    tree.file("sys/devices/system/node/node0/meminfo", "Node 0 MemTotal:  1048576 kB\nNode 0 MemFree:  lots kB\n");
    DiscoveryResult r = discover();
    assertThat(r.warnings()).extracting(DiscoveryWarning::message).containsExactly(
        "/sys/devices/system/node/node0/meminfo: MemFree left out: not a number: \"lots kB\" (7 chars)");
    assertThat(topology(r).numaNodes().get(0).memoryTotalBytes()).isEqualTo(1L << 30);
    assertThat(topology(r).numaNodes().get(0).memoryFreeBytes()).isNull();
    assertDevicesIntact(r);
  }

  @Test
  void oneBadHugetlbfsLineCostsThatMount() {
    tree.file("proc/mounts", "none /bad hugetlbfs rw,pagesize=lots 0 0\n"
        + "hugetlbfs /dev/hugepages hugetlbfs rw,relatime,pagesize=2M 0 0\n");
    DiscoveryResult r = discover();
    assertThat(r.warnings()).extracting(DiscoveryWarning::message).containsExactly(
        "/proc/mounts: line 1 left out: hugetlbfs \"/bad\" (4 chars): bad \"pagesize=lots\" (13 chars)");
    assertThat(topology(r).hugepages()).singleElement()
        .satisfies(h -> assertThat(h.mounts()).containsExactly("/dev/hugepages"));
    assertDevicesIntact(r);
  }

  @Test
  void emptyOnlineCpuListIsAWarningAndTheCpuDirectoriesStandIn() {
    // Read as it stands, an empty cpu/online would publish a node without CPUs.
    tree.file("sys/devices/system/cpu/online", "\n");
    DiscoveryResult r = discover();
    assertThat(r.warnings()).extracting(DiscoveryWarning::message).containsExactly(
        "/sys/devices/system/cpu/online: empty, but a running kernel always has an online CPU;"
            + " online CPUs taken from the cpuN directories and their online files");
    assertThat(topology(r).cpus().online()).isEqualTo(CpuSet.range(0, 3));
    assertThat(topology(r).cores()).hasSize(2);
    assertDevicesIntact(r);
  }

  @Test
  void hugepagesDirectoryThatIsARegularFileIsAWarning() throws IOException {
    deleteTree("sys/kernel/mm/hugepages");
    tree.value("sys/kernel/mm/hugepages", "not a directory");
    tree.file("proc/meminfo", "MemTotal: 1048576 kB\nHugePages_Total:  8\nHugePages_Free:  8\n"
        + "HugePages_Rsvd:  0\nHugePages_Surp:  0\nHugepagesize:  2048 kB\n");
    DiscoveryResult r = discover();
    assertThat(r.warnings()).extracting(DiscoveryWarning::message).containsExactly(
        "/sys/kernel/mm/hugepages: not a directory; only the default page size's pool, from /proc/meminfo, is known");
    // The default size's pool from /proc/meminfo, still served by its mount; the per-node pools are intact.
    assertThat(topology(r).hugepages()).singleElement().satisfies(h -> {
      assertThat(h.pageSizeBytes()).isEqualTo(2L << 20);
      assertThat(h.total()).isEqualTo(8);
      assertThat(h.mounts()).containsExactly("/dev/hugepages");
    });
    assertDevicesIntact(r);
  }

  @Test
  void nodeHugepagesDirectoryThatIsARegularFileIsAWarning() throws IOException {
    deleteTree("sys/devices/system/node/node0/hugepages");
    tree.value("sys/devices/system/node/node0/hugepages", "not a directory");
    DiscoveryResult r = discover();
    assertThat(r.warnings()).extracting(DiscoveryWarning::message).containsExactly(
        "/sys/devices/system/node/node0/hugepages: not a directory; the hugepage pools of NUMA node 0 left out");
    assertThat(topology(r).numaNodes().get(0).hugepages()).isEmpty();
    assertThat(topology(r).numaNodes().get(0).memoryTotalBytes()).isEqualTo(1L << 30);
    // Without per-node pools the global pool gives the device; the node's CPUs still do.
    assertThat(r.devices()).extracting(Device::name).containsExactly("cpu-numa0", "hugepages-2mi");
  }

  @Test
  void symlinkLoopCostsThatDirectory() throws IOException {
    deleteTree("sys/devices/system/node/node0");
    tree.symlink("sys/devices/system/node/node0", "node0");
    DiscoveryResult r = discover();
    assertThat(r.warnings()).extracting(DiscoveryWarning::message).containsExactly(
        "/sys/devices/system/node/node0: symlink loop; NUMA node 0 (listed in node/online) left out");
    assertThat(topology(r).numaNodes()).isEmpty();
    // Without a NUMA node the CPUs are grouped per package, and the global pool is the device.
    assertThat(topology(r).cpus().online()).isEqualTo(CpuSet.range(0, 3));
    assertThat(r.devices()).extracting(Device::name).containsExactly("cpu-package0", "hugepages-2mi");
    assertThat(r.devices().get(0).capacity()).containsEntry(Names.ours("cpu"), Quantity.of(4));
  }

  @Test
  void symlinksOutOfTheHostRootAreRefused() throws IOException {
    // A planted relative link climbing out of the tree, and an absolute one; both point at real files.
    String up = "../".repeat(root.getNameCount() + 6);
    tree.symlink("sys/devices/system/node/node0/meminfo", up + "etc/passwd");
    tree.symlink("proc/meminfo", "/etc/passwd");
    deleteTree("sys/devices/system/node/node0/hugepages");
    tree.symlink("sys/devices/system/node/node0/hugepages", "/etc");
    DiscoveryResult r;
    try {
      r = discover();
    } finally {
      // Links out of the temp dir make JUnit's clean-up complain; they are only needed for the run.
      tree.delete("sys/devices/system/node/node0/meminfo").delete("proc/meminfo")
          .delete("sys/devices/system/node/node0/hugepages");
    }
    assertThat(r.warnings()).extracting(DiscoveryWarning::message).satisfiesExactly(
        w -> assertThat(w).startsWith("/sys/devices/system/node/node0/meminfo: resolves outside the host root (to /"),
        w -> assertThat(w).startsWith("/sys/devices/system/node/node0/hugepages: resolves outside the host root (to /")
            .endsWith("; the hugepage pools of NUMA node 0 left out"),
        w -> assertThat(w).startsWith("/proc/meminfo: resolves outside the host root (to /"));
    assertThat(r.warnings()).allSatisfy(w -> assertThat(w.message()).contains("symlink not followed"));
    assertThat(topology(r).numaNodes().get(0).memoryTotalBytes()).isNull();
    assertThat(topology(r).numaNodes().get(0).cpus()).isEqualTo(CpuSet.range(0, 3));
    assertThat(r.devices()).extracting(Device::name).containsExactly("cpu-numa0", "hugepages-2mi");
  }

  private static Path fuzzRoot;

  /**
   * Any bytes in any one parsed file: discovery still completes with a topology, and every device it
   * publishes is valid (the {@link Device} constructor checks names and limits).
   */
  @FuzzTest
  void anyBytesInAnyFileCostAtMostWarnings(FuzzedDataProvider data) throws Exception {
    if (fuzzRoot == null) {
      fuzzRoot = Files.createTempDirectory("cpu-numa-fuzz");
      writeSmallNode(fuzzRoot);
    }
    String file = PARSED_FILES.get(data.consumeInt(0, PARSED_FILES.size() - 1));
    Path path = fuzzRoot.resolve(file);
    byte[] original = Files.readAllBytes(path);
    try {
      Files.write(path, data.consumeRemainingAsBytes());
      DiscoveryResult r = Discover.run(HostContext.of(HostFs.of(fuzzRoot)));
      assertThat(r.topology()).isPresent();
      assertThat(r.devices()).allSatisfy(d -> assertThat(d.source()).isEqualTo("cpu-numa"));
    } catch (UncheckedIOException e) {
      throw e;
    } finally {
      Files.write(path, original);
    }
  }
}
