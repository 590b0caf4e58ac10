package io.nodeatlas.discovery.cpu;

import io.nodeatlas.discovery.cpu.parse.Meminfo;
import io.nodeatlas.discovery.cpu.parse.ReservedCpus;
import io.nodeatlas.discovery.host.Excerpt;
import io.nodeatlas.discovery.host.FactReader;
import io.nodeatlas.discovery.host.HostContext;
import io.nodeatlas.discovery.model.AttributeDoc;
import io.nodeatlas.discovery.spi.Availability;
import io.nodeatlas.discovery.spi.DiscoveryException;
import io.nodeatlas.discovery.spi.DiscoveryResult;
import io.nodeatlas.discovery.spi.DiscoverySource;
import io.nodeatlas.discovery.host.SourceSetting;
import io.nodeatlas.discovery.topology.CpuSet;
import io.nodeatlas.discovery.topology.Topology;
import io.nodeatlas.discovery.topology.Topology.CacheInfo;
import io.nodeatlas.discovery.topology.Topology.HugepageSize;
import io.nodeatlas.discovery.topology.Topology.CoreInfo;
import io.nodeatlas.discovery.topology.Topology.NumaNodeInfo;
import java.nio.file.Path;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.Optional;

/**
 * The {@code cpu-numa} source: CPUs, caches, NUMA nodes and hugepages from sysfs and procfs, published
 * as the node topology plus {@code cpu} and {@code hugepages} devices. The {@code cpu} devices carry
 * what kind of CPUs they hold (from {@code /proc/cpuinfo}, see {@link CpuIdentityReader}), count only
 * CPUs that are not {@link #RESERVED_CPUS reserved}, and are shared per NUMA node or exclusive per
 * core ({@link #CPU_DEVICES}). Stateless; every broken file becomes one warning, in
 * {@link FactReader}'s form {@code <host path>: <reason>}.
 */
public final class CpuNumaSource implements DiscoverySource {

  /** {@code auto}, {@code grouped} and {@code cores}: the values of {@link #CPU_DEVICES}. */
  public static final String AUTO = "auto";
  public static final String GROUPED = "grouped";
  public static final String CORES = "cores";

  /**
   * CPUs the node keeps for itself, in the syntax and meaning of the kubelet's {@code reservedSystemCPUs}
   * (KubeletConfiguration): never counted as allocatable. A value that is not a CPU list is bad usage.
   */
  public static final SourceSetting RESERVED_CPUS = SourceSetting.string(CpuNumaDevices.SOURCE, "reservedCpus",
      "--reserved-cpus", "NODEATLAS_RESERVED_CPUS", "",
      "CPUs never handed out, as the kubelet's reservedSystemCPUs (a CPU list like 0-1,64-65)",
      value -> ReservedCpus.parse(value).toString());

  /**
   * How CPUs become devices: shared devices per NUMA node ({@code grouped}), one exclusive device per
   * physical core ({@code cores}), or {@code auto}: grouped where the consumer can publish shared devices
   * ({@link HostContext#sharedDevicesSupported()}), else cores.
   */
  public static final SourceSetting CPU_DEVICES = SourceSetting.string(CpuNumaDevices.SOURCE, "cpuDevices",
      "--cpu-devices", "NODEATLAS_CPU_DEVICES", AUTO,
      "how CPUs are published: auto, grouped (shared devices per NUMA node) or cores (one device per physical core)",
      value -> {
        String v = value.strip().toLowerCase(java.util.Locale.ROOT);
        if (!v.equals(AUTO) && !v.equals(GROUPED) && !v.equals(CORES)) {
          throw new IllegalArgumentException("must be auto, grouped or cores, got " + Excerpt.of(value));
        }
        return v;
      });

  /**
   * Publish KEP-5517 {@code nodeAllocatableResources} mappings on cpu and hugepages devices, so the
   * scheduler and kubelet count what a claim gets in node allocatable {@code cpu} and
   * {@code hugepages-<size>} (alpha; needs the {@code DRANodeAllocatableResources} feature gate).
   */
  public static final SourceSetting NODE_ALLOCATABLE = SourceSetting.bool(CpuNumaDevices.SOURCE,
      "nodeAllocatableResources", "--node-allocatable-resources", "NODEATLAS_NODE_ALLOCATABLE_RESOURCES", false,
      "Map cpu and hugepages devices to node allocatable cpu and hugepages-<size> (KEP-5517, alpha: needs the"
          + " DRANodeAllocatableResources feature gate).");

  /**
   * Give cpu devices the list attribute {@code resource.kubernetes.io/pcieRoot}: the PCIe root complexes
   * local to their NUMA node (KEP-5491 list-type attributes, alpha; needs the {@code DRAListTypeAttributes}
   * feature gate), so one claim can align a GPU and CPUs with {@code matchAttribute}.
   */
  public static final SourceSetting PCIE_ROOTS = SourceSetting.bool(CpuNumaDevices.SOURCE, "cpuPcieRoots",
      "--cpu-pcie-roots", "NODEATLAS_CPU_PCIE_ROOTS", false,
      "Give cpu devices the PCIe roots of their NUMA node as the list attribute resource.kubernetes.io/pcieRoot"
          + " (KEP-5491, alpha: needs the DRAListTypeAttributes feature gate).");

  @Override
  public List<SourceSetting> settings() {
    return List.of(RESERVED_CPUS, CPU_DEVICES, NODE_ALLOCATABLE, PCIE_ROOTS);
  }

  @Override
  public String name() {
    return CpuNumaDevices.SOURCE;
  }

  @Override
  public String description() {
    return "CPUs, caches, NUMA nodes and hugepage pools from sysfs and procfs: shared cpu devices (or one per core)"
        + " with the CPUs' identity, and shared hugepages devices";
  }

