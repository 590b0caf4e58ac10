package io.nodeatlas.discovery.cpu;

import io.nodeatlas.discovery.cpu.SysfsFacts.CpuSetFiles;
import io.nodeatlas.discovery.host.FactReader;
import io.nodeatlas.discovery.model.Order;
import io.nodeatlas.discovery.parse.CpuListParser;
import io.nodeatlas.discovery.topology.CpuSet;
import io.nodeatlas.discovery.topology.Topology.ClusterInfo;
import io.nodeatlas.discovery.topology.Topology.CoreInfo;
import io.nodeatlas.discovery.topology.Topology.CpuSummary;
import io.nodeatlas.discovery.topology.Topology.DieInfo;
import io.nodeatlas.discovery.topology.Topology.PackageInfo;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.BitSet;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Optional;

/**
 * Reads the CPU side of {@code /sys/devices/system/cpu} (Documentation/ABI/stable/sysfs-devices-system-cpu,
 * Documentation/admin-guide/cputopology.rst): which CPUs are possible, online and offline, and for every
 * online CPU its package, die, cluster and core. Only online CPUs have a {@code topology/} directory.
 *
 * <p>Reads one CPU per core: the first online thread of a core supplies the ids and the sibling list
 * for all its threads, and the first CPU of a package its package mask, which keeps a 128-thread node
 * at a few hundred small reads.
 *
 * <p>The sibling masks group, the ids name (as hwloc does): a core is the CPUs of one
 * {@code thread_siblings}/{@code core_cpus} mask (split by {@code core_id} only for AMD compute units,
 * below), a package the CPUs of one {@code core_siblings}/{@code package_cpus} mask; CPUs the masks
 * separate stay separate even where the kernel prints the same {@code core_id} or
 * {@code physical_package_id} for them. Ids group only on kernels without the mask files.
 */
final class CpuTopologyReader {

  /** What was read; {@code performance}/{@code efficiency} are the hybrid PMU CPU lists (empty elsewhere). */
  record CpuTopology(
      CpuSummary summary,
      List<PackageInfo> packages,
      List<DieInfo> dies,
      List<ClusterInfo> clusters,
      List<CoreInfo> cores) {}

  /**
   * A core's threads: lists before masks, the long-standing name before its 5.x twin
   * (Documentation/ABI/stable/sysfs-devices-system-cpu: {@code core_cpus} replaces {@code thread_siblings}).
   */
  private static final CpuSetFiles THREAD_SIBLINGS = CpuSetFiles.of(
      List.of("thread_siblings_list", "core_cpus_list"), List.of("thread_siblings", "core_cpus"));

  /** A package's CPUs ({@code package_cpus} replaces {@code core_siblings}); they group CPUs into packages. */
  private static final CpuSetFiles PACKAGE_SIBLINGS = CpuSetFiles.of(
      List.of("package_cpus_list", "core_siblings_list"), List.of("package_cpus", "core_siblings"));

  private CpuTopologyReader() {}

