package io.nodeatlas.discovery.cpu.testing;

import io.nodeatlas.discovery.model.ContainerEdits;
import io.nodeatlas.discovery.model.Device;
import io.nodeatlas.discovery.model.Names;
import io.nodeatlas.discovery.model.Quantity;
import io.nodeatlas.discovery.model.RequestPolicy;
import io.nodeatlas.discovery.topology.CpuSet;
import io.nodeatlas.discovery.topology.Topology;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.TreeMap;

/**
 * A two-node machine for the share tests of this module and the agent's (published in this module's
 * test jar): node 0 has CPUs 0-7 and their SMT siblings 16-23 (cores {0,16}..{7,23}, two L3 caches of
 * four cores each), node 1 has 8-15 and 24-31. Hugepage pools of 2 MiB pages on both.
 */
public final class TwoNodeMachine {

  private TwoNodeMachine() {}

  public static Topology topology() {
    List<Topology.CoreInfo> cores = new ArrayList<>();
    for (int c = 0; c < 16; c++) {
      cores.add(new Topology.CoreInfo(c / 8, 0, c % 8, CpuSet.of(c, c + 16), null));
    }
    List<Topology.CacheInfo> caches = List.of(
        new Topology.CacheInfo(3, Topology.CacheType.UNIFIED, 32L << 20, CpuSet.range(0, 3).union(CpuSet.range(16, 19))),
        new Topology.CacheInfo(3, Topology.CacheType.UNIFIED, 32L << 20, CpuSet.range(4, 7).union(CpuSet.range(20, 23))),
        new Topology.CacheInfo(3, Topology.CacheType.UNIFIED, 32L << 20, CpuSet.range(8, 11).union(CpuSet.range(24, 27))),
        new Topology.CacheInfo(3, Topology.CacheType.UNIFIED, 32L << 20, CpuSet.range(12, 15).union(CpuSet.range(28, 31))));
    List<Topology.NumaNodeInfo> nodes = List.of(
        new Topology.NumaNodeInfo(0, CpuSet.range(0, 7).union(CpuSet.range(16, 23)), 1L << 34, 1L << 33, new TreeMap<>(Map.of(0, 10, 1, 21)),
            List.of(new Topology.HugepagePool(2L << 20, 512, 512, 0L, 0))),
        new Topology.NumaNodeInfo(1, CpuSet.range(8, 15).union(CpuSet.range(24, 31)), 1L << 34, 1L << 33, new TreeMap<>(Map.of(0, 21, 1, 10)),
            List.of(new Topology.HugepagePool(2L << 20, 512, 512, 0L, 0))));
    List<Topology.PackageInfo> packages = List.of(
        new Topology.PackageInfo(0, nodes.get(0).cpus()), new Topology.PackageInfo(1, nodes.get(1).cpus()));
    return new Topology(new Topology.CpuSummary(CpuSet.range(0, 31), CpuSet.EMPTY, CpuSet.range(0, 31)), packages,
        List.of(), List.of(), cores, caches, nodes, List.of());
  }

  /** The cpu device of {@code node}; {@code cpusEnv} as the source states its allocatable CPUs (null: not stated). */
  public static Device cpuDevice(int node, String cpusEnv) {
    CpuSet all = topology().numaNodes().get(node).cpus();
    CpuSet allocatable = cpusEnv == null ? all : io.nodeatlas.discovery.parse.CpuListParser.parse(cpusEnv);
    ContainerEdits.Builder edits = ContainerEdits.builder();
    if (cpusEnv != null) {
      edits.env("NODEATLAS_CPUS=" + cpusEnv).env("NODEATLAS_NUMA_NODE=" + node);
    }
    Quantity n = Quantity.of(allocatable.size());
    return Device.builder("cpu-numa" + node, "cpu-numa")
        .attribute(Device.TYPE, "cpu")
        .attribute(Names.NUMA_NODE, node)
        .allowMultipleAllocations(true)
        .capacity(Names.ours("cpu"), n, RequestPolicy.range(Quantity.of(1), Quantity.of(1), n, Quantity.of(1)))
        .containerEdits(edits.build())
        .build();
  }

  public static Device hugepages(int node, long pages) {
    Quantity page = Quantity.of(2L << 20);
    Quantity all = Quantity.of(pages * (2L << 20));
    return Device.builder("hugepages-2mi-numa" + node, "cpu-numa")
        .attribute(Device.TYPE, "hugepages")
        .attribute(Names.NUMA_NODE, node)
        .attribute(Names.ours("pageSize"), "2Mi")
        .attribute(Names.ours("pageSizeBytes"), 2L << 20)
        .allowMultipleAllocations(true)
        .capacity(Names.ours("memory"), all, RequestPolicy.range(page, page, all, page))
        .containerEdits(ContainerEdits.builder()
            .env("NODEATLAS_HUGEPAGES_2MI=/dev/hugepages-2Mi")
            .mount(new ContainerEdits.Mount("nodev", "/dev/hugepages-2Mi", "hugetlbfs", List.of("rw", "nosuid", "nodev", "pagesize=2M")))
            .build())
        .build();
  }
}