  @Override
  public List<AttributeDoc> catalogue() {
    return CpuNumaDevices.CATALOGUE;
  }

  @Override
  public Availability availability(HostContext host) {
    Path cpuDir = host.fs().sys("devices/system/cpu");
    return host.fs().isDirectory(cpuDir)
        ? Availability.ok()
        : Availability.unavailable(host.fs().hostPath(cpuDir) + " is not a directory (is sysfs mounted at "
            + host.fs().sysfsRoot() + "?)");
  }

  /**
   * @throws DiscoveryException when {@code --reserved-cpus} names CPUs this host does not have: the
   *     kubelet refuses such a reservedSystemCPUs too, and publishing CPUs the administrator meant to keep
   *     would be worse than publishing none
   */
  /** Hugepage pools shrinking below what their devices published ({@link HugepagesHealthCheck}). */
  @Override
  public java.util.Optional<io.nodeatlas.discovery.health.HealthCheck> healthCheck(HostContext host) {
    return java.util.Optional.of(new HugepagesHealthCheck(host.fs()));
  }

  /** The OCI hook, the cgroup controllers, reserved hugepages and CPUs against the kubelet's. */
  @Override
  public java.util.Optional<io.nodeatlas.discovery.share.SharePlacer> sharePlacer(
      io.nodeatlas.discovery.share.SharePlacer.Settings settings) {
    return java.util.Optional.of(new io.nodeatlas.discovery.cpu.share.CpuSharePlacer(settings));
  }

  @Override
  public List<io.nodeatlas.discovery.doctor.DoctorCheck> doctorChecks() {
    return io.nodeatlas.discovery.cpu.doctor.CpuNumaDoctorChecks.all();
  }

  @Override
  public DiscoveryResult discover(HostContext host) throws DiscoveryException {
    CpuSet reserved;
    boolean cores;
    boolean nodeAllocatable;
    boolean pcieRoots;
    try {
      nodeAllocatable = host.options().flag(NODE_ALLOCATABLE);
      pcieRoots = host.options().flag(PCIE_ROOTS);
      reserved = host.options().get(RESERVED_CPUS).map(v -> ReservedCpus.parse(RESERVED_CPUS.validate(v)))
          .orElse(CpuSet.EMPTY);
      String mode = CPU_DEVICES.validate(host.options().get(CPU_DEVICES).orElse(AUTO));
      cores = mode.equals(CORES) || (mode.equals(AUTO) && !host.sharedDevicesSupported());
    } catch (IllegalArgumentException e) {
      throw new DiscoveryException(e.getMessage(), e);
    }
    DiscoveryResult.Builder result = new DiscoveryResult.Builder(name());
    FactReader in = new FactReader(host.fs(), result::warn);
    Read read = read(in);
    Topology topology = read.topology();
    CpuSet known = topology.cpus().possible().union(topology.cpus().online()).union(topology.cpus().offline());
    CpuSet unknown = reserved.minus(known);
    if (!unknown.isEmpty()) {
      throw new DiscoveryException(RESERVED_CPUS.flag() + " names CPUs " + unknown + " that this host does not have"
          + " (its CPUs are " + known + ")");
    }
    result.topology(topology);
    // The node 0 that stands for a kernel without NUMA is a view, not a kernel node: devices keep to what
    // the kernel says (no numaNode, one cpu device per package), like the other sources' devices there.
    Topology forDevices = read.kernelNuma() ? topology : new Topology(topology.cpus(), topology.packages(),
        topology.dies(), topology.clusters(), topology.cores(), topology.caches(), List.of(), topology.hugepages());
    List<io.nodeatlas.discovery.model.Device> devices =
        CpuNumaDevices.devices(forDevices, CpuIdentityReader.read(in), reserved, cores, result::warn);
    if (nodeAllocatable) {
      devices = CpuNumaDevices.withNodeAllocatableResources(devices);
    }
    if (pcieRoots && read.kernelNuma()) {
      devices = CpuNumaDevices.withPcieRoots(devices, PcieRootsByNode.read(in), result::warn);
    }
    devices.forEach(result::device);
    return result.build();
  }

  /** The topology as read, and whether its NUMA nodes are the kernel's (false: node 0 of a kernel without NUMA). */
  record Read(Topology topology, boolean kernelNuma) {}

  /** Reads the whole topology; warnings go to {@code in}. */
  static Topology topology(FactReader in) {
    return read(in).topology();
  }

  static Read read(FactReader in) {
    CpuTopologyReader.CpuTopology cpu = CpuTopologyReader.read(in);
    CpuSet online = cpu.summary().online();
    Map<Integer, CpuSet> coreOf = new HashMap<>();
    for (CoreInfo core : cpu.cores()) {
      core.cpus().stream().forEach(c -> coreOf.put(c, core.cpus()));
    }
    List<CacheInfo> caches = CacheReader.read(in, online, c -> coreOf.getOrDefault(c, CpuSet.of(c)));
    Optional<List<NumaNodeInfo>> kernelNodes = NumaNodeReader.read(in, online);
    Meminfo meminfo = MeminfoReader.read(in, in.fs().proc("meminfo"), "");
    List<HugepageSize> hugepages = HugepagesReader.read(in, meminfo);
    List<NumaNodeInfo> nodes = kernelNodes.orElseGet(() -> List.of(NumaNodeReader.withoutNuma(online, meminfo, hugepages)));
    return new Read(new Topology(cpu.summary(), cpu.packages(), cpu.dies(), cpu.clusters(), cpu.cores(), caches,
        nodes, hugepages), kernelNodes.isPresent());
  }
}
