package io.nodeatlas.discovery.topology;

import io.nodeatlas.discovery.model.Order;
import java.util.Comparator;
import java.util.List;
import java.util.Locale;
import java.util.SortedMap;
import java.util.TreeMap;
import java.util.Collections;

/**
 * The node's CPU, cache, NUMA and hugepage layout as sysfs shows it. Every list is sorted by its
 * natural key so that the {@code discover} output is byte-stable. Values a host does not expose are
 * null and left out of the output rather than invented.
 */
public record Topology(
    CpuSummary cpus,
    List<PackageInfo> packages,
    List<DieInfo> dies,
    List<ClusterInfo> clusters,
    List<CoreInfo> cores,
    List<CacheInfo> caches,
    List<NumaNodeInfo> numaNodes,
    List<HugepageSize> hugepages,
    PciTree pci) {

  public static final Topology EMPTY =
      new Topology(new CpuSummary(CpuSet.EMPTY, CpuSet.EMPTY, CpuSet.EMPTY), List.of(), List.of(), List.of(),
          List.of(), List.of(), List.of(), List.of());

  /** A CPU/NUMA view without a PCI tree (the CPU source's part; discovery attaches the tree later). */
  public Topology(CpuSummary cpus, List<PackageInfo> packages, List<DieInfo> dies, List<ClusterInfo> clusters,
      List<CoreInfo> cores, List<CacheInfo> caches, List<NumaNodeInfo> numaNodes, List<HugepageSize> hugepages) {
    this(cpus, packages, dies, clusters, cores, caches, numaNodes, hugepages, PciTree.EMPTY);
  }

  public Topology {
    pci = pci == null ? PciTree.EMPTY : pci;
    packages = sorted(packages, Order.byInt(PackageInfo::id));
    dies = sorted(dies, Order.byInt(DieInfo::packageId).thenInt(DieInfo::id));
    clusters = sorted(clusters, Order.byInt(ClusterInfo::packageId).thenInt(ClusterInfo::id));
    cores = sorted(cores, Order.byInt(CoreInfo::packageId).thenInt(CoreInfo::dieId)
        .thenInt(CoreInfo::id).then(CoreInfo::cpus));
    caches = sorted(caches, Order.byInt(CacheInfo::level).then(CacheInfo::type)
        .then(CacheInfo::cpus));
    numaNodes = sorted(numaNodes, Order.byInt(NumaNodeInfo::id));
    hugepages = sorted(hugepages, Order.byLong(HugepageSize::pageSizeBytes));
  }

  /** This topology with {@code tree} as its PCI tree. */
  public Topology withPci(PciTree tree) {
    return new Topology(cpus, packages, dies, clusters, cores, caches, numaNodes, hugepages, tree);
  }

  private static <T> List<T> sorted(List<T> list, Comparator<? super T> order) {
    return list.stream().sorted(order).toList();
  }

  /** {@code /sys/devices/system/cpu/{online,offline,possible}}. */
  public record CpuSummary(CpuSet online, CpuSet offline, CpuSet possible) {}

  /** A physical package (socket) and its online CPUs. */
  public record PackageInfo(int id, CpuSet cpus) {}

  /** A die; ids are unique only within a package. */
  public record DieInfo(int packageId, int id, CpuSet cpus) {}

  /** A cluster (kernel 5.16+ {@code cluster_id}); ids are unique only within a package. */
  public record ClusterInfo(int packageId, int id, CpuSet cpus) {}

  /**
   * A physical core and its hardware threads. {@code type} is {@code performance} or {@code efficiency}
   * on hybrid CPUs and null elsewhere.
   */
  public record CoreInfo(int packageId, int dieId, int id, CpuSet cpus, String type) {}

  /** Cache types as sysfs {@code cache/indexN/type} names them. */
  public enum CacheType {
    DATA,
    INSTRUCTION,
    UNIFIED;

    /** The name in the report: the constant in lower case, as {@link io.nodeatlas.discovery.report.SourceStatus.State}'s. */
    public String jsonName() {
      return name().toLowerCase(Locale.ROOT);
    }

    public static CacheType fromJson(String name) {
      for (CacheType t : values()) {
        if (t.jsonName().equals(name)) {
          return t;
        }
      }
      throw new IllegalArgumentException("unknown cache type \"" + name + "\"");
    }
  }

  /** One cache instance: the CPUs that share it. */
  public record CacheInfo(int level, CacheType type, long sizeBytes, CpuSet cpus) {
    /*
     * equals and hashCode are written out, with the generated ones' meaning (all components), because
     * cache instances are deduplicated in a hash set on every discover run. A record's generated pair
     * is bound at its first call through an invokedynamic bootstrap (java.lang.runtime.ObjectMethods)
     * that the JDK's AOT cache does not link ahead of time (JEP 483 links lambdas and string
     * concatenation only): a cold start spins its method-handle classes and then runs every call
     * through a method-handle chain in the interpreter.
     */
    @Override
    public boolean equals(Object o) {
      return o instanceof CacheInfo other && level == other.level && type == other.type
          && sizeBytes == other.sizeBytes && java.util.Objects.equals(cpus, other.cpus);
    }

    @Override
    public int hashCode() {
      return ((31 * level + java.util.Objects.hashCode(type)) * 31 + Long.hashCode(sizeBytes)) * 31
          + java.util.Objects.hashCode(cpus);
    }
  }

  /**
   * A NUMA node. {@code cpus} is empty for memory-only nodes (HBM, CXL, persistent memory);
   * {@code distances} maps node id to the SLIT distance; memory figures are null when the node has no
   * readable meminfo.
   *
   * <p>{@code memoryTier} is the id of the kernel memory tier that lists this node
   * ({@code /sys/devices/virtual/memory_tiering/memory_tierN/nodelist}, Documentation/ABI/testing/sysfs-kernel-mm-memory-tiers),
   * null where the kernel has no memory tiering. {@code initiatorNodes} are the nodes named by
   * {@code nodeN/access0/initiators/} (Documentation/ABI/stable/sysfs-devices-node, the HMAT
   * "best initiator" links) and {@code initiatorCpus} the online CPUs of those nodes: for a memory-only
   * node, the CPUs it is local to. Both are empty where the kernel does not say.
   */
  public record NumaNodeInfo(
      int id,
      CpuSet cpus,
      Long memoryTotalBytes,
      Long memoryFreeBytes,
      SortedMap<Integer, Integer> distances,
      List<HugepagePool> hugepages,
      Integer memoryTier,
      List<Integer> initiatorNodes,
      CpuSet initiatorCpus) {
    public NumaNodeInfo {
      distances = Collections.unmodifiableSortedMap(new TreeMap<>(distances));
      hugepages = hugepages.stream().sorted(Order.byLong(HugepagePool::pageSizeBytes)).toList();
      initiatorNodes = initiatorNodes == null ? List.of() : initiatorNodes.stream().sorted().distinct().toList();
      initiatorCpus = initiatorCpus == null ? CpuSet.EMPTY : initiatorCpus;
    }

    /** A node without tier or initiator facts. */
    public NumaNodeInfo(int id, CpuSet cpus, Long memoryTotalBytes, Long memoryFreeBytes,
        SortedMap<Integer, Integer> distances, List<HugepagePool> hugepages) {
      this(id, cpus, memoryTotalBytes, memoryFreeBytes, distances, hugepages, null, List.of(), CpuSet.EMPTY);
    }

    /** True for a node with memory but no CPUs of its own (HBM, CXL, persistent memory). */
    public boolean memoryOnly() {
      return cpus.isEmpty();
    }
  }

  /** A hugepage pool of one page size: {@code nr_hugepages}, {@code free_}, {@code resv_}, {@code surplus_hugepages}. */
  public record HugepagePool(long pageSizeBytes, long total, long free, Long reserved, long surplus) {}

  /** A page size, its global pool and the hugetlbfs mounts that serve it. */
  public record HugepageSize(
      long pageSizeBytes, long total, long free, Long reserved, long surplus, List<String> mounts) {
    public HugepageSize {
      mounts = mounts.stream().sorted().distinct().toList();
    }
  }
}
