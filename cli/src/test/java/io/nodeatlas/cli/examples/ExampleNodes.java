package io.nodeatlas.cli.examples;

import io.nodeatlas.discovery.gpu.MigPartitions;
import io.nodeatlas.discovery.model.AttributeValue;
import io.nodeatlas.discovery.model.ContainerEdits;
import io.nodeatlas.discovery.model.Device;
import io.nodeatlas.discovery.model.Names;
import io.nodeatlas.discovery.model.Quantity;
import io.nodeatlas.discovery.model.RequestPolicy;
import io.nodeatlas.discovery.pci.PciAddress;
import io.nodeatlas.discovery.pci.PciTreeBuilder;
import io.nodeatlas.discovery.pci.PciTreeBuilder.RawNode;
import io.nodeatlas.discovery.pci.PcieSwitches;
import io.nodeatlas.discovery.report.HostInfo;
import io.nodeatlas.discovery.report.NodeReport;
import io.nodeatlas.discovery.report.NodeReportCodec;
import io.nodeatlas.discovery.report.SourceStatus;
import io.nodeatlas.discovery.topology.CpuSet;
import io.nodeatlas.discovery.topology.PciTree;
import io.nodeatlas.discovery.topology.Topology;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.TreeMap;

/**
 * The saved {@code discover} documents of {@code examples/nodes/}: the synthetic HGX-like node of
 * the synthetic HGX-like node (two Intel sockets, 8 H100 GPUs of which one is in MIG mode, ConnectX-7 RDMA
 * functions under the GPUs' PCIe roots, CPUs and hugepage pools per NUMA node as the cpu-numa source
 * publishes them, shared with request policies) and a one-socket Arm node. The CPU identity
 * attributes ({@code architecture}, {@code vendor}, {@code cpuModel}) are written here by hand, as the
 * cpu-numa source publishes them once it reads CPU identity. {@link ExamplesTest} keeps the files equal
 * to these objects (regenerate with {@code -Dnodeatlas.examples.write=true}).
 */
final class ExampleNodes {

  static final String TYPE = Names.ours("type");
  static final String PCIE_SWITCH = PcieSwitches.ATTRIBUTE;
  private static final long GIB = 1L << 30;
  private static final long MIB = 1L << 20;

  /** Address, PCIe root and PCIe switch (the upstream port of the switch both GPUs of a root share). */
  private static final String[][] GPUS = {
      {"0000:18:00.0", "pci0000:15", "0000:16:00.0"}, {"0000:19:00.0", "pci0000:15", "0000:16:00.0"},
      {"0000:3a:00.0", "pci0000:37", "0000:38:00.0"}, {"0000:3b:00.0", "pci0000:37", "0000:38:00.0"},
      {"0000:9a:00.0", "pci0000:97", "0000:98:00.0"}, {"0000:9b:00.0", "pci0000:97", "0000:98:00.0"},
      {"0000:ba:00.0", "pci0000:b7", "0000:b8:00.0"}, {"0000:bb:00.0", "pci0000:b7", "0000:b8:00.0"},
  };

  private ExampleNodes() {}

  /** File name → document. */
  static Map<String, String> documents() {
    NodeReportCodec codec = new NodeReportCodec();
    Map<String, String> out = new TreeMap<>();
    out.put("hgx-01.json", codec.toJson(hgx()));
    out.put("arm-01.json", codec.toJson(arm()));
    out.put("h200-mig.json", codec.toJson(h200()));
    return out;
  }

  /**
   * File name → document of {@code examples/gpu/nodes/}: nodes of one GPU story, kept out of {@code examples/nodes/}
   * so the fleet of the README's fleet section stays as it is.
   */
  static Map<String, String> gpuDocuments() {
    NodeReportCodec codec = new NodeReportCodec();
    Map<String, String> out = new TreeMap<>();
    out.put("a100-shared.json", codec.toJson(a100Shared()));
    return out;
  }

  /**
   * File name → document of {@code examples/fleet/nodes/}, the other half of the small mixed fleet of the
   * README's fleet section: an RDMA node without GPUs (two AMD sockets, a RoCE ConnectX-7 on each) and a
   * CPU-only node (one Intel socket).
   */
  static Map<String, String> fleetDocuments() {
    NodeReportCodec codec = new NodeReportCodec();
    Map<String, String> out = new TreeMap<>();
    out.put("rdma-01.json", codec.toJson(rdmaNode()));
    out.put("cpu-01.json", codec.toJson(cpuNode()));
    return out;
  }

