package io.nodeatlas.discovery.cpu;

import io.nodeatlas.discovery.cpu.parse.DistanceParser;
import io.nodeatlas.discovery.cpu.parse.Meminfo;
import io.nodeatlas.discovery.cpu.parse.MeminfoParser;
import io.nodeatlas.discovery.host.FactReader;
import io.nodeatlas.discovery.topology.CpuSet;
import io.nodeatlas.discovery.topology.Topology.HugepagePool;
import io.nodeatlas.discovery.topology.Topology.HugepageSize;
import io.nodeatlas.discovery.topology.Topology.NumaNodeInfo;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.LinkedHashSet;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.Set;
import java.util.SortedMap;
import java.util.TreeMap;

/**
 * Reads {@code /sys/devices/system/node} (Documentation/ABI/stable/sysfs-devices-node): the online
 * nodes, and per node its CPUs ({@code cpulist}, or {@code cpumap} on old kernels) intersected with the
 * online CPUs (a node may list offline CPUs), its memory from {@code meminfo}, its {@code distance} row
 * mapped through the online-node order, its per-size hugepage pools, its best initiators
 * ({@code access1/initiators/}, else {@code access0/initiators/}) and its memory tier ({@code /sys/devices/virtual/memory_tiering},
 * Documentation/ABI/testing/sysfs-kernel-mm-memory-tiers).
 *
 * <p>A kernel without NUMA support has no {@code node} directory. Such a host still has one memory and
 * one set of CPUs, and hwloc and {@code numactl --hardware} both show it as node 0: all online CPUs,
 * {@code MemTotal}/{@code MemFree} of {@code /proc/meminfo}, the host's hugepage pools and the local
 * distance 10 (the ACPI SLIT value of a node to itself). We report the same node ({@link #withoutNuma});
 * the source keeps it out of its devices, which do not claim a NUMA node the kernel does not know (the
 * kernel gives no other device a node there either).
 */
final class NumaNodeReader {

  /** The distance of a node to itself in the ACPI SLIT, which the kernel prints as is. */
  static final int LOCAL_DISTANCE = 10;

  /** One node's facts before the initiators' CPUs are known. */
  private record Node(int id, CpuSet cpus, Meminfo meminfo, SortedMap<Integer, Integer> distances,
      List<HugepagePool> pools, List<Integer> initiators) {}

  private NumaNodeReader() {}

  /**
   * The kernel's nodes; empty when there is no usable {@code node} directory (a kernel without NUMA),
   * for {@link #withoutNuma}. A directory that exists but yields no node is the kernel's answer, an
   * empty list, with the warnings that explain it.
   */
  static Optional<List<NumaNodeInfo>> read(FactReader in, CpuSet onlineCpus) {
    Path nodeDir = in.fs().sys("devices/system/node");
    if (!SysfsFacts.directory(in, nodeDir, "the host is shown as one node 0")) {
      return Optional.empty();
    }
    return Optional.of(fromKernel(in, nodeDir, onlineCpus));
  }

  /**
   * The one node of a kernel without NUMA, as hwloc and numactl show it.
   *
   * @param hostMeminfo {@code /proc/meminfo}: the node's memory
   * @param hostPools the global hugepage pools: the node's pools
   */
  static NumaNodeInfo withoutNuma(CpuSet onlineCpus, Meminfo hostMeminfo, List<HugepageSize> hostPools) {
    List<HugepagePool> pools = new ArrayList<>();
    for (HugepageSize s : hostPools) {
      pools.add(new HugepagePool(s.pageSizeBytes(), s.total(), s.free(), s.reserved(), s.surplus()));
    }
    return new NumaNodeInfo(0, onlineCpus, hostMeminfo.memTotalBytes(), hostMeminfo.memFreeBytes(),
        new TreeMap<>(Map.of(0, LOCAL_DISTANCE)), pools);
  }

