package io.nodeatlas.discovery.cpu.share;

import io.nodeatlas.discovery.topology.CpuSet;
import io.nodeatlas.discovery.topology.Topology;
import java.util.ArrayList;
import java.util.Comparator;
import java.util.List;

/**
 * The CPUs a shared {@code cpu} device may hand out, grouped as the hardware groups them: physical
 * cores (the SMT siblings of {@code topology/thread_siblings_list} together, Documentation/ABI/stable/sysfs-devices-system-cpu)
 * and, above them, the last-level cache instance (L3) or, where the kernel shows none, the package.
 * Pure data: built from the allocatable set and the node's topology, never from the host.
 *
 * @param cores every core with at least one allocatable CPU, only its allocatable CPUs, in CPU order
 */
public record CpuLayout(CpuSet allocatable, List<Core> cores) {

  /** One physical core's allocatable CPUs, and the cache/package group it sits in. */
  public record Core(int index, int group, CpuSet cpus) {}

  public CpuLayout {
    cores = List.copyOf(cores);
  }

  /**
   * The layout of {@code allocatable} on {@code topology}. A CPU that no core of the topology names
   * (a snapshot without core facts) is a core of its own; a core without a cache or package fact is in
   * group -1.
   */
  public static CpuLayout of(CpuSet allocatable, Topology topology) {
    List<CpuSet> coreSets = new ArrayList<>();
    CpuSet seen = CpuSet.EMPTY;
    for (Topology.CoreInfo c : topology.cores()) {
      CpuSet mine = c.cpus().intersect(allocatable).minus(seen);
      if (!mine.isEmpty()) {
        coreSets.add(mine);
        seen = seen.union(mine);
      }
    }
    allocatable.minus(seen).stream().forEach(cpu -> coreSets.add(CpuSet.of(cpu)));
    coreSets.sort(Comparator.comparingInt(CpuSet::first));
    List<Topology.CacheInfo> l3 = topology.caches().stream()
        .filter(c -> c.level() == 3 && c.type() != Topology.CacheType.INSTRUCTION).toList();
    List<Core> cores = new ArrayList<>();
    for (CpuSet cpus : coreSets) {
      cores.add(new Core(cores.size(), groupOf(cpus.first(), l3, topology), cpus));
    }
    return new CpuLayout(allocatable, cores);
  }

  private static int groupOf(int cpu, List<Topology.CacheInfo> l3, Topology t) {
    for (int i = 0; i < l3.size(); i++) {
      if (l3.get(i).cpus().contains(cpu)) {
        return i;
      }
    }
    for (Topology.PackageInfo p : t.packages()) {
      if (p.cpus().contains(cpu)) {
        // Apart from cache indices, which start at 0.
        return 1_000_000 + Math.max(p.id(), 0);
      }
    }
    return -1;
  }
}