  static NodeReport rdmaNode() {
    List<Device> d = new ArrayList<>();
    d.add(rdma("mlx5_0", "0000:41:00.0", "pci0000:40", null, 0, "ethernet", "roce", "enp65s0np0"));
    d.add(rdma("mlx5_1", "0000:c1:00.0", "pci0000:c0", null, 1, "ethernet", "roce", "enp193s0np0"));
    for (int node = 0; node < 2; node++) {
      d.add(cpu(node, node, 96, 2, "x86_64", "amd", "AMD EPYC 9454 48-Core Processor"));
      d.add(hugepages(node, 2 * MIB, "2Mi", 8192));
    }
    return report("rdma-01", Topology.EMPTY, d, List.of("cpu-numa", "nic-rdma"));
  }

  static NodeReport cpuNode() {
    List<Device> d = new ArrayList<>();
    d.add(cpu(0, 0, 32, 2, "x86_64", "intel", "Intel(R) Xeon(R) Gold 6430"));
    d.add(hugepages(0, 2 * MIB, "2Mi", 1024));
    return report("cpu-01", Topology.EMPTY, d, List.of("cpu-numa"));
  }

  static NodeReport hgx() {
    List<Device> d = new ArrayList<>();
    for (int i = 0; i < GPUS.length; i++) {
      d.add(gpu(i, i == 7));
    }
    d.add(mig(7, 1, "3g.40gb", 40_802_189_312L));
    d.add(mig(7, 2, "3g.40gb", 40_802_189_312L));
    d.add(rdma("mlx5_0", "0000:1a:00.0", "pci0000:15", "0000:16:00.0", 0, "ethernet", "roce", "enp26s0np0"));
    d.add(rdma("mlx5_1", "0000:3c:00.0", "pci0000:37", "0000:38:00.0", 0, "infiniband", "infiniband", "ibp60s0"));
    d.add(rdma("mlx5_2", "0000:9c:00.0", "pci0000:97", null, 1, "ethernet", "roce", "enp156s0np0"));
    for (int node = 0; node < 2; node++) {
      d.add(cpu(node, node, 64, 2, "x86_64", "intel", "Intel(R) Xeon(R) Platinum 8480+"));
      d.add(hugepages(node, 2 * MIB, "2Mi", 4096));
      d.add(hugepages(node, GIB, "1Gi", 16));
    }
    return report("hgx-01", cpuTopology(2, 32, 2, 512 * GIB, 105 * MIB, List.of(new long[] {2 * MIB, 4096}, new long[] {GIB, 16}))
        .withPci(hgxPciTree(d)), d, List.of("cpu-numa", "gpu", "nic-rdma"));
  }

  /**
   * The CPU and NUMA part, as the cpu-numa source reads it: {@code packages} packages of one NUMA node
   * each, {@code cores} cores a package with {@code threads} threads a core (Linux numbers the second
   * threads after all first ones), an L3 cache per package, and per node its memory and hugepage
   * pools ({@code {pageSize, pages}}).
   */
  static Topology cpuTopology(int packages, int cores, int threads, long memoryPerNode, long l3, List<long[]> pools) {
    int total = packages * cores * threads;
    List<Topology.PackageInfo> pkgs = new ArrayList<>();
    List<Topology.CoreInfo> coreList = new ArrayList<>();
    List<Topology.CacheInfo> caches = new ArrayList<>();
    List<Topology.NumaNodeInfo> nodes = new ArrayList<>();
    for (int p = 0; p < packages; p++) {
      CpuSet pkg = CpuSet.EMPTY;
      for (int c = 0; c < cores; c++) {
        CpuSet core = CpuSet.EMPTY;
        for (int t = 0; t < threads; t++) {
          core = core.union(CpuSet.of(t * packages * cores + p * cores + c));
        }
        coreList.add(new Topology.CoreInfo(p, 0, c, core, null));
        pkg = pkg.union(core);
      }
      pkgs.add(new Topology.PackageInfo(p, pkg));
      caches.add(new Topology.CacheInfo(3, Topology.CacheType.UNIFIED, l3, pkg));
      java.util.SortedMap<Integer, Integer> distances = new TreeMap<>();
      for (int q = 0; q < packages; q++) {
        distances.put(q, q == p ? 10 : 21);
      }
      List<Topology.HugepagePool> nodePools = new ArrayList<>();
      for (long[] pool : pools) {
        nodePools.add(new Topology.HugepagePool(pool[0], pool[1], pool[1], 0L, 0));
      }
      nodes.add(new Topology.NumaNodeInfo(p, pkg, memoryPerNode, memoryPerNode - memoryPerNode / 16, distances, nodePools));
    }
    List<Topology.HugepageSize> sizes = new ArrayList<>();
    for (long[] pool : pools) {
      sizes.add(new Topology.HugepageSize(pool[0], pool[1] * packages, pool[1] * packages, 0L, 0,
          List.of("/dev/hugepages")));
    }
    CpuSet online = CpuSet.range(0, total - 1);
    return new Topology(new Topology.CpuSummary(online, CpuSet.EMPTY, online), pkgs, List.of(), List.of(), coreList,
        caches, nodes, sizes);
  }

