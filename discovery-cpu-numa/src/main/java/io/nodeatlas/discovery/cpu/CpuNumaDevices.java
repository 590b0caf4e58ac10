package io.nodeatlas.discovery.cpu;

import io.nodeatlas.discovery.cpu.parse.HugepageSizes;
import io.nodeatlas.discovery.model.ContainerEdits;
import io.nodeatlas.discovery.model.Device;
import io.nodeatlas.discovery.model.Names;
import io.nodeatlas.discovery.topology.CpuSet;
import io.nodeatlas.discovery.topology.Topology;
import io.nodeatlas.discovery.topology.Topology.CoreInfo;
import io.nodeatlas.discovery.topology.Topology.HugepagePool;
import io.nodeatlas.discovery.topology.Topology.HugepageSize;
import io.nodeatlas.discovery.topology.Topology.NumaNodeInfo;
import io.nodeatlas.discovery.topology.Topology.PackageInfo;
import java.util.ArrayList;
import java.util.List;
import java.util.Set;
import java.util.TreeSet;

/**
 * Derives the published devices from a {@link Topology}: one {@code cpu} device per NUMA node with
 * online CPUs (per package when the kernel shows no NUMA), as kubernetes-sigs/dra-driver-cpu groups
 * them, and one hugepages device per NUMA node and page size, as dra-driver-memory does
 * (rdma-nic-hugepages.md §3.6). Pure: the same topology always gives the same devices.
 */
public final class CpuNumaDevices {

  public static final String SOURCE = "cpu-numa";
  public static final String PERFORMANCE = "performance";
  public static final String EFFICIENCY = "efficiency";
  public static final String MIXED = "mixed";

  public static final String TYPE = Names.ours("type");
  public static final String SOCKET = Names.ours("socket");
  public static final String CPU_COUNT = Names.ours("cpuCount");
  public static final String SMT = Names.ours("smt");
  public static final String THREADS_PER_CORE = Names.ours("threadsPerCore");
  public static final String CORE_TYPE = Names.ours("coreType");
  public static final String PAGE_SIZE = Names.ours("pageSize");
  public static final String PAGE_SIZE_BYTES = Names.ours("pageSizeBytes");
  public static final String CPU_CAPACITY = Names.ours("cpu");
  public static final String PAGES_CAPACITY = Names.ours("pages");
  public static final String MEMORY_CAPACITY = Names.ours("memory");

  /** Options of the container's own hugetlbfs mount; {@code pagesize=} is added per device. */
  static final List<String> HUGETLBFS_OPTIONS = List.of("rw", "nosuid", "nodev");

  private CpuNumaDevices() {}

  public static List<Device> devices(Topology t) {
    List<Device> out = new ArrayList<>();
    out.addAll(cpuDevices(t));
    out.addAll(hugepageDevices(t));
    return out;
  }

  static List<Device> cpuDevices(Topology t) {
    List<Device> out = new ArrayList<>();
    CpuSet online = t.cpus().online();
    List<NumaNodeInfo> cpuNodes = t.numaNodes().stream().filter(n -> !n.cpus().isEmpty()).toList();
    if (!cpuNodes.isEmpty()) {
      for (NumaNodeInfo n : cpuNodes) {
        out.add(cpuDevice("cpu-numa" + n.id(), n.cpus(), n.id(), t));
      }
      return out;
    }
    List<PackageInfo> packages = t.packages();
    if (packages.isEmpty()) {
      if (!online.isEmpty()) {
        out.add(cpuDevice("cpu-package0", online, null, t));
      }
      return out;
    }
    boolean idsKnown = packages.stream().allMatch(p -> p.id() >= 0)
        && packages.stream().map(PackageInfo::id).distinct().count() == packages.size();
    for (int i = 0; i < packages.size(); i++) {
      PackageInfo p = packages.get(i);
      // Without kernel package ids (s390, POWER print -1) the position in CPU order names the device.
      out.add(cpuDevice("cpu-package" + (idsKnown ? p.id() : i), p.cpus(), null, t));
    }
    return out;
  }

