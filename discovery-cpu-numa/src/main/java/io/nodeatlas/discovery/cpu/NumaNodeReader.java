package io.nodeatlas.discovery.cpu;

import io.nodeatlas.discovery.cpu.parse.DistanceParser;
import io.nodeatlas.discovery.cpu.parse.Meminfo;
import io.nodeatlas.discovery.cpu.parse.MeminfoParser;
import io.nodeatlas.discovery.topology.CpuSet;
import io.nodeatlas.discovery.topology.Topology.HugepagePool;
import io.nodeatlas.discovery.topology.Topology.NumaNodeInfo;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.Optional;
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

  static List<NumaNodeInfo> read(SysfsReader in, CpuSet onlineCpus) {
    Path nodeDir = in.fs().sys("devices/system/node");
    if (!in.isDirectory(nodeDir)) {
      return List.of();
    }
    List<Integer> directories = new ArrayList<>();
    for (Path entry : in.list(nodeDir)) {
      int id = SysfsReader.numberedEntry(entry.getFileName().toString(), "node");
      if (id >= 0) {
        directories.add(id);
      }
    }
    directories.sort(null);
    List<Integer> order = in.cpuList(nodeDir.resolve("online"))
        .map(set -> set.stream().boxed().toList())
        .orElse(directories);

    List<NumaNodeInfo> nodes = new ArrayList<>();
    for (int id : order) {
      Path dir = nodeDir.resolve("node" + id);
      if (!directories.contains(id)) {
        in.warn("NUMA node " + id + " is online but " + dir + " does not exist; node left out");
        continue;
      }
      CpuSet cpus = in.cpuListOrMask(dir, "cpulist", "cpumap")
          .orElse(CpuSet.EMPTY).intersect(onlineCpus);
      Long total = null;
      Long free = null;
      Optional<Meminfo> meminfo = in.parsed(dir.resolve("meminfo"), text -> MeminfoParser.parseNode(text, id));
      if (meminfo.isPresent()) {
        total = meminfo.get().memTotalBytes();
        free = meminfo.get().memFreeBytes();
      }
      Map<Integer, Integer> distances = in.parsed(dir.resolve("distance"), text -> DistanceParser.parse(text, order))
          .map(m -> (Map<Integer, Integer>) m)
          .orElse(Map.of());
      nodes.add(new NumaNodeInfo(id, cpus, total, free, new TreeMap<>(distances), pools(in, dir.resolve("hugepages"))));
    }
    return nodes;
  }

  /** Per-node pools have {@code nr_}, {@code free_} and {@code surplus_hugepages} but no reserved count (§3.2). */
  private static List<HugepagePool> pools(SysfsReader in, Path hugepagesDir) {
    List<HugepagePool> pools = new ArrayList<>();
    for (HugepagesReader.Pool p : HugepagesReader.readPools(in, hugepagesDir, false)) {
      pools.add(new HugepagePool(p.pageSizeBytes(), p.total(), p.free(), null, p.surplus()));
    }
    return pools;
  }
}