  private static List<NumaNodeInfo> fromKernel(FactReader in, Path nodeDir, CpuSet onlineCpus) {
    List<Integer> directories = new ArrayList<>();
    for (Path entry : in.list(nodeDir)) {
      int id = SysfsFacts.numberedEntry(entry.getFileName().toString(), "node");
      if (id >= 0) {
        directories.add(id);
      }
    }
    directories.sort(null);
    // node/online lists at least the node the kernel boots on (sysfs-devices-node: "Nodes that are online").
    // Node ids are below MAX_NUMNODES, and every online node is possible (sysfs-devices-node): a list
    // beyond that is clipped, with one warning, before anything is read per node.
    Optional<CpuSet> possible = SysfsFacts.nonEmptyList(in, nodeDir.resolve("possible"), "a possible node",
        "at most " + SysfsFacts.DEFAULT_NODE_IDS + " nodes are read");
    CpuSet canBe = possible.map(p -> SysfsFacts.within(in, nodeDir.resolve("possible"), p,
            CpuSet.range(0, SysfsFacts.DEFAULT_NODE_IDS - 1), "node", "at most " + SysfsFacts.DEFAULT_NODE_IDS + " nodes"))
        .orElse(CpuSet.range(0, SysfsFacts.DEFAULT_NODE_IDS - 1));
    String limit = possible.isPresent() ? "possible " + canBe : "no node/possible; at most " + SysfsFacts.DEFAULT_NODE_IDS
        + " nodes";
    directories.removeIf(id -> !canBe.contains(id));
    List<Integer> order = SysfsFacts.nonEmptyList(in, nodeDir.resolve("online"), "an online node",
            "the nodeN directories stand in")
        .map(set -> SysfsFacts.within(in, nodeDir.resolve("online"), set, canBe, "node", limit))
        .filter(set -> !set.isEmpty())
        .map(set -> set.stream().boxed().toList())
        .orElse(directories);

    Map<Integer, Integer> tiers = memoryTiers(in, Set.copyOf(order));
    List<Node> read = new ArrayList<>();
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
      SortedMap<Integer, Integer> distances = in.readText(dir.resolve("distance"), text -> DistanceParser.parse(text, order))
          .orElseGet(TreeMap::new);
      read.add(new Node(id, cpus, meminfo, distances, pools(in, dir.resolve("hugepages"), id),
          initiators(in, dir, id, order)));
    }
    Map<Integer, CpuSet> cpusOf = new HashMap<>();
    read.forEach(n -> cpusOf.put(n.id(), n.cpus()));
    List<NumaNodeInfo> nodes = new ArrayList<>();
    for (Node n : read) {
      CpuSet initiatorCpus = CpuSet.EMPTY;
      for (int i : n.initiators()) {
        initiatorCpus = initiatorCpus.union(cpusOf.getOrDefault(i, CpuSet.EMPTY));
      }
      nodes.add(new NumaNodeInfo(n.id(), n.cpus(), n.meminfo().memTotalBytes(), n.meminfo().memFreeBytes(),
          n.distances(), n.pools(), tiers.get(n.id()), n.initiators(), initiatorCpus));
    }
    return nodes;
  }

  /**
   * The best initiators of a node's memory (Documentation/ABI/stable/sysfs-devices-node: symlinks to the
   * initiator nodes with the best access; the kernel fills them from the ACPI HMAT). Access class 1
   * ({@code access1/initiators/}, kernels 5.18+) lists the best nodes with CPUs; class 0 lists the best of
   * any kind, which may be a generic initiator (an accelerator node) without CPUs. As hwloc does
   * (topology-linux.c reads access1 before access0), class 1 is used when it names an online node, else
   * class 0.
   */
  private static List<Integer> initiators(FactReader in, Path nodeDir, int id, List<Integer> online) {
    List<Integer> cpuInitiators = listedInitiators(in, nodeDir.resolve("access1").resolve("initiators"), id, online);
    return !cpuInitiators.isEmpty() ? cpuInitiators
        : listedInitiators(in, nodeDir.resolve("access0").resolve("initiators"), id, online);
  }

  /**
   * The nodes named in one {@code accessN/initiators/} directory. The entry names say which nodes; their
   * targets are not followed. A name of a node that is not online is left out with a warning: it has no
   * CPUs to be local to.
   */
  private static List<Integer> listedInitiators(FactReader in, Path dir, int id, List<Integer> online) {
    if (!SysfsFacts.directory(in, dir, "the initiators of NUMA node " + id + " left out")) {
      return List.of();
    }
    Set<Integer> out = new LinkedHashSet<>();
    for (Path entry : in.list(dir)) {
      int initiator = SysfsFacts.numberedEntry(entry.getFileName().toString(), "node");
      if (initiator < 0) {
        continue; // read_bandwidth, read_latency, ...
      }
      if (!online.contains(initiator)) {
        in.warn(entry, "names node " + initiator + ", which is not online; left out of the initiators");
        continue;
      }
      out.add(initiator);
    }
    return List.copyOf(out);
  }

  /**
   * Which memory tier lists each node: {@code memory_tierN/nodelist} under
   * {@code /sys/devices/virtual/memory_tiering} (Documentation/ABI/testing/sysfs-kernel-mm-memory-tiers;
   * a smaller N is a faster tier). Kernels before 6.1 have no such directory: no tiers, silently. A
   * node listed by two tiers (never on a sane kernel) stays in the faster one, with a warning; a node
   * that is not online is ignored.
   */
  static Map<Integer, Integer> memoryTiers(FactReader in, Set<Integer> online) {
    Path dir = in.fs().sys("devices/virtual/memory_tiering");
    Map<Integer, Integer> tierOf = new HashMap<>();
    if (!SysfsFacts.directory(in, dir, "memory tiers left out")) {
      return tierOf;
    }
    TreeMap<Integer, Path> tiers = new TreeMap<>();
    for (Path entry : in.list(dir)) {
      int tier = SysfsFacts.numberedEntry(entry.getFileName().toString(), "memory_tier");
      if (tier >= 0) {
        tiers.put(tier, entry);
      }
    }
    tiers.forEach((tier, entry) -> {
      Path list = entry.resolve("nodelist");
      SysfsFacts.cpuList(in, list).ifPresent(nodes -> nodes.stream().filter(online::contains).forEach(node -> {
        Integer before = tierOf.putIfAbsent(node, tier);
        if (before != null) {
          in.warn(list, "node " + node + " is already in memory_tier" + before + "; kept there");
        }
      }));
    });
    return tierOf;
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
