package io.nodeatlas.discovery.cpu;

import io.nodeatlas.discovery.testing.FixtureTree;
import java.nio.file.Path;
import java.util.List;

/**
 * Small sysfs/procfs trees of our own, one per class of machine on which the CPU/NUMA view once
 * disagreed with hwloc, written from the kernel's ABI documentation
 * (Documentation/ABI/stable/sysfs-devices-system-cpu, Documentation/ABI/testing/sysfs-devices-system-cpu
 * for {@code cache/indexY}, Documentation/ABI/stable/sysfs-devices-node,
 * Documentation/ABI/testing/sysfs-kernel-mm-memory-tiers, Documentation/filesystems/proc.rst for
 * meminfo). Masks are printed as the kernel's {@code %*pb} (hex, 32-bit groups), lists as {@code %*pbl}.
 * {@code OddMachinesTest} asserts what {@code discover} shows on each; the conformance package runs
 * lstopo on the same trees.
 */
public final class OddMachines {

  private static final String CPU = "sys/devices/system/cpu/";
  private static final String NODE = "sys/devices/system/node/";

  /** Every fixture by name, for tests that run over all of them. */
  public static final List<String> NAMES =
      List.of("sibling-masks", "cache-masks", "meminfo-bad-line", "without-numa", "hbm-cxl");

  private OddMachines() {}

  public static FixtureTree write(String name, Path root) {
    return switch (name) {
      case "sibling-masks" -> siblingMasksOverIds(root);
      case "cache-masks" -> cacheMasks(root);
      case "meminfo-bad-line" -> meminfoBadLine(root);
      case "without-numa" -> withoutNuma(root);
      case "hbm-cxl" -> hbmAndCxl(root);
      default -> throw new IllegalArgumentException(name);
    };
  }

  /**
   * Sibling masks over ids: 8 CPUs whose {@code package_cpus}/{@code core_siblings} masks make two
   * packages (0-3, 4-7) and whose {@code core_cpus}/{@code thread_siblings} masks make four 2-thread
   * cores, but the kernel prints {@code physical_package_id} 0 and {@code core_id} 0 for every CPU. One
   * NUMA node per package.
   */
  public static FixtureTree siblingMasksOverIds(Path root) {
    FixtureTree t = FixtureTree.at(root);
    cpuSummary(t, "0-7");
    for (int c = 0; c < 8; c++) {
      int pkg = c / 4;
      int core = c / 2;
      topology(t, c, 0, 0, core * 2 + "-" + (core * 2 + 1), pkg * 4 + "-" + (pkg * 4 + 3), 8);
    }
    node(t, 0, "0-3", "10 21", 4L << 20, 3L << 20);
    node(t, 1, "4-7", "21 10", 4L << 20, 2L << 20);
    t.value(NODE + "online", "0-1").value(NODE + "possible", "0-1");
    t.file("proc/meminfo", "MemTotal:  8388608 kB\nMemFree:  5242880 kB\n");
    return t;
  }

  /**
   * Cache masks: one package of two 2-thread cores (0-1, 2-3). Every CPU's L1d prints an all-zero
   * {@code shared_cpu_map} and an empty {@code shared_cpu_list} (as old kernels did for some levels);
   * the L2's map names the core but its list claims the whole package; the L3's map and list agree on
   * the package.
   */
  public static FixtureTree cacheMasks(Path root) {
    FixtureTree t = FixtureTree.at(root);
    cpuSummary(t, "0-3");
    for (int c = 0; c < 4; c++) {
      int core = c / 2;
      String threads = core * 2 + "-" + (core * 2 + 1);
      topology(t, c, 0, core, threads, "0-3", 4);
      String dir = CPU + "cpu" + c + "/cache/";
      cache(t, dir + "index0/", 1, "Data", "32K", "0", "\n");
      cache(t, dir + "index1/", 1, "Instruction", "32K", mask(threads, 4), threads);
      cache(t, dir + "index2/", 2, "Unified", "1024K", mask(threads, 4), "0-3");
      cache(t, dir + "index3/", 3, "Unified", "8192K", "f", "0-3");
    }
    node(t, 0, "0-3", "10", 4L << 20, 3L << 20);
    t.value(NODE + "online", "0").value(NODE + "possible", "0");
    t.file("proc/meminfo", "MemTotal:  4194304 kB\nMemFree:  3145728 kB\n");
    return t;
  }