  static CpuTopology read(FactReader in) {
    Path cpuDir = in.fs().sys("devices/system/cpu");
    BitSet dirs = new BitSet();
    for (String name : in.names(cpuDir)) {
      int id = SysfsFacts.numberedEntry(name, "cpu");
      if (id >= 0) {
        dirs.set(id);
      }
    }
    // Every CPU id the kernel can have is below kernel_max + 1 (NR_CPUS), and every present or online one
    // is possible (Documentation/admin-guide/cputopology.rst): lists beyond that are clipped, with one
    // warning, before anything is read per CPU.
    Optional<Integer> kernelMax = in.readText(cpuDir.resolve("kernel_max"), SysfsFacts.ID)
        .filter(k -> k >= 0 && k < CpuListParser.MAX_ID);
    CpuSet ids = CpuSet.range(0, kernelMax.orElse(SysfsFacts.DEFAULT_CPU_IDS - 1));
    String idsLimit = kernelMax.map(k -> "kernel_max " + k).orElse("no kernel_max; at most " + SysfsFacts.DEFAULT_CPU_IDS
        + " CPUs");
    CpuSet present = SysfsFacts.within(in, cpuDir, CpuSet.fromBits(dirs), ids, "cpuN directories for CPU", idsLimit);
    // possible and online are never empty on a running kernel (Documentation/admin-guide/cputopology.rst:
    // online is "CPUs that are online and being scheduled", and we run on one); offline often is empty.
    Optional<CpuSet> possibleFile = SysfsFacts.nonEmptyList(in, cpuDir.resolve("possible"), "a possible CPU",
        "the cpuN directories stand in").map(p -> SysfsFacts.within(in, cpuDir.resolve("possible"), p, ids, "CPU", idsLimit));
    CpuSet possible = possibleFile.orElse(present);
    CpuSet canBe = possibleFile.orElse(ids);
    String canBeLimit = possibleFile.map(p -> "possible " + p).orElse(idsLimit);
    CpuSet online = SysfsFacts.nonEmptyList(in, cpuDir.resolve("online"), "an online CPU",
        "online CPUs taken from the cpuN directories and their online files")
        .map(o -> SysfsFacts.within(in, cpuDir.resolve("online"), o, canBe, "CPU", canBeLimit))
        .filter(o -> !o.isEmpty())
        .orElseGet(() -> onlineFromDirectories(in, cpuDir, present.intersect(canBe)));
    CpuSet offline = SysfsFacts.cpuList(in, cpuDir.resolve("offline"))
        .orElseGet(() -> possible.union(present).minus(online));
    CpuSummary summary = new CpuSummary(online, offline, possible);

    CpuSet performance = SysfsFacts.cpuList(in, in.fs().sys("devices/cpu_core/cpus")).orElse(CpuSet.EMPTY);
    CpuSet efficiency = SysfsFacts.cpuList(in, in.fs().sys("devices/cpu_atom/cpus")).orElse(CpuSet.EMPTY);

    Map<PackageKey, BitSet> packageCpus = new LinkedHashMap<>();
    Map<List<Object>, BitSet> dieCpus = new LinkedHashMap<>();
    Map<List<Object>, BitSet> clusterCpus = new LinkedHashMap<>();
    List<CoreInfo> cores = new ArrayList<>();
    BitSet assigned = new BitSet();
    Boolean hasDieId = null;
    Boolean hasClusterId = null;
    Boolean computeUnits = null;
    BitSet onlineBits = online.toBitSet();
    for (int cpu = onlineBits.nextSetBit(0); cpu >= 0; cpu = onlineBits.nextSetBit(cpu + 1)) {
      if (assigned.get(cpu)) {
        continue;
      }
      Path topo = cpuDir.resolve("cpu" + cpu).resolve("topology");
      int coreId = in.readText(topo.resolve("core_id"), SysfsFacts.ID).orElse(-1);
      Optional<CpuSet> siblings = SysfsFacts.first(in, topo, THREAD_SIBLINGS);
      BitSet threadBits = new BitSet();
      threadBits.set(cpu);
      if (siblings.isPresent()) {
        BitSet candidates = siblings.get().intersect(online).toBitSet();
        candidates.andNot(assigned);
        candidates.clear(cpu);
        // AMD family 15h lists both cores of a compute unit as thread siblings, with distinct
        // core_ids; a core is then the siblings that also share core_id. As hwloc does (topology-linux.c,
        // look_sysfscpu's threadwithcoreid), one sibling's core_id, read at the first core with siblings,
        // decides this for the whole machine: one extra read per run, not one per core.
        int probe = candidates.nextSetBit(0);
        if (computeUnits == null && probe >= 0 && coreId >= 0) {
          computeUnits = in.readText(cpuDir.resolve("cpu" + probe).resolve("topology/core_id"), SysfsFacts.ID)
              .orElse(coreId) != coreId;
        }
        boolean computeUnit = Boolean.TRUE.equals(computeUnits) && coreId >= 0;
        for (int s = candidates.nextSetBit(0); s >= 0; s = candidates.nextSetBit(s + 1)) {
          if (!computeUnit
              || in.readText(cpuDir.resolve("cpu" + s).resolve("topology/core_id"), SysfsFacts.ID).orElse(coreId) == coreId) {
            threadBits.set(s);
          }
        }
      }
      CpuSet threads = CpuSet.fromBits(threadBits);
      assigned.or(threadBits);
      // Without core_id and sibling lists (some fake and very old trees) the kernel names no core.
      boolean coreKnown = coreId >= 0 || siblings.isPresent();

      PackageKey pkg = maskPackage(packageCpus.keySet(), cpu);
      if (pkg == null) {
        // The first CPU of a package we have not seen: its package_cpus mask names the package's CPUs.
        Optional<CpuSet> packageSiblings = SysfsFacts.first(in, topo, PACKAGE_SIBLINGS);
        if (packageSiblings.isPresent() && !packageSiblings.get().contains(cpu)) {
          // The kernel's mask always holds the CPU it belongs to; one that does not is garbage.
          in.warn(topo, "package_cpus does not name cpu" + cpu + " itself; its package is grouped by physical_package_id");
          packageSiblings = Optional.empty();
        }
        int packageId = in.readText(topo.resolve("physical_package_id"), SysfsFacts.ID).orElse(-1);
        if (packageSiblings.isPresent()) {
          // Masks over ids (Documentation/ABI/stable/sysfs-devices-system-cpu: package_cpus is "the CPUs
          // sharing the same physical_package_id"): where a kernel prints one id for CPUs whose masks say
          // they are separate packages, the masks group and the id only names each group, as hwloc does.
          // CPUs already in an earlier package stay there, so packages never overlap.
          BitSet members = packageSiblings.get().intersect(online).toBitSet();
          for (PackageKey known : packageCpus.keySet()) {
            if (known.siblings() != null) {
              members.andNot(known.siblings().toBitSet());
            }
          }
          members.set(cpu);
          pkg = new PackageKey(packageId, CpuSet.fromBits(members));
        } else {
          // Kernels without the mask files: the id alone groups (and -1, unknown, is one package).
          pkg = new PackageKey(packageId, null);
        }
      }
      // die_id (5.x) and cluster_id (5.16+) exist for every CPU or for none: probe once, not per core.
      if (hasDieId == null) {
        hasDieId = in.exists(topo.resolve("die_id"));
        hasClusterId = in.exists(topo.resolve("cluster_id"));
      }
      int dieId = hasDieId ? in.readText(topo.resolve("die_id"), SysfsFacts.ID).orElse(-1) : -1;
      int clusterId = hasClusterId ? in.readText(topo.resolve("cluster_id"), SysfsFacts.ID).orElse(-1) : -1;

      packageCpus.computeIfAbsent(pkg, k -> new BitSet()).or(threadBits);
      if (dieId >= 0) {
        dieCpus.computeIfAbsent(List.of(pkg, dieId), k -> new BitSet()).or(threadBits);
      }
      if (clusterId >= 0) {
        clusterCpus.computeIfAbsent(List.of(pkg, clusterId), k -> new BitSet()).or(threadBits);
      }
      if (coreKnown) {
        cores.add(new CoreInfo(pkg.id(), dieId, coreId, threads, coreType(threads, performance, efficiency)));
      }
    }

    List<PackageInfo> packages = new ArrayList<>();
    packageCpus.forEach((k, bits) -> packages.add(new PackageInfo(k.id(), CpuSet.fromBits(bits))));
    packages.sort(Order.byInt(PackageInfo::id).then(PackageInfo::cpus));
    List<DieInfo> dies = new ArrayList<>();
    dieCpus.forEach((k, bits) -> dies.add(new DieInfo(((PackageKey) k.get(0)).id(), (Integer) k.get(1), CpuSet.fromBits(bits))));
    dies.sort(Order.byInt(DieInfo::packageId).thenInt(DieInfo::id).then(DieInfo::cpus));
    List<ClusterInfo> clusters = new ArrayList<>();
    clusterCpus.forEach((k, bits) ->
        clusters.add(new ClusterInfo(((PackageKey) k.get(0)).id(), (Integer) k.get(1), CpuSet.fromBits(bits))));
    clusters.sort(Order.byInt(ClusterInfo::packageId).thenInt(ClusterInfo::id)
        .then(ClusterInfo::cpus));
    return new CpuTopology(summary, packages, dies, clusters, cores);
  }