  /**
   * The PCI tree of hgx-01, as {@code /sys/devices/pci*} would nest it: under each of the four host
   * bridges, root port {@code :01.0} holds a PCIe switch whose downstream ports hold the root's two GPUs
   * and, under the first two, its ConnectX-7; {@code mlx5_2} sits on root port
   * {@code 0000:97:03.0} of its own, beside the switch rather than behind it.
   */
  static PciTree hgxPciTree(List<Device> devices) {
    List<RawNode> hostBridges = new ArrayList<>();
    int[] roots = {0x15, 0x37, 0x97, 0xb7};
    for (int r = 0; r < roots.length; r++) {
      int bus = roots[r];
      int numa = r < 2 ? 0 : 1;
      List<RawNode> downstream = new ArrayList<>();
      downstream.add(bridge(bus + 2, 0, numa, List.of(function(bus + 3, GPU_CLASS, "10de", "2330", numa))));
      downstream.add(bridge(bus + 2, 1, numa, List.of(function(bus + 4, GPU_CLASS, "10de", "2330", numa))));
      List<RawNode> rootPorts = new ArrayList<>();
      if (r < 2) {
        downstream.add(bridge(bus + 2, 2, numa, List.of(function(bus + 5, RDMA_CLASS, "15b3", "1021", numa))));
      }
      if (r == 2) {
        rootPorts.add(new RawNode(String.format("0000:%02x:03.0", bus), false, "8086", "352a", BRIDGE_CLASS, numa,
            List.of(function(bus + 5, RDMA_CLASS, "15b3", "1021", numa))));
      }
      RawNode upstream = new RawNode(String.format("0000:%02x:00.0", bus + 1), false, "1000", "c030", BRIDGE_CLASS, numa,
          downstream);
      rootPorts.add(new RawNode(String.format("0000:%02x:01.0", bus), false, "8086", "352a", BRIDGE_CLASS, numa,
          List.of(upstream)));
      hostBridges.add(new RawNode(String.format("pci0000:%02x", bus), true, null, null, null, null, rootPorts));
    }
    Map<String, PciAddress> functions = new TreeMap<>();
    for (Device d : devices) {
      d.attribute(Names.PCI_BUS_ID).ifPresent(v -> functions.put(d.name(), PciAddress.parse((String) v.asObject())));
    }
    List<String> warnings = new ArrayList<>();
    PciTree tree = PciTreeBuilder.build(hostBridges, functions, warnings::add);
    if (!warnings.isEmpty()) {
      throw new IllegalStateException("hgx-01's PCI tree: " + warnings);
    }
    return tree;
  }

  private static final String BRIDGE_CLASS = "060400";
  private static final String GPU_CLASS = "030200";
  private static final String RDMA_CLASS = "020700";

  private static RawNode bridge(int bus, int device, int numa, List<RawNode> below) {
    return new RawNode(String.format("0000:%02x:%02x.0", bus, device), false, "1000", "c030", BRIDGE_CLASS, numa, below);
  }

  private static RawNode function(int bus, String classCode, String vendor, String device, int numa) {
    return new RawNode(String.format("0000:%02x:00.0", bus), false, vendor, device, classCode, numa, List.of());
  }

