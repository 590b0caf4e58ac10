package io.nodeatlas.discovery.cpu;

import io.nodeatlas.discovery.cpu.parse.DistanceParser;
import io.nodeatlas.discovery.cpu.parse.Meminfo;
import io.nodeatlas.discovery.cpu.parse.MeminfoParser;
import io.nodeatlas.discovery.host.FactReader;
import io.nodeatlas.discovery.topology.CpuSet;
import io.nodeatlas.discovery.topology.Topology.HugepagePool;
import io.nodeatlas.discovery.topology.Topology.NumaNodeInfo;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.TreeMap;

/**
 * Reads {@code /sys/devices/system/node} (Documentation/ABI/stable/sysfs-devices-node): the online
 * nodes, and per node its CPUs ({@code cpulist}, or {@code cpumap} on old kernels) intersected with the
 * online CPUs (a node may list offline CPUs), its memory from {@code meminfo}, its {@code distance} row
 * mapped through the online-node order, and its per-size hugepage pools. A kernel without NUMA support
 * has no {@code node} directory: then the list is empty.
 */
final class NumaNodeReader {

  private NumaNodeReader() {}

  static List<NumaNodeInfo> read(FactReader in, CpuSet onlineCpus) {
    Path nodeDir = in.fs().sys("devices/system/node");
    if (!SysfsFacts.directory(in, nodeDir, "NUMA nodes left out")) {
      return List.of();
    }
    List<Integer> directories = new ArrayList<>();
    for (Path entry : in.list(nodeDir)) {
      int id = SysfsFacts.numberedEntry(entry.getFileName().toString(), "node");
      if (id >= 0) {
        directories.add(id);
      }
    }
    directories.sort(null);
    // node/online lists at least the node the kernel boots on (sysfs-devices-node: "Nodes that are online").
    List<Integer> order = SysfsFacts.nonEmptyList(in, nodeDir.resolve("online"), "an online node",
            "the nodeN directories stand in")
        .map(set -> set.stream().boxed().toList())
        .orElse(directories);

    List<NumaNodeInfo> nodes = new ArrayList<>();
    for (int id : order) {
      Path dir = nodeDir.resolve("node" + id);
      if (!SysfsFacts.requiredDirectory(in, dir, "NUMA node " + id + " (listed in node/online) left out")) {
        continue;
      }
      // A memory-only node (HBM, CXL) prints an empty cpulist: that is the empty set, not a missing
      // file. Kernels before cpulist have only the mask twin, cpumap.
      CpuSet cpus = SysfsFacts.cpuList(in, dir.resolve("cpulist"))
          .or(() -> in.readText(dir.resolve("cpumap"), SysfsFacts.CPU_MASK))
          .orElse(CpuSet.EMPTY).intersect(onlineCpus);
      Meminfo meminfo = MeminfoReader.read(in, dir.resolve("meminfo"), MeminfoParser.nodePrefix(id));
      Map<Integer, Integer> distances = in.readText(dir.resolve("distance"), text -> DistanceParser.parse(text, order))
          .map(m -> (Map<Integer, Integer>) m)
          .orElse(Map.of());
      nodes.add(new NumaNodeInfo(id, cpus, meminfo.memTotalBytes(), meminfo.memFreeBytes(), new TreeMap<>(distances),
          pools(in, dir.resolve("hugepages"), id)));
    }
    return nodes;
  }

  /**
   * Per-node pools have {@code nr_}, {@code free_} and {@code surplus_hugepages} but no reserved count
   * (Documentation/admin-guide/mm/hugetlbpage.rst, on the per-node hugepages attributes).
   */
  private static List<HugepagePool> pools(FactReader in, Path hugepagesDir, int node) {
    List<HugepagePool> pools = new ArrayList<>();
    if (!SysfsFacts.directory(in, hugepagesDir, "the hugepage pools of NUMA node " + node + " left out")) {
      return pools;
    }
    for (HugepagesReader.Pool p : HugepagesReader.readPools(in, hugepagesDir, false)) {
      pools.add(new HugepagePool(p.pageSizeBytes(), p.total(), p.free(), null, p.surplus()));
    }
    return pools;
  }
}
