package io.nodeatlas.discovery.cpu;

import io.nodeatlas.discovery.cpu.parse.HugepageSizes;
import io.nodeatlas.discovery.model.ContainerEdits;
import io.nodeatlas.discovery.model.Device;
import io.nodeatlas.discovery.model.DeviceDraft;
import io.nodeatlas.discovery.model.Names;
import io.nodeatlas.discovery.model.Quantity;
import io.nodeatlas.discovery.model.RequestPolicy;
import io.nodeatlas.discovery.spi.AttributeDoc;
import io.nodeatlas.discovery.topology.CpuSet;
import io.nodeatlas.discovery.topology.Topology;
import io.nodeatlas.discovery.topology.Topology.CoreInfo;
import io.nodeatlas.discovery.topology.Topology.HugepagePool;
import io.nodeatlas.discovery.topology.Topology.HugepageSize;
import io.nodeatlas.discovery.topology.Topology.NumaNodeInfo;
import io.nodeatlas.discovery.topology.Topology.PackageInfo;
import java.util.ArrayList;
import java.util.List;
import java.util.Locale;
import java.util.Optional;
import java.util.Set;
import java.util.TreeSet;
import java.util.function.Consumer;

/**
 * Derives the published devices from a {@link Topology}: one {@code cpu} device per NUMA node with
 * online CPUs (per package when the kernel shows no NUMA), as kubernetes-sigs/dra-driver-cpu groups
 * them, and one {@code hugepages} device per NUMA node and page size with pages in its pool. Both are
 * shared devices (KEP-5075 consumable capacity, {@code allowMultipleAllocations}): a claim takes some
 * of the CPUs or bytes, within the request policy set here. Pure: the same topology always gives the
 * same devices, and {@link #CATALOGUE} documents every name they carry.
 */
public final class CpuNumaDevices {

  public static final String SOURCE = "cpu-numa";
  public static final String PERFORMANCE = "performance";
  public static final String EFFICIENCY = "efficiency";
  public static final String MIXED = "mixed";

  public static final String TYPE = Device.TYPE;
  public static final String SOCKET = Names.ours("socket");
  public static final String CPU_COUNT = Names.ours("cpuCount");
  public static final String SMT = Names.ours("smt");
  public static final String THREADS_PER_CORE = Names.ours("threadsPerCore");
  public static final String CORE_TYPE = Names.ours("coreType");
  public static final String PAGE_SIZE = Names.ours("pageSize");
  public static final String PAGE_SIZE_BYTES = Names.ours("pageSizeBytes");
  public static final String CPU_CAPACITY = Names.ours("cpu");
  public static final String MEMORY_CAPACITY = Names.ours("memory");

  /** The {@code nodeatlas.io/type} of the devices this source publishes. */
  public static final String CPU_TYPE = "cpu";
  public static final String HUGEPAGES_TYPE = "hugepages";

  /** Every attribute and capacity of {@code cpu} and {@code hugepages} devices. */
  public static final List<AttributeDoc> CATALOGUE = List.of(
      AttributeDoc.attribute(CPU_TYPE, TYPE, "string", "", CPU_TYPE,
          "The device type: the online CPUs of one NUMA node (one package on hosts without NUMA)."),
      AttributeDoc.attribute(CPU_TYPE, Names.NUMA_NODE, "int", "", "0",
          "The NUMA node the CPUs belong to (sysfs node/nodeN/cpulist); absent when the kernel shows no NUMA nodes."),
      AttributeDoc.attribute(CPU_TYPE, SOCKET, "int", "", "1",
          "The physical package (socket) id of the CPUs (topology/physical_package_id); absent when they span"
              + " packages or the kernel prints -1."),
      AttributeDoc.attribute(CPU_TYPE, CPU_COUNT, "int", "CPUs", "64",
          "How many online CPUs (hardware threads) the device holds."),
      AttributeDoc.attribute(CPU_TYPE, THREADS_PER_CORE, "int", "threads", "2",
          "The most online threads of one core (topology/thread_siblings_list); absent when the kernel names no cores."),
      AttributeDoc.attribute(CPU_TYPE, SMT, "bool", "", "true",
          "Whether a core of the device has more than one online thread; false also when the kernel names no cores."),
      AttributeDoc.attribute(CPU_TYPE, CORE_TYPE, "string", "", PERFORMANCE,
          "On hybrid CPUs: performance, efficiency, or mixed when the device holds both (perf PMUs cpu_core"
              + " and cpu_atom); absent elsewhere."),
      AttributeDoc.capacity(CPU_TYPE, CPU_CAPACITY, "CPUs", "64",
          "The online CPUs of the device; shared: a claim takes 1 unless it asks for more, from 1 to cpuCount"
              + " in steps of 1."),
      AttributeDoc.attribute(HUGEPAGES_TYPE, TYPE, "string", "", HUGEPAGES_TYPE,
          "The device type: the hugepage pool of one page size on one NUMA node (or the host's, without"
              + " per-node pools); a container gets its own hugetlbfs mount of that page size."),
      AttributeDoc.attribute(HUGEPAGES_TYPE, Names.NUMA_NODE, "int", "", "0",
          "The NUMA node of the pool (node/nodeN/hugepages); absent for a host-wide pool on a host with several nodes."),
      AttributeDoc.attribute(HUGEPAGES_TYPE, PAGE_SIZE, "string", "", "2Mi",
          "The page size as a Kubernetes quantity, spelled like the kubelet's hugepages-2Mi resource."),
      AttributeDoc.attribute(HUGEPAGES_TYPE, PAGE_SIZE_BYTES, "int", "bytes", "2097152",
          "The page size in bytes, for numeric comparisons."),
      AttributeDoc.capacity(HUGEPAGES_TYPE, MEMORY_CAPACITY, "bytes", "8589934592",
          "The pool's size (nr_hugepages times the page size); shared: a claim takes one page unless it asks"
              + " for more, in whole pages up to the pool."));