  /**
   * One H200 in MIG mode published as partitionable devices ({@code --gpu-mig-partitions}, KEP-4815): the
   * counters and partitions come from the gpu source's own {@link MigPartitions}, fed with the profiles and
   * placements NVML read on a real H200 (docs/design/gpu-mig-profiles-h200.md).
   */
  static NodeReport h200() {
    Device whole = Device.builder("gpu-0", "gpu")
        .attribute(TYPE, "gpu")
        .attribute(Names.ours("productName"), "NVIDIA H200")
        .attribute(Names.ours("brand"), "nvidia")
        .attribute(Names.ours("architecture"), "hopper")
        .attribute(Names.ours("uuid"), "GPU-00000000-0000-4000-8000-000000000200")
        .attribute(Names.ours("cudaComputeCapability"), AttributeValue.version("9.0.0"))
        .attribute(Names.ours("driverVersion"), AttributeValue.version("580.159.4"))
        .attribute(Names.ours("minor"), 0)
        .attribute(Names.ours("migEnabled"), true)
        .attribute(Names.NUMA_NODE, 0)
        .attribute(Names.PCI_BUS_ID, "0000:00:06.0")
        .capacity(Names.ours("memory"), 150_754_820_096L)
        .containerEdits(ContainerEdits.builder()
            .deviceNode(ContainerEdits.DeviceNode.charDevice("/dev/nvidia0", 195, 0).withPermissions("rw"))
            .deviceNode(ContainerEdits.DeviceNode.charDevice("/dev/nvidiactl", 195, 255).withPermissions("rw"))
            .build())
        .build();
    // index, id, name, compute slices, instances, SMs, CE, DEC, ENC, JPEG, OFA, MiB, placements (start, size)...
    Object[][] table = {
        {0, 19, "MIG 1g.18gb", 1, 7, 16, 1, 1, 0, 1, 0, 16384L, new int[] {0, 1, 1, 1, 2, 1, 3, 1, 4, 1, 5, 1, 6, 1}},
        {1, 14, "MIG 2g.35gb", 2, 3, 32, 2, 2, 0, 2, 0, 33280L, new int[] {0, 2, 2, 2, 4, 2}},
        {2, 9, "MIG 3g.71gb", 3, 2, 60, 3, 3, 0, 3, 0, 71424L, new int[] {0, 4, 4, 4}},
        {3, 5, "MIG 4g.71gb", 4, 1, 64, 4, 4, 0, 4, 0, 71424L, new int[] {0, 4}},
        {4, 0, "MIG 7g.141gb", 7, 1, 132, 8, 7, 0, 7, 1, 143360L, new int[] {0, 8}},
        {7, 20, "MIG 1g.18gb+me", 1, 1, 16, 1, 1, 0, 1, 1, 16384L, new int[] {0, 1, 1, 1, 2, 1, 3, 1, 4, 1, 5, 1, 6, 1}},
        {9, 15, "MIG 1g.35gb", 1, 4, 26, 1, 1, 0, 1, 0, 33280L, new int[] {0, 2, 2, 2, 4, 2, 6, 2}},
    };
    List<MigPartitions.Profile> profiles = new ArrayList<>();
    for (Object[] r : table) {
      int[] pl = (int[]) r[12];
      List<io.nodeatlas.discovery.gpu.nvml.NvmlSession.Placement> placements = new ArrayList<>();
      for (int i = 0; i < pl.length; i += 2) {
        placements.add(new io.nodeatlas.discovery.gpu.nvml.NvmlSession.Placement(pl[i], pl[i + 1]));
      }
      profiles.add(new MigPartitions.Profile(new io.nodeatlas.discovery.gpu.nvml.NvmlSession.GpuInstanceProfile((int) r[0], (int) r[1], (int) r[3], (int) r[4],
          (int) r[5], (int) r[6], (int) r[7], (int) r[8], (int) r[9], (int) r[10], (long) r[11], (String) r[2]),
          placements));
    }
    List<String> warnings = new ArrayList<>();
    MigPartitions.Published p = MigPartitions.build(0, whole, profiles, warnings::add)
        .orElseThrow(() -> new IllegalStateException("h200-mig: " + warnings));
    List<Device> d = new ArrayList<>();
    d.add(whole.withCounters(List.of(p.counters()), List.of(p.whole())));
    d.addAll(p.partitions());
    return report("h200-mig", cpuTopology(1, 16, 2, 256 * GIB, 32 * MIB, List.of()), d, List.of("gpu"));
  }