  /**
   * Kernels without {@code cpu/online} (before 2.6.2x, and some captures): a CPU is online unless its
   * {@code cpuN/online} says 0; cpu0 often has no {@code online} file because it cannot be unplugged.
   */
  private static CpuSet onlineFromDirectories(FactReader in, Path cpuDir, CpuSet present) {
    BitSet bits = new BitSet();
    present.stream().forEach(cpu -> {
      // Most CPUs lack the file (those that cannot be unplugged): absence is the usual answer here.
      Optional<Long> flag = in.readTextIfPresent(cpuDir.resolve("cpu" + cpu).resolve("online"), SysfsFacts.COUNT);
      if (flag.isEmpty() || flag.get() != 0) {
        bits.set(cpu);
      }
    });
    return CpuSet.fromBits(bits);
  }

  /**
   * The hybrid core type from the perf PMU CPU lists ({@code /sys/devices/cpu_core/cpus} for P-cores,
   * {@code /sys/devices/cpu_atom/cpus} for E-cores, as hwloc reads them); null on non-hybrid CPUs.
   */
  private static String coreType(CpuSet threads, CpuSet performance, CpuSet efficiency) {
    if (performance.containsAll(threads) && !performance.isEmpty()) {
      return CpuNumaDevices.PERFORMANCE;
    }
    if (efficiency.containsAll(threads) && !efficiency.isEmpty()) {
      return CpuNumaDevices.EFFICIENCY;
    }
    return null;
  }

  /** The package, grouped by its mask, that already holds {@code cpu}; null when none does. */
  private static PackageKey maskPackage(java.util.Set<PackageKey> known, int cpu) {
    for (PackageKey k : known) {
      if (k.siblings() != null && k.siblings().contains(cpu)) {
        return k;
      }
    }
    return null;
  }

  /**
   * A package: the online CPUs its {@code package_cpus} mask names ({@code siblings}) and the kernel's
   * id of its first CPU ({@code -1} where the kernel prints none: s390, POWER); on kernels without the
   * mask files ({@code siblings} null) the id alone. Two packages may carry the same id when the masks
   * separate CPUs the kernel gave one id; both are published under that id, ordered by their lowest
   * CPU, and devices are then named by position ({@link CpuNumaDevices#cpuDevices}).
   */
  private record PackageKey(int id, CpuSet siblings) {
    // Written out: see Topology.CacheInfo#equals for why a record hashed on the discover path does not
    // use the generated pair.
    @Override
    public boolean equals(Object o) {
      return o instanceof PackageKey other && id == other.id && java.util.Objects.equals(siblings, other.siblings);
    }

    @Override
    public int hashCode() {
      return 31 * id + java.util.Objects.hashCode(siblings);
    }
  }
}