  /** Options of the container's own hugetlbfs mount; {@code pagesize=} is added per device. */
  static final List<String> HUGETLBFS_OPTIONS = List.of("rw", "nosuid", "nodev");

  private static final Quantity ONE = Quantity.of(1);

  private CpuNumaDevices() {}

  /** The devices of {@code t}; a value that cannot be published as read is left out with a warning. */
  public static List<Device> devices(Topology t, Consumer<String> warn) {
    List<Device> out = new ArrayList<>();
    out.addAll(cpuDevices(t, warn));
    out.addAll(hugepageDevices(t, warn));
    return out;
  }

  static List<Device> cpuDevices(Topology t, Consumer<String> warn) {
    List<Device> out = new ArrayList<>();
    CpuSet online = t.cpus().online();
    List<NumaNodeInfo> cpuNodes = t.numaNodes().stream().filter(n -> !n.cpus().isEmpty()).toList();
    if (!cpuNodes.isEmpty()) {
      for (NumaNodeInfo n : cpuNodes) {
        cpuDevice("cpu-numa" + n.id(), n.cpus(), n.id(), t, warn).ifPresent(out::add);
      }
      return out;
    }
    List<PackageInfo> packages = t.packages();
    if (packages.isEmpty()) {
      if (!online.isEmpty()) {
        cpuDevice("cpu-package0", online, null, t, warn).ifPresent(out::add);
      }
      return out;
    }
    boolean idsKnown = packages.stream().allMatch(p -> p.id() >= 0)
        && packages.stream().map(PackageInfo::id).distinct().count() == packages.size();
    for (int i = 0; i < packages.size(); i++) {
      PackageInfo p = packages.get(i);
      // Without kernel package ids (s390, POWER print -1) the position in CPU order names the device.
      cpuDevice("cpu-package" + (idsKnown ? p.id() : i), p.cpus(), null, t, warn).ifPresent(out::add);
    }
    return out;
  }

  private static Optional<Device> cpuDevice(String name, CpuSet cpus, Integer numaNode, Topology t, Consumer<String> warn) {
    DeviceDraft d = DeviceDraft.of(name, SOURCE, warn).attribute(TYPE, CPU_TYPE);
    if (numaNode != null) {
      d.attribute(Names.NUMA_NODE, numaNode);
    }
    Set<Integer> sockets = new TreeSet<>();
    for (PackageInfo p : t.packages()) {
      if (!p.cpus().intersect(cpus).isEmpty()) {
        sockets.add(p.id());
      }
    }
    if (sockets.size() == 1 && sockets.iterator().next() >= 0) {
      d.attribute(SOCKET, sockets.iterator().next());
    }
    int threadsPerCore = 0;
    Set<String> types = new TreeSet<>();
    for (CoreInfo c : t.cores()) {
      CpuSet mine = c.cpus().intersect(cpus);
      if (mine.isEmpty()) {
        continue;
      }
      threadsPerCore = Math.max(threadsPerCore, mine.size());
      if (c.type() != null) {
        types.add(c.type());
      }
    }
    d.attribute(CPU_COUNT, cpus.size());
    if (threadsPerCore > 0) {
      d.attribute(THREADS_PER_CORE, threadsPerCore);
    }
    d.attribute(SMT, threadsPerCore > 1);
    if (!types.isEmpty()) {
      d.attribute(CORE_TYPE, types.size() == 1 ? types.iterator().next() : MIXED);
    }
    // Shared by CPU count (KEP-5075): a claim that names no amount takes one CPU; any whole number up
    // to the device's CPUs may be asked for.
    Quantity all = Quantity.of(cpus.size());
    d.capacity(CPU_CAPACITY, all, RequestPolicy.range(ONE, ONE, all, ONE));
    return d.build();
  }