  /**
   * One A100 80GB (81920 MiB, as NVML reports it) published for several claims ({@code --gpu-multiple-allocations},
   * KEP-5075): the gpu source's own {@link io.nodeatlas.discovery.gpu.SharedGpus} makes its memory a consumable
   * capacity whose request policy defaults to all of it.
   */
  static NodeReport a100Shared() {
    Device whole = Device.builder("gpu-0", "gpu")
        .attribute(TYPE, "gpu")
        .attribute(Names.ours("productName"), "NVIDIA A100-SXM4-80GB")
        .attribute(Names.ours("brand"), "nvidia")
        .attribute(Names.ours("architecture"), "ampere")
        .attribute(Names.ours("uuid"), "GPU-00000000-0000-4000-8000-000000000100")
        .attribute(Names.ours("cudaComputeCapability"), AttributeValue.version("8.0.0"))
        .attribute(Names.ours("driverVersion"), AttributeValue.version("550.54.15"))
        .attribute(Names.ours("minor"), 0)
        .attribute(Names.ours("migEnabled"), false)
        .attribute(Names.NUMA_NODE, 0)
        .attribute(Names.PCI_BUS_ID, "0000:68:00.0")
        .capacity(Names.ours("memory"), 81920 * MIB)
        .containerEdits(ContainerEdits.builder()
            .deviceNode(ContainerEdits.DeviceNode.charDevice("/dev/nvidia0", 195, 0).withPermissions("rw"))
            .deviceNode(ContainerEdits.DeviceNode.charDevice("/dev/nvidiactl", 195, 255).withPermissions("rw"))
            .build())
        .build();
    Device shared = io.nodeatlas.discovery.gpu.SharedGpus.shared(whole).orElseThrow();
    return report("a100-shared", cpuTopology(1, 16, 2, 256 * GIB, 32 * MIB, List.of()), List.of(shared), List.of("gpu"));
  }

  static NodeReport arm() {
    List<Device> d = List.of(cpu(0, 0, 80, 1, "aarch64", "arm", "Neoverse-N1"), hugepages(0, 2 * MIB, "2Mi", 1024));
    return report("arm-01", cpuTopology(1, 80, 1, 256 * GIB, 32 * MIB, List.of(new long[] {2 * MIB, 1024})), d,
        List.of("cpu-numa"));
  }

  private static NodeReport report(String host, Topology topology, List<Device> devices, List<String> sources) {
    Map<String, SourceStatus> status = new TreeMap<>();
    sources.forEach(s -> status.put(s, SourceStatus.OK));
    return new NodeReport(NodeReport.SCHEMA_VERSION, new HostInfo(host, "6.8.0-example", "/"), topology,
        devices, List.of(), status);
  }

  static Device gpu(int index, boolean mig) {
    return Device.builder("gpu-" + index, "gpu")
        .attribute(TYPE, "gpu")
        .attribute(Names.ours("productName"), "NVIDIA H100 80GB HBM3")
        .attribute(Names.ours("brand"), "nvidia")
        .attribute(Names.ours("architecture"), "hopper")
        .attribute(Names.ours("uuid"), String.format("GPU-00000000-0000-4000-8000-%012d", index))
        .attribute(Names.ours("cudaComputeCapability"), AttributeValue.version("9.0.0"))
        .attribute(Names.ours("driverVersion"), AttributeValue.version("550.54.15"))
        .attribute(Names.ours("index"), index)
        .attribute(Names.ours("migEnabled"), mig)
        .attribute(Names.NUMA_NODE, index < 4 ? 0 : 1)
        .attribute(Names.PCIE_ROOT, GPUS[index][1])
        .attribute(PCIE_SWITCH, GPUS[index][2])
        .attribute(Names.PCI_BUS_ID, GPUS[index][0])
        .attribute(Names.ours("pciVendorID"), "10de")
        .attribute(Names.ours("pciDeviceID"), "2330")
        .capacity(Names.ours("memory"), 85_520_809_984L)
        // The GPU's own node and the control node, as the gpu source's edits name them (major 195).
        .containerEdits(ContainerEdits.builder()
            .deviceNode(ContainerEdits.DeviceNode.charDevice("/dev/nvidia" + index, 195, index).withPermissions("rw"))
            .deviceNode(ContainerEdits.DeviceNode.charDevice("/dev/nvidiactl", 195, 255).withPermissions("rw"))
            .build())
        .build();
  }