  /**
   * One bad line: two nodes of two CPUs. Node 0's meminfo has one line that is not {@code key: value}
   * between MemTotal and MemFree; node 1's MemFree value is not a number.
   */
  public static FixtureTree meminfoBadLine(Path root) {
    FixtureTree t = FixtureTree.at(root);
    cpuSummary(t, "0-3");
    for (int c = 0; c < 4; c++) {
      topology(t, c, c / 2, c % 2, Integer.toString(c), c / 2 * 2 + "-" + (c / 2 * 2 + 1), 4);
    }
    t.value(NODE + "online", "0-1").value(NODE + "possible", "0-1");
    node(t, 0, "0-1", "10 20", 0, 0);
    node(t, 1, "2-3", "20 10", 0, 0);
    t.file(NODE + "node0/meminfo", "Node 0 MemTotal:       2097152 kB\n"
        + "Node 0 this line lost its colon 12 kB\n"
        + "Node 0 MemFree:        1048576 kB\n"
        + "Node 0 MemUsed:        1048576 kB\n");
    t.file(NODE + "node1/meminfo", "Node 1 MemTotal:       2097152 kB\n"
        + "Node 1 MemFree:        lots kB\n"
        + "Node 1 MemUsed:        1048576 kB\n");
    t.file("proc/meminfo", "MemTotal:  4194304 kB\nMemFree:  2097152 kB\n");
    return t;
  }

  /**
   * A kernel without NUMA ({@code CONFIG_NUMA=n}): no {@code /sys/devices/system/node}. Two 2-thread
   * cores in one package, a 2 MiB hugepage pool of 16 pages, and /proc/meminfo.
   */
  public static FixtureTree withoutNuma(Path root) {
    FixtureTree t = FixtureTree.at(root);
    cpuSummary(t, "0-3");
    for (int c = 0; c < 4; c++) {
      topology(t, c, 0, c % 2, c % 2 + "," + (c % 2 + 2), "0-3", 4);
    }
    String pool = "sys/kernel/mm/hugepages/hugepages-2048kB/";
    t.value(pool + "nr_hugepages", 16).value(pool + "free_hugepages", 12).value(pool + "resv_hugepages", 1)
        .value(pool + "surplus_hugepages", 0);
    t.file("proc/meminfo", "MemTotal:        8000000 kB\n"
        + "MemFree:         6000000 kB\n"
        + "HugePages_Total:      16\n"
        + "HugePages_Free:       12\n"
        + "HugePages_Rsvd:        1\n"
        + "HugePages_Surp:        0\n"
        + "Hugepagesize:       2048 kB\n");
    return t;
  }

  /**
   * CPU-less memory: two sockets of four 1-thread cores, each with a DRAM node (0: CPUs 0-3, 1: CPUs
   * 4-7) and an HBM node without CPUs (2 next to node 0, 3 next to node 1), and a CXL memory expander
   * as node 4 behind socket 0. {@code access0/initiators} link each memory node to its best initiator
   * node (DRAM to itself, HBM to its socket's node, CXL to node 0), with the HMAT figures the kernel
   * puts beside the links. Memory tiers: DRAM and HBM in {@code memory_tier4}, CXL in
   * {@code memory_tier22}. Hugepages: 2 MiB pools on node 0 and on HBM node 2, a 1 GiB pool on CXL
   * node 4.
   */
  public static FixtureTree hbmAndCxl(Path root) {
    FixtureTree t = FixtureTree.at(root);
    cpuSummary(t, "0-7");
    for (int c = 0; c < 8; c++) {
      int pkg = c / 4;
      topology(t, c, pkg, c % 4, Integer.toString(c), pkg * 4 + "-" + (pkg * 4 + 3), 8);
    }
    String[] distances = {
        "10 21 13 23 14", "21 10 23 13 24", "13 23 10 25 24", "23 13 25 10 26", "14 24 24 26 10"};
    String[] cpus = {"0-3", "4-7", "", "", ""};
    long[] totalKb = {16L << 20, 16L << 20, 8L << 20, 8L << 20, 64L << 20};
    int[] initiator = {0, 1, 0, 1, 0};
    for (int n = 0; n < 5; n++) {
      node(t, n, cpus[n], distances[n], totalKb[n], totalKb[n] / 2);
      String access = NODE + "node" + n + "/access0/initiators/";
      t.symlink(access + "node" + initiator[n], "../../../node" + initiator[n])
          .value(access + "read_bandwidth", n >= 2 && n <= 3 ? 409600 : 131072)
          .value(access + "write_bandwidth", n >= 2 && n <= 3 ? 409600 : 131072)
          .value(access + "read_latency", n == 4 ? 250 : 100)
          .value(access + "write_latency", n == 4 ? 250 : 100);
    }
    t.value(NODE + "online", "0-4").value(NODE + "possible", "0-4").value(NODE + "has_cpu", "0-1")
        .value(NODE + "has_memory", "0-4").value(NODE + "has_normal_memory", "0-1");
    nodePool(t, 0, "hugepages-2048kB", 1024, 1000);
    nodePool(t, 2, "hugepages-2048kB", 512, 512);
    nodePool(t, 4, "hugepages-1048576kB", 4, 4);
    String tiers = "sys/devices/virtual/memory_tiering/";
    t.value(tiers + "memory_tier4/nodelist", "0-3").value(tiers + "memory_tier22/nodelist", "4");
    globalPool(t, "hugepages-2048kB", 1536, 1512);
    globalPool(t, "hugepages-1048576kB", 4, 4);
    t.file("proc/meminfo", "MemTotal:  117440512 kB\nMemFree:  58720256 kB\nHugepagesize:       2048 kB\n");
    return t;
  }