  static List<Device> hugepageDevices(Topology t, Consumer<String> warn) {
    List<Device> out = new ArrayList<>();
    boolean perNode = t.numaNodes().stream().anyMatch(n -> !n.hugepages().isEmpty());
    if (perNode) {
      for (NumaNodeInfo n : t.numaNodes()) {
        for (HugepagePool p : n.hugepages()) {
          String name = "hugepages-" + HugepageSizes.labelFragment(p.pageSizeBytes()) + "-numa" + n.id();
          hugepageDevice(name, p.pageSizeBytes(), p.total(), n.id(), warn).ifPresent(out::add);
        }
      }
      return out;
    }
    // No per-node pools: one device per size. Its node is known only when the host has exactly one.
    Integer onlyNode = t.numaNodes().size() == 1 ? t.numaNodes().get(0).id() : null;
    for (HugepageSize s : t.hugepages()) {
      String name = "hugepages-" + HugepageSizes.labelFragment(s.pageSizeBytes());
      hugepageDevice(name, s.pageSizeBytes(), s.total(), onlyNode, warn).ifPresent(out::add);
    }
    return out;
  }

  /**
   * A pool with no pages is not a device: nothing could be allocated from it (nr_hugepages is 0 until an
   * administrator reserves pages; Documentation/admin-guide/mm/hugetlbpage.rst). It stays in the topology.
   */
  private static Optional<Device> hugepageDevice(String name, long pageSize, long pages, Integer numaNode,
      Consumer<String> warn) {
    if (pages <= 0) {
      return Optional.empty();
    }
    String quantity = HugepageSizes.quantity(pageSize);
    DeviceDraft d = DeviceDraft.of(name, SOURCE, warn)
        .attribute(TYPE, HUGEPAGES_TYPE);
    if (numaNode != null) {
      d.attribute(Names.NUMA_NODE, numaNode);
    }
    d.attribute(PAGE_SIZE, quantity).attribute(PAGE_SIZE_BYTES, pageSize);
    long bytes;
    try {
      bytes = Math.multiplyExact(pages, pageSize);
    } catch (ArithmeticException e) {
      bytes = -1;
    }
    if (bytes > 0) {
      // Shared by bytes, in whole pages (KEP-5075): hugetlbfs hands out whole pages, so the step and the
      // smallest request are one page, and a claim that names no amount takes one page.
      Quantity page = Quantity.of(pageSize);
      d.capacity(MEMORY_CAPACITY, Quantity.of(bytes), RequestPolicy.range(page, page, Quantity.of(bytes), page));
    } else {
      warn.accept("device " + name + ": " + MEMORY_CAPACITY + " left out: " + pages + " pages of " + quantity
          + " are more bytes than a 64-bit count holds");
    }
    // A fresh hugetlbfs instance of the matching page size in each container (a CDI mount with hostPath
    // "nodev"): unlike a bind mount of the host's /dev/hugepages it shares no files between pods and
    // needs no host mount to exist.
    String containerPath = "/dev/hugepages-" + quantity;
    List<String> options = new ArrayList<>(HUGETLBFS_OPTIONS);
    options.add("pagesize=" + (quantity.endsWith("i") ? quantity.substring(0, quantity.length() - 1) : quantity));
    d.containerEdits(ContainerEdits.builder()
        .env("NODEATLAS_HUGEPAGES_" + quantity.toUpperCase(Locale.ROOT) + "=" + containerPath)
        .mount(new ContainerEdits.Mount("nodev", containerPath, "hugetlbfs", options))
        .build());
    return d.build();
  }
}
