package io.nodeatlas.discovery.cpu;

import io.nodeatlas.discovery.cpu.parse.HugepageSizes;
import io.nodeatlas.discovery.model.ContainerEdits;
import io.nodeatlas.discovery.model.Device;
import io.nodeatlas.discovery.model.DeviceDraft;
import io.nodeatlas.discovery.model.Names;
import io.nodeatlas.discovery.model.NodeAllocatableMapping;
import io.nodeatlas.discovery.model.Quantity;
import io.nodeatlas.discovery.model.RequestPolicy;
import io.nodeatlas.discovery.model.AttributeDoc;
import io.nodeatlas.discovery.topology.CpuSet;
import io.nodeatlas.discovery.topology.Topology;
import io.nodeatlas.discovery.topology.Topology.CoreInfo;
import io.nodeatlas.discovery.topology.Topology.HugepagePool;
import io.nodeatlas.discovery.topology.Topology.HugepageSize;
import io.nodeatlas.discovery.topology.Topology.NumaNodeInfo;
import io.nodeatlas.discovery.topology.Topology.PackageInfo;
import java.util.ArrayList;
import java.util.HashSet;
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
 * of the CPUs or bytes, within the request policy set here. In cores mode the {@code cpu} devices are
 * instead one exclusive device per physical core. Reserved CPUs are in no capacity. Pure: the same
 * topology, identities and settings always give the same devices, and {@link #CATALOGUE} documents
 * every name they carry.
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
  public static final String MEMORY_ONLY = Names.ours("memoryOnly");
  public static final String MEMORY_TIER = Names.ours("memoryTier");
  public static final String CPU_CAPACITY = Names.ours("cpu");
  public static final String RESERVED_CPUS = Names.ours("reservedCPUs");
  public static final String CORE_ID = Names.ours("coreID");
  public static final String ARCHITECTURE = Names.ours("architecture");
  public static final String VENDOR = Names.ours("vendor");
  public static final String CPU_MODEL = Names.ours("cpuModel");
  public static final String FAMILY = Names.ours("family");
  public static final String MODEL = Names.ours("model");
  public static final String STEPPING = Names.ours("stepping");
  public static final String MICROARCHITECTURE = Names.ours("microarchitecture");
  public static final String AVX2 = Names.ours("avx2");
  public static final String AVX512F = Names.ours("avx512f");
  public static final String AMX_TILE = Names.ours("amxTile");
  public static final String SVE = Names.ours("sve");

  /** The container's own CPUs, in the kernel's list syntax, and their NUMA node (cores mode). */
  public static final String CPUS_ENV = "NODEATLAS_CPUS";
  public static final String NUMA_NODE_ENV = "NODEATLAS_NUMA_NODE";
  public static final String MEMORY_CAPACITY = Names.ours("memory");

  /** The {@code nodeatlas.io/type} of the devices this source publishes. */
  public static final String CPU_TYPE = "cpu";
  public static final String HUGEPAGES_TYPE = "hugepages";

  /** Every attribute and capacity of {@code cpu} and {@code hugepages} devices. */
  public static final List<AttributeDoc> CATALOGUE = List.of(
      AttributeDoc.attribute(CPU_TYPE, TYPE, "string", "", CPU_TYPE,
          "The device type: the online CPUs of one NUMA node (one package on hosts without NUMA), shared;"
              + " in cores mode (--cpu-devices=cores) one physical core, exclusive."),
      AttributeDoc.attribute(CPU_TYPE, Names.NUMA_NODE, "int", "", "0",
          "The NUMA node the CPUs belong to (sysfs node/nodeN/cpulist); absent when the kernel has no NUMA (the"
              + " topology then shows one node 0, as hwloc and numactl do)."),
      AttributeDoc.attribute(CPU_TYPE, SOCKET, "int", "", "1",
          "The physical package (socket) id of the CPUs (topology/physical_package_id); absent when they span"
              + " packages, the kernel prints -1, or the kernel prints the same id for packages that the"
              + " package_cpus masks separate."),
      AttributeDoc.attribute(CPU_TYPE, CPU_COUNT, "int", "CPUs", "64",
          "How many online CPUs (hardware threads) the device holds, reserved ones included."),
      AttributeDoc.attribute(CPU_TYPE, RESERVED_CPUS, "int", "CPUs", "2",
          "How many of them the node keeps for itself (--reserved-cpus, as the kubelet's reservedSystemCPUs):"
              + " never allocatable, so the cpu capacity is cpuCount minus this."),
      AttributeDoc.attribute(CPU_TYPE, CORE_ID, "int", "", "17",
          "Cores mode: the core's id within its package (topology/core_id); absent when the kernel prints -1."),
      AttributeDoc.attribute(CPU_TYPE, THREADS_PER_CORE, "int", "threads", "2",
          "The most online threads of one core (topology/thread_siblings_list); absent when the kernel names no cores."),
      AttributeDoc.attribute(CPU_TYPE, SMT, "bool", "", "true",
          "Whether a core of the device has more than one online thread; false also when the kernel names no cores."),
      AttributeDoc.attribute(CPU_TYPE, CORE_TYPE, "string", "", PERFORMANCE,
          "On hybrid CPUs: performance, efficiency, or mixed when the device holds both (perf PMUs cpu_core"
              + " and cpu_atom); absent elsewhere."),
      AttributeDoc.attribute(CPU_TYPE, ARCHITECTURE, "string", "", "x86_64",
          "The kernel's machine name (uname -m: x86_64, aarch64, ppc64le, s390x), from /proc/sys/kernel/arch,"
              + " else the cpu modalias or cpuinfo; absent when neither tells (POWER without kernel.arch)."),
      AttributeDoc.attribute(CPU_TYPE, VENDOR, "string", "", "intel",
          "The CPU vendor, lower case: intel, amd, hygon, zhaoxin, centaur (x86 vendor_id); arm, ampere,"
              + " nvidia, hisilicon, fujitsu, apple, qualcomm... (arm64 CPU implementer); ibm (POWER, s390)."),
      AttributeDoc.attribute(CPU_TYPE, CPU_MODEL, "string", "", "Intel(R) Xeon(R) Gold 6230 CPU @ 2.10GHz",
          "The model name from cpuinfo (x86 model name, POWER cpu), whitespace collapsed; left out when longer"
              + " than 64 bytes or when the device's CPUs differ."),
      AttributeDoc.attribute(CPU_TYPE, FAMILY, "int", "", "6",
          "x86 only: the CPU family (cpuinfo cpu family, decimal)."),
      AttributeDoc.attribute(CPU_TYPE, MODEL, "int", "", "85",
          "x86 only: the CPU model number (cpuinfo model, decimal)."),
      AttributeDoc.attribute(CPU_TYPE, STEPPING, "int", "", "7",
          "x86 only: the CPU stepping (cpuinfo stepping)."),
      AttributeDoc.attribute(CPU_TYPE, MICROARCHITECTURE, "string", "", "cascadelake",
          "The core design where known, lower case as GCC's -march names it: Intel family 6 models"
              + " (sapphirerapids...), AMD families (zen4...), arm64 parts (neoverse-n1...), POWER (power9)."),
      AttributeDoc.attribute(CPU_TYPE, AVX2, "bool", "", "true",
          "x86 only: every CPU of the device has AVX2 (cpuinfo flags avx2)."),
      AttributeDoc.attribute(CPU_TYPE, AVX512F, "bool", "", "true",
          "x86 only: every CPU of the device has AVX-512 Foundation (cpuinfo flags avx512f)."),
      AttributeDoc.attribute(CPU_TYPE, AMX_TILE, "bool", "", "false",
          "x86 only: every CPU of the device has AMX tiles (cpuinfo flags amx_tile)."),
      AttributeDoc.attribute(CPU_TYPE, SVE, "bool", "", "false",
          "arm64 only: every CPU of the device has SVE (cpuinfo Features sve)."),
      AttributeDoc.attribute(CPU_TYPE, Names.PCIE_ROOT, "strings", "", "pci0000:00",
          "With --cpu-pcie-roots: the PCIe root complexes local to the device's NUMA node (KEP-5491 list"
              + " attribute, alpha), named as every PCI device's scalar pcieRoot, for matchAttribute with GPUs and NICs."),
      AttributeDoc.capacity(CPU_TYPE, CPU_CAPACITY, "CPUs", "64",
          "The device's online CPUs that are not reserved; shared: a claim takes 1 unless it asks for more,"
              + " from 1 to all of them in steps of 1. In cores mode the core's threads, taken whole."),
      AttributeDoc.attribute(HUGEPAGES_TYPE, TYPE, "string", "", HUGEPAGES_TYPE,
          "The device type: the hugepage pool of one page size on one NUMA node (or the host's, without"
              + " per-node pools); a container gets its own hugetlbfs mount of that page size."),
      AttributeDoc.attribute(HUGEPAGES_TYPE, Names.NUMA_NODE, "int", "", "0",
          "The NUMA node of the pool (node/nodeN/hugepages); absent for a host-wide pool on a host with several nodes."),
      AttributeDoc.attribute(HUGEPAGES_TYPE, PAGE_SIZE, "string", "", "2Mi",
          "The page size as a Kubernetes quantity, spelled like the kubelet's hugepages-2Mi resource."),
      AttributeDoc.attribute(HUGEPAGES_TYPE, PAGE_SIZE_BYTES, "int", "bytes", "2097152",
          "The page size in bytes, for numeric comparisons."),
      AttributeDoc.attribute(HUGEPAGES_TYPE, MEMORY_ONLY, "bool", "", "false",
          "Whether the pool's NUMA node has memory but no CPUs of its own (HBM, CXL or persistent memory:"
              + " node/nodeN/cpulist empty); false for a host-wide pool."),
      AttributeDoc.attribute(HUGEPAGES_TYPE, MEMORY_TIER, "int", "", "4",
          "The kernel memory tier of the pool's NUMA node (memory_tiering/memory_tierN/nodelist; a smaller N is"
              + " faster memory, DRAM is memory_tier4 on current kernels); absent without memory tiering (kernels"
              + " before 6.1) and for a host-wide pool on a host with several nodes."),
      AttributeDoc.capacity(HUGEPAGES_TYPE, MEMORY_CAPACITY, "bytes", "8589934592",
          "The pool's size (nr_hugepages times the page size); shared: a claim takes one page unless it asks"
              + " for more, in whole pages up to the pool."));

  /** Options of the container's own hugetlbfs mount; {@code pagesize=} is added per device. */
  static final List<String> HUGETLBFS_OPTIONS = List.of("rw", "nosuid", "nodev");

  private static final Quantity ONE = Quantity.of(1);

  private CpuNumaDevices() {}

  /** The devices of {@code t} in grouped mode, with no identity and nothing reserved (tests, benchmarks). */
  public static List<Device> devices(Topology t, Consumer<String> warn) {
    return devices(t, CpuIdentityReader.CpuIdentities.none(), CpuSet.EMPTY, false, warn);
  }

  /**
   * The devices of {@code t}; a value that cannot be published as read is left out with a warning.
   *
   * @param ids what kind of CPUs they are
   * @param reserved CPUs the node keeps for itself: never counted as allocatable
   * @param cores one exclusive device per physical core instead of shared devices per NUMA node
   */
  static List<Device> devices(Topology t, CpuIdentityReader.CpuIdentities ids, CpuSet reserved, boolean cores,
      Consumer<String> warn) {
    List<Device> out = new ArrayList<>();
    out.addAll(cores ? coreDevices(t, ids, reserved, warn) : cpuDevices(t, ids, reserved, warn));
    out.addAll(hugepageDevices(t, warn));
    return out;
  }

  static List<Device> cpuDevices(Topology t, CpuIdentityReader.CpuIdentities ids, CpuSet reserved, Consumer<String> warn) {
    List<Device> out = new ArrayList<>();
    CpuSet online = t.cpus().online();
    List<NumaNodeInfo> cpuNodes = t.numaNodes().stream().filter(n -> !n.cpus().isEmpty()).toList();
    if (!cpuNodes.isEmpty()) {
      for (NumaNodeInfo n : cpuNodes) {
        cpuDevice("cpu-numa" + n.id(), n.cpus(), n.id(), t, ids, reserved, warn).ifPresent(out::add);
      }
      return out;
    }
    List<PackageInfo> packages = t.packages();
    if (packages.isEmpty()) {
      if (!online.isEmpty()) {
        cpuDevice("cpu-package0", online, null, t, ids, reserved, warn).ifPresent(out::add);
      }
      return out;
    }
    boolean idsKnown = packages.stream().allMatch(p -> p.id() >= 0)
        && packages.stream().map(PackageInfo::id).distinct().count() == packages.size();
    for (int i = 0; i < packages.size(); i++) {
      PackageInfo p = packages.get(i);
      // Without kernel package ids (s390, POWER print -1) the position in CPU order names the device.
      cpuDevice("cpu-package" + (idsKnown ? p.id() : i), p.cpus(), null, t, ids, reserved, warn).ifPresent(out::add);
    }
    return out;
  }

  /**
   * A shared device of {@code cpus}. Its capacity is the CPUs a claim can get: online and not reserved. A
   * device whose CPUs are all reserved has nothing to allocate and is not published.
   */
  private static Optional<Device> cpuDevice(String name, CpuSet cpus, Integer numaNode, Topology t,
      CpuIdentityReader.CpuIdentities ids, CpuSet reserved, Consumer<String> warn) {
    CpuSet allocatable = cpus.minus(reserved);
    if (allocatable.isEmpty()) {
      return Optional.empty();
    }
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
    if (sockets.size() == 1 && namesOnePackage(t, sockets.iterator().next())) {
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
    d.attribute(RESERVED_CPUS, cpus.size() - allocatable.size());
    if (threadsPerCore > 0) {
      d.attribute(THREADS_PER_CORE, threadsPerCore);
    }
    d.attribute(SMT, threadsPerCore > 1);
    if (!types.isEmpty()) {
      d.attribute(CORE_TYPE, types.size() == 1 ? types.iterator().next() : MIXED);
    }
    identity(d, ids.of(cpus));
    // Shared by CPU count (KEP-5075): a claim that names no amount takes one CPU; any whole number up
    // to the device's allocatable CPUs may be asked for.
    Quantity all = Quantity.of(allocatable.size());
    d.capacity(CPU_CAPACITY, all, wholeUnits(ONE, all));
    return d.build();
  }

  /**
   * {@code devices} with KEP-5517 node-allocatable mappings ({@code resource.k8s.io/v1}
   * {@code Device.nodeAllocatableResources}): a shared cpu device counts the CPUs a claim consumes as node
   * allocatable {@code cpu} ({@code capacityKey} {@code nodeatlas.io/cpu}, multiplier 1); a core of cores
   * mode, taken whole, counts as its allocatable threads ({@code deviceMultiplier}); a hugepages device
   * counts the bytes a claim consumes as {@code hugepages-<size>}, the kubelet's resource of that page size.
   */
  public static List<Device> withNodeAllocatableResources(List<Device> devices) {
    List<Device> out = new ArrayList<>();
    for (Device d : devices) {
      java.util.TreeMap<String, NodeAllocatableMapping> m = new java.util.TreeMap<>();
      String type = d.type().orElse("");
      Quantity cpus = d.capacity().get(CPU_CAPACITY);
      if (type.equals(CPU_TYPE) && cpus != null) {
        m.put("cpu", d.requestPolicies().containsKey(CPU_CAPACITY)
            ? NodeAllocatableMapping.ofCapacity(CPU_CAPACITY, ONE) : NodeAllocatableMapping.perDevice(cpus));
      } else if (type.equals(HUGEPAGES_TYPE) && d.capacity().containsKey(MEMORY_CAPACITY)
          && d.attributes().get(PAGE_SIZE) instanceof io.nodeatlas.discovery.model.AttributeValue.StringValue size) {
        m.put("hugepages-" + size.value(), NodeAllocatableMapping.ofCapacity(MEMORY_CAPACITY, ONE));
      }
      out.add(m.isEmpty() ? d : d.withNodeAllocatableResources(m));
    }
    return out;
  }

  /**
   * {@code devices} whose cpu devices of one NUMA node carry {@code resource.kubernetes.io/pcieRoot} as a
   * list ({@code strings}, KEP-5491): the roots local to that node, from {@code rootsByNode}. The attribute
   * has the name and value form of every PCI device's scalar {@code pcieRoot}, so {@code matchAttribute}
   * on it aligns a GPU with CPUs. A list that would pass the API's 32 attributes or 48 values per device
   * is left out with a warning.
   */
  static List<Device> withPcieRoots(List<Device> devices, java.util.Map<Integer, List<String>> rootsByNode,
      Consumer<String> warn) {
    List<Device> out = new ArrayList<>();
    for (Device d : devices) {
      List<String> roots = d.type().filter(CPU_TYPE::equals).isPresent()
          && d.attributes().get(Names.NUMA_NODE) instanceof io.nodeatlas.discovery.model.AttributeValue.IntValue n
          ? rootsByNode.getOrDefault((int) n.value(), List.of()) : List.of();
      if (roots.isEmpty()) {
        out.add(d);
        continue;
      }
      int values = d.attributes().values().stream().mapToInt(io.nodeatlas.discovery.model.AttributeValue::valueCount).sum();
      if (d.attributes().size() + d.capacity().size() + 1 > Device.MAX_ATTRIBUTES_AND_CAPACITIES
          || values + roots.size() > io.nodeatlas.discovery.model.AttributeValue.MAX_VALUES_PER_DEVICE) {
        warn.accept("device " + d.name() + ": " + Names.PCIE_ROOT + " left out: its " + roots.size()
            + " PCIe roots do not fit the API's 32 attributes and 48 attribute values per device");
        out.add(d);
        continue;
      }
      java.util.TreeMap<String, io.nodeatlas.discovery.model.AttributeValue> attributes = new java.util.TreeMap<>(d.attributes());
      attributes.put(Names.PCIE_ROOT, io.nodeatlas.discovery.model.AttributeValue.strings(roots));
      out.add(new Device(d.name(), d.source(), attributes, d.capacity(), d.requestPolicies(), d.allowMultipleAllocations(),
          d.containerEdits(), d.nodeAllocatableResources()));
    }
    return out;
  }

  /**
   * The request policy of a capacity handed out in whole {@code unit}s up to {@code total}: one unit by
   * default, from one unit to all of them. The API rejects a step whose first increment passes the
   * capacity ({@code pkg/apis/resource/validation} validateRequestPolicyRange: "one step ... is larger
   * than capacity value"), so a capacity of exactly one unit (a NUMA node with one allocatable CPU, a
   * pool of one page) gets {@code min = max = unit} and no step, which admits the one request there is.
   */
  static RequestPolicy wholeUnits(Quantity unit, Quantity total) {
    boolean oneUnit = total.compareTo(unit) <= 0;
    return RequestPolicy.range(unit, unit, total, oneUnit ? null : unit);
  }

  /**
   * Cores mode: one exclusive device per physical core, for consumers that cannot publish shared devices
   * (an API server without KEP-5075's DRAConsumableCapacity drops allowMultipleAllocations and the request
   * policies, and a claim would then take a whole NUMA node). The scheduler counts whole devices, so a claim
   * for N cores asks for N devices. A core whose online threads are all reserved is not published.
   */
  static List<Device> coreDevices(Topology t, CpuIdentityReader.CpuIdentities ids, CpuSet reserved, Consumer<String> warn) {
    List<Device> out = new ArrayList<>();
    CpuSet online = t.cpus().online();
    List<CoreInfo> cores = t.cores();
    List<String> names = coreNames(cores);
    for (int i = 0; i < cores.size(); i++) {
      CoreInfo c = cores.get(i);
      CpuSet threads = c.cpus().intersect(online);
      CpuSet allocatable = threads.minus(reserved);
      if (allocatable.isEmpty()) {
        continue;
      }
      DeviceDraft d = DeviceDraft.of(names.get(i), SOURCE, warn).attribute(TYPE, CPU_TYPE);
      Integer node = null;
      for (NumaNodeInfo n : t.numaNodes()) {
        if (n.cpus().containsAll(threads)) {
          node = n.id();
          d.attribute(Names.NUMA_NODE, n.id());
          break;
        }
      }
      if (namesOnePackage(t, c.packageId())) {
        d.attribute(SOCKET, c.packageId());
      }
      if (c.id() >= 0) {
        d.attribute(CORE_ID, c.id());
      }
      d.attribute(CPU_COUNT, threads.size());
      d.attribute(RESERVED_CPUS, threads.size() - allocatable.size());
      d.attribute(THREADS_PER_CORE, threads.size());
      d.attribute(SMT, threads.size() > 1);
      if (c.type() != null) {
        d.attribute(CORE_TYPE, c.type());
      }
      identity(d, ids.of(threads));
      d.capacity(CPU_CAPACITY, allocatable.size());
      // The same container edits a share of a grouped device gets: its CPUs in the kernel's list syntax
      // (Documentation/admin-guide/cgroup-v2.rst, cpuset.cpus) and its NUMA node.
      ContainerEdits.Builder edits = ContainerEdits.builder().env(CPUS_ENV + "=" + allocatable);
      if (node != null) {
        edits.env(NUMA_NODE_ENV + "=" + node);
      }
      d.containerEdits(edits.build());
      d.build().ifPresent(out::add);
    }
    return out;
  }

  /**
   * Whether {@code id} is a kernel package id that names exactly one package. Where the sibling masks
   * split CPUs the kernel gave one {@code physical_package_id} into several packages, the topology keeps
   * the id on each, but as a device attribute it would make CPUs of different packages look like one
   * socket to a claim's {@code matchAttribute}; it is left out instead.
   */
  private static boolean namesOnePackage(Topology t, int id) {
    return id >= 0 && t.packages().stream().filter(p -> p.id() == id).count() == 1;
  }

  /**
   * Stable names for the cores: {@code cpu-core-<package>-<core>} from the kernel's ids; with the die
   * ({@code cpu-core-<package>-<die>-<core>}) where core ids repeat across a package's dies; and, where
   * the kernel gives no usable ids (s390 and POWER print -1), {@code cpu-core-cpu<first thread>}.
   */
  static List<String> coreNames(List<CoreInfo> cores) {
    List<String> plain = new ArrayList<>();
    List<String> withDie = new ArrayList<>();
    List<String> byCpu = new ArrayList<>();
    boolean known = true;
    for (CoreInfo c : cores) {
      known &= c.packageId() >= 0 && c.id() >= 0;
      plain.add("cpu-core-" + c.packageId() + "-" + c.id());
      withDie.add("cpu-core-" + c.packageId() + "-" + Math.max(c.dieId(), 0) + "-" + c.id());
      byCpu.add("cpu-core-cpu" + c.cpus().first());
    }
    if (known && new HashSet<>(plain).size() == plain.size()) {
      return plain;
    }
    if (known && new HashSet<>(withDie).size() == withDie.size()) {
      return withDie;
    }
    return byCpu;
  }

  /** The identity attributes, each where known; feature booleans on the ISA they belong to. */
  private static void identity(DeviceDraft d, CpuIdentity id) {
    if (id.architecture() != null) {
      d.attribute(ARCHITECTURE, id.architecture());
    }
    if (id.vendor() != null) {
      d.attribute(VENDOR, id.vendor());
    }
    if (id.modelName() != null) {
      d.attribute(CPU_MODEL, id.modelName());
    }
    if (id.family() != null) {
      d.attribute(FAMILY, id.family());
    }
    if (id.model() != null) {
      d.attribute(MODEL, id.model());
    }
    if (id.stepping() != null) {
      d.attribute(STEPPING, id.stepping());
    }
    if (id.microarchitecture() != null) {
      d.attribute(MICROARCHITECTURE, id.microarchitecture());
    }
    id.features().forEach((name, has) -> d.attribute(Names.ours(name), has));
  }

  static List<Device> hugepageDevices(Topology t, Consumer<String> warn) {
    List<Device> out = new ArrayList<>();
    boolean perNode = t.numaNodes().stream().anyMatch(n -> !n.hugepages().isEmpty());
    if (perNode) {
      for (NumaNodeInfo n : t.numaNodes()) {
        for (HugepagePool p : n.hugepages()) {
          String name = "hugepages-" + HugepageSizes.labelFragment(p.pageSizeBytes()) + "-numa" + n.id();
          hugepageDevice(name, p.pageSizeBytes(), p.total(), n, warn).ifPresent(out::add);
        }
      }
      return out;
    }
    // No per-node pools: one device per size. Its node is known only when the host has exactly one.
    NumaNodeInfo onlyNode = t.numaNodes().size() == 1 ? t.numaNodes().get(0) : null;
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
  private static Optional<Device> hugepageDevice(String name, long pageSize, long pages, NumaNodeInfo node,
      Consumer<String> warn) {
    if (pages <= 0) {
      return Optional.empty();
    }
    String quantity = HugepageSizes.quantity(pageSize);
    DeviceDraft d = DeviceDraft.of(name, SOURCE, warn)
        .attribute(TYPE, HUGEPAGES_TYPE);
    if (node != null) {
      d.attribute(Names.NUMA_NODE, node.id());
    }
    d.attribute(PAGE_SIZE, quantity).attribute(PAGE_SIZE_BYTES, pageSize);
    // Pages on HBM or CXL memory are not like pages on the CPUs' DRAM: say which kind of node holds them.
    d.attribute(MEMORY_ONLY, node != null && node.memoryOnly());
    if (node != null && node.memoryTier() != null) {
      d.attribute(MEMORY_TIER, node.memoryTier().intValue());
    }
    long bytes;
    try {
      bytes = Math.multiplyExact(pages, pageSize);
    } catch (ArithmeticException e) {
      bytes = -1;
    }
    if (bytes > 0) {
      // Shared by bytes, in whole pages (KEP-5075): hugetlbfs hands out whole pages, so the step and the
      // smallest request are one page, and a claim that names no amount takes one page.
      d.capacity(MEMORY_CAPACITY, Quantity.of(bytes), wholeUnits(Quantity.of(pageSize), Quantity.of(bytes)));
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