  private static void cpuSummary(FixtureTree t, String online) {
    t.value(CPU + "online", online).value(CPU + "possible", online).value(CPU + "present", online)
        .file(CPU + "offline", "\n");
  }

  /** A CPU's topology files, each mask with its list twin ({@code package_cpus} is {@code core_siblings}'s 5.x name). */
  private static void topology(FixtureTree t, int cpu, int packageId, int coreId, String threads, String packageCpus,
      int nrCpus) {
    String dir = CPU + "cpu" + cpu + "/topology/";
    t.value(dir + "physical_package_id", packageId).value(dir + "core_id", coreId)
        .value(dir + "thread_siblings_list", threads).value(dir + "core_cpus_list", threads)
        .value(dir + "thread_siblings", mask(threads, nrCpus)).value(dir + "core_cpus", mask(threads, nrCpus))
        .value(dir + "core_siblings_list", packageCpus).value(dir + "package_cpus_list", packageCpus)
        .value(dir + "core_siblings", mask(packageCpus, nrCpus)).value(dir + "package_cpus", mask(packageCpus, nrCpus));
  }

  private static void cache(FixtureTree t, String dir, int level, String type, String size, String map, String list) {
    t.value(dir + "level", level).value(dir + "type", type).value(dir + "size", size)
        .value(dir + "shared_cpu_map", map).file(dir + "shared_cpu_list", list.endsWith("\n") ? list : list + "\n")
        .value(dir + "coherency_line_size", 64);
  }

  /**
   * A node directory with {@code cpulist}, its mask twin {@code cpumap} (for 8 CPUs), {@code distance}
   * and {@code meminfo}, and the node's link in {@code /sys/bus/node/devices}, where the driver core
   * lists the node bus' devices (hwloc looks for nodes there).
   */
  private static void node(FixtureTree t, int id, String cpus, String distance, long totalKb, long freeKb) {
    String dir = NODE + "node" + id + "/";
    t.symlink("sys/bus/node/devices/node" + id, "../../../devices/system/node/node" + id);
    t.file(dir + "cpulist", cpus + "\n").value(dir + "cpumap", cpus.isEmpty() ? "00" : mask(cpus, 8))
        .value(dir + "distance", distance)
        .file(dir + "meminfo", "Node " + id + " MemTotal:       " + totalKb + " kB\n"
            + "Node " + id + " MemFree:        " + freeKb + " kB\n"
            + "Node " + id + " MemUsed:        " + (totalKb - freeKb) + " kB\n");
  }

  private static void nodePool(FixtureTree t, int node, String size, int nr, int free) {
    String dir = NODE + "node" + node + "/hugepages/" + size + "/";
    t.value(dir + "nr_hugepages", nr).value(dir + "free_hugepages", free).value(dir + "surplus_hugepages", 0);
  }

  private static void globalPool(FixtureTree t, String size, int nr, int free) {
    String dir = "sys/kernel/mm/hugepages/" + size + "/";
    t.value(dir + "nr_hugepages", nr).value(dir + "free_hugepages", free).value(dir + "resv_hugepages", 0)
        .value(dir + "surplus_hugepages", 0);
  }

  /** The kernel's {@code %*pb} mask of a CPU list ({@code 2-3} of 8 CPUs is {@code 0c}); at most 32 CPUs here. */
  static String mask(String list, int nrCpus) {
    long bits = 0;
    for (String part : list.split(",")) {
      String[] range = part.split("-");
      int from = Integer.parseInt(range[0]);
      int to = range.length > 1 ? Integer.parseInt(range[1]) : from;
      for (int c = from; c <= to; c++) {
        bits |= 1L << c;
      }
    }
    int digits = (nrCpus + 3) / 4;
    return String.format("%0" + digits + "x", bits);
  }
}
