package io.nodeatlas.discovery.cpu;

import io.nodeatlas.discovery.testing.FixtureTree;
import java.nio.file.Path;

/**
 * Writes a synthetic 2-socket, 128-thread node:
 * cpu {@code c} is thread {@code c / 64} of core {@code g % 32} ({@code g = c % 64}) in package
 * {@code g / 32}, die {@code (g % 32) / 16}; one NUMA node per package; 2 MiB and 1 GiB pools.
 */
final class SyntheticNode {

  static final int CPUS = 128;

  private SyntheticNode() {}

  static FixtureTree write(Path root) {
    FixtureTree t = FixtureTree.at(root);
    String cpu = "sys/devices/system/cpu/";
    t.value(cpu + "online", "0-127").value(cpu + "possible", "0-127").value(cpu + "present", "0-127")
        .file(cpu + "offline", "\n").value(cpu + "kernel_max", 8191);
    for (int c = 0; c < CPUS; c++) {
      int g = c % 64;
      int p = g / 32;
      int d = (g % 32) / 16;
      int core = g % 32;
      int first = p * 32 + core;
      String siblings = first + "," + (first + 64);
      int dieStart = p * 32 + d * 16;
      String dieCpus = dieStart + "-" + (dieStart + 15) + "," + (dieStart + 64) + "-" + (dieStart + 79);
      String packageCpus = (p * 32) + "-" + (p * 32 + 31) + "," + (p * 32 + 64) + "-" + (p * 32 + 95);
      String dir = cpu + "cpu" + c + "/";
      t.value(dir + "topology/physical_package_id", p)
          .value(dir + "topology/die_id", d)
          .value(dir + "topology/core_id", core)
          .value(dir + "topology/cluster_id", core)
          .value(dir + "topology/thread_siblings_list", siblings)
          .value(dir + "topology/core_cpus_list", siblings)
          .value(dir + "topology/cluster_cpus_list", siblings)
          .value(dir + "topology/die_cpus_list", dieCpus)
          .value(dir + "topology/package_cpus_list", packageCpus)
          .value(dir + "topology/core_siblings_list", packageCpus);
      cache(t, dir + "cache/index0/", 1, "Data", "48K", siblings, first);
      cache(t, dir + "cache/index1/", 1, "Instruction", "32K", siblings, first);
      cache(t, dir + "cache/index2/", 2, "Unified", "2048K", siblings, first);
      cache(t, dir + "cache/index3/", 3, "Unified", "49152K", dieCpus, p * 2 + d);
      if (c != 0) {
        t.value(dir + "online", 1); // cpu0 has no online file on x86
      }
      t.symlink(dir + "node" + p, "../../node/node" + p);
    }

    String node = "sys/devices/system/node/";
    for (String f : new String[] {"online", "possible", "has_cpu", "has_memory", "has_normal_memory"}) {
      t.value(node + f, "0-1");
    }
    t.value(node + "node0/cpulist", "0-31,64-95").value(node + "node1/cpulist", "32-63,96-127")
        .value(node + "node0/cpumap", "00000000,ffffffff,00000000,ffffffff")
        .value(node + "node1/cpumap", "ffffffff,00000000,ffffffff,00000000")
        .value(node + "node0/distance", "10 21").value(node + "node1/distance", "21 10");
    for (int n = 0; n < 2; n++) {
      t.file(node + "node" + n + "/meminfo",
          "Node " + n + " MemTotal:       527958016 kB\n"
              + "Node " + n + " MemFree:        500000000 kB\n"
              + "Node " + n + " HugePages_Total:  4096\n"
              + "Node " + n + " HugePages_Free:   " + (n == 0 ? 4000 : 4096) + "\n"
              + "Node " + n + " HugePages_Surp:      0\n");
    }
    pool(t, node + "node0/hugepages/hugepages-2048kB/", 4096, 4000);
    pool(t, node + "node1/hugepages/hugepages-2048kB/", 4096, 4096);
    pool(t, node + "node0/hugepages/hugepages-1048576kB/", 16, 16);
    pool(t, node + "node1/hugepages/hugepages-1048576kB/", 16, 14);

    String mm = "sys/kernel/mm/hugepages/";
    t.value(mm + "hugepages-2048kB/nr_hugepages", 8192).value(mm + "hugepages-2048kB/free_hugepages", 8096)
        .value(mm + "hugepages-2048kB/resv_hugepages", 0).value(mm + "hugepages-2048kB/surplus_hugepages", 0)
        .value(mm + "hugepages-2048kB/nr_overcommit_hugepages", 0)
        .value(mm + "hugepages-2048kB/nr_hugepages_mempolicy", 8192);
    t.value(mm + "hugepages-1048576kB/nr_hugepages", 32).value(mm + "hugepages-1048576kB/free_hugepages", 30)
        .value(mm + "hugepages-1048576kB/resv_hugepages", 0).value(mm + "hugepages-1048576kB/surplus_hugepages", 0)
        .value(mm + "hugepages-1048576kB/nr_overcommit_hugepages", 0)
        .value(mm + "hugepages-1048576kB/nr_hugepages_mempolicy", 32)
        .value(mm + "hugepages-1048576kB/demote_size", "2048kB").value(mm + "hugepages-1048576kB/demote", 0);

    t.file("proc/meminfo", """
        MemTotal:       1055916032 kB
        MemFree:        1000000000 kB
        HugePages_Total:    8192
        HugePages_Free:     8096
        HugePages_Rsvd:        0
        HugePages_Surp:        0
        Hugepagesize:       2048 kB
        Hugetlb:        50331648 kB
        """);
    t.file("proc/mounts", """
        sysfs /sys sysfs rw,nosuid,nodev,noexec,relatime 0 0
        proc /proc proc rw,nosuid,nodev,noexec,relatime 0 0
        hugetlbfs /dev/hugepages hugetlbfs rw,nosuid,nodev,relatime,pagesize=2M 0 0
        hugetlbfs /dev/hugepages-1G hugetlbfs rw,nosuid,nodev,relatime,pagesize=1024M 0 0
        """);
    return t;
  }

  private static void cache(FixtureTree t, String dir, int level, String type, String size, String shared, int id) {
    t.value(dir + "level", level).value(dir + "type", type).value(dir + "size", size)
        .value(dir + "shared_cpu_list", shared).value(dir + "id", id)
        .value(dir + "coherency_line_size", 64);
  }

  private static void pool(FixtureTree t, String dir, int nr, int free) {
    t.value(dir + "nr_hugepages", nr).value(dir + "free_hugepages", free).value(dir + "surplus_hugepages", 0);
  }
}