  static Device mig(int gpu, int gi, String profile, long memory) {
    return Device.builder("gpu-" + gpu + "-mig-" + gi + "-0", "gpu")
        .attribute(TYPE, "mig")
        .attribute(Names.ours("productName"), "NVIDIA H100 80GB HBM3")
        .attribute(Names.ours("profile"), profile)
        .attribute(Names.ours("parentUUID"), String.format("GPU-00000000-0000-4000-8000-%012d", gpu))
        .attribute(Names.ours("uuid"), String.format("MIG-00000000-0000-4000-8000-%06d%06d", gpu, gi))
        .attribute(Names.NUMA_NODE, gpu < 4 ? 0 : 1)
        .attribute(Names.PCIE_ROOT, GPUS[gpu][1])
        .attribute(PCIE_SWITCH, GPUS[gpu][2])
        .capacity(Names.ours("memory"), memory)
        .build();
  }

  static Device rdma(String ibdev, String bdf, String root, String pcieSwitch, int numa, String linkLayer,
      String transport, String ifName) {
    Device.Builder b = Device.builder("rdma-" + ibdev.replace('_', '-'), "nic-rdma");
    if (pcieSwitch != null) {
      b.attribute(PCIE_SWITCH, pcieSwitch);
    }
    return b
        .attribute(TYPE, "rdma")
        .attribute(Names.ours("rdmaDevice"), ibdev)
        .attribute(Names.ours("ifName"), ifName)
        .attribute(Names.ours("linkLayer"), linkLayer)
        .attribute(Names.ours("transport"), transport)
        .attribute(Names.ours("kernelDriver"), "mlx5_core")
        .attribute(Names.ours("pciVendorID"), "15b3")
        .attribute(Names.ours("pciDeviceID"), "1021")
        .attribute(Names.ours("portState"), "active")
        .attribute(Names.ours("rateGbps"), 400)
        .attribute(Names.ours("firmwareVersion"), "28.39.1002")
        .attribute(Names.NUMA_NODE, numa)
        .attribute(Names.PCIE_ROOT, root)
        .attribute(Names.PCI_BUS_ID, bdf)
        // The function's verbs node (major 231, minors from 192), as the nic-rdma source's edits name it.
        .containerEdits(ContainerEdits.builder()
            .deviceNode(ContainerEdits.DeviceNode.charDevice("/dev/infiniband/uverbs" + ibdev.substring(ibdev.indexOf('_') + 1),
                231, 192 + Integer.parseInt(ibdev.substring(ibdev.indexOf('_') + 1))).withPermissions("rw"))
            .build())
        .build();
  }

  /** One NUMA node's CPUs, shared: a claim takes 1 CPU unless it asks for more, up to all of them. */
  static Device cpu(int node, int socket, int cpus, int threadsPerCore, String arch, String vendor, String model) {
    return Device.builder("cpu-numa" + node, "cpu-numa")
        .attribute(TYPE, "cpu")
        .attribute(Names.NUMA_NODE, node)
        .attribute(Names.ours("socket"), socket)
        .attribute(Names.ours("cpuCount"), cpus)
        .attribute(Names.ours("smt"), threadsPerCore > 1)
        .attribute(Names.ours("threadsPerCore"), threadsPerCore)
        .attribute(Names.ours("architecture"), arch)
        .attribute(Names.ours("vendor"), vendor)
        .attribute(Names.ours("cpuModel"), model)
        .capacity(Names.ours("cpu"), Quantity.of(cpus), RequestPolicy.range(Quantity.of(1), Quantity.of(1),
            Quantity.of(cpus), Quantity.of(1)))
        .allowMultipleAllocations(true)
        .build();
  }

  /** One NUMA node's pool of one page size, shared in whole pages. */
  static Device hugepages(int node, long pageSize, String label, long pages) {
    Quantity page = Quantity.of(pageSize);
    return Device.builder("hugepages-" + label.toLowerCase(java.util.Locale.ROOT) + "-numa" + node, "cpu-numa")
        .attribute(TYPE, "hugepages")
        .attribute(Names.NUMA_NODE, node)
        .attribute(Names.ours("pageSize"), label)
        .attribute(Names.ours("pageSizeBytes"), pageSize)
        .capacity(Names.ours("memory"), Quantity.of(pageSize * pages), RequestPolicy.range(page, page,
            Quantity.of(pageSize * pages), page))
        .allowMultipleAllocations(true)
        .build();
  }
}