  private static Device cpuDevice(String name, CpuSet cpus, Integer numaNode, Topology t) {
    Device.Builder b = Device.builder(name, SOURCE).attribute(TYPE, "cpu");
    if (numaNode != null) {
      b.attribute(Names.NUMA_NODE, numaNode);
    }
    Set<Integer> sockets = new TreeSet<>();
    for (PackageInfo p : t.packages()) {
      if (!p.cpus().intersect(cpus).isEmpty()) {
        sockets.add(p.id());
      }
    }
    if (sockets.size() == 1 && sockets.iterator().next() >= 0) {
      b.attribute(SOCKET, sockets.iterator().next());
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
    b.attribute(CPU_COUNT, cpus.size());
    if (threadsPerCore > 0) {
      b.attribute(THREADS_PER_CORE, threadsPerCore);
      b.attribute(SMT, threadsPerCore > 1);
    }
    if (!types.isEmpty()) {
      b.attribute(CORE_TYPE, types.size() == 1 ? types.iterator().next() : MIXED);
    }
    b.capacity(CPU_CAPACITY, cpus.size());
    return b.build();
  }

  static List<Device> hugepageDevices(Topology t) {
    List<Device> out = new ArrayList<>();
    boolean perNode = t.numaNodes().stream().anyMatch(n -> !n.hugepages().isEmpty());
    if (perNode) {
      for (NumaNodeInfo n : t.numaNodes()) {
        for (HugepagePool p : n.hugepages()) {
          String name = "hugepages-" + HugepageSizes.labelFragment(p.pageSizeBytes()) + "-numa" + n.id();
          out.add(hugepageDevice(name, p.pageSizeBytes(), p.total(), n.id(), t));
        }
      }
      return out;
    }
    // No per-node pools: one device per size. Its node is known only when the host has exactly one.
    Integer onlyNode = t.numaNodes().size() == 1 ? t.numaNodes().get(0).id() : null;
    for (HugepageSize s : t.hugepages()) {
      String name = "hugepages-" + HugepageSizes.labelFragment(s.pageSizeBytes());
      out.add(hugepageDevice(name, s.pageSizeBytes(), s.total(), onlyNode, t));
    }
    return out;
  }

  private static Device hugepageDevice(String name, long pageSize, long pages, Integer numaNode, Topology t) {
    Device.Builder b = Device.builder(name, SOURCE)
        .attribute(TYPE, "hugepages")
        .attribute(PAGE_SIZE, HugepageSizes.quantity(pageSize))
        .attribute(PAGE_SIZE_BYTES, pageSize)
        .capacity(PAGES_CAPACITY, pages)
        .capacity(MEMORY_CAPACITY, multiplyOrMax(pages, pageSize));
    if (numaNode != null) {
      b.attribute(Names.NUMA_NODE, numaNode);
    }
    // A fresh hugetlbfs instance of the matching page size in each container (CDI mount with
    // hostPath "nodev", rdma-nic-hugepages.md §3.6 (a)): unlike a bind mount of the host's
    // /dev/hugepages it shares no files between pods and needs no host mount to exist.
    String quantity = HugepageSizes.quantity(pageSize);
    String containerPath = "/dev/hugepages-" + quantity;
    List<String> options = new ArrayList<>(HUGETLBFS_OPTIONS);
    options.add("pagesize=" + (quantity.endsWith("i") ? quantity.substring(0, quantity.length() - 1) : quantity));
    b.containerEdits(ContainerEdits.builder()
        .env("NODEATLAS_HUGEPAGES_" + quantity.toUpperCase(java.util.Locale.ROOT) + "=" + containerPath)
        .mount(new ContainerEdits.Mount("nodev", containerPath, "hugetlbfs", options))
        .build());
    return b.build();
  }

  private static long multiplyOrMax(long a, long b) {
    try {
      return Math.multiplyExact(a, b);
    } catch (ArithmeticException e) {
      return Long.MAX_VALUE;
    }
  }
}
