package io.nodeatlas.cli.discover.render;

import io.nodeatlas.discovery.model.Device;
import io.nodeatlas.discovery.model.Names;
import io.nodeatlas.discovery.model.Quantity;
import io.nodeatlas.discovery.report.HostInfo;
import io.nodeatlas.discovery.report.NodeReport;
import io.nodeatlas.discovery.report.SourceStatus;
import io.nodeatlas.discovery.report.DiscoveryWarning;
import io.nodeatlas.discovery.topology.CpuSet;
import io.nodeatlas.discovery.topology.PciTree;
import io.nodeatlas.discovery.topology.PciTree.Kind;
import io.nodeatlas.discovery.topology.PciTree.Link;
import io.nodeatlas.discovery.topology.PciTree.PciNode;
import io.nodeatlas.discovery.topology.PciTree.PciPair;
import io.nodeatlas.discovery.topology.Topology;
import io.nodeatlas.discovery.topology.Topology.CacheInfo;
import io.nodeatlas.discovery.topology.Topology.CacheType;
import io.nodeatlas.discovery.topology.Topology.CoreInfo;
import io.nodeatlas.discovery.topology.Topology.HugepagePool;
import io.nodeatlas.discovery.topology.Topology.HugepageSize;
import io.nodeatlas.discovery.topology.Topology.NumaNodeInfo;
import java.util.ArrayList;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.TreeMap;

/**
 * Reports built by hand for the pictures' tests: a two-socket node with 8 GPUs behind 4 PCIe switches
 * (two GPUs and one InfiniBand NIC per switch, two VFs on the first NIC), a CXL memory-only node local to
 * socket 0, a host bridge that leads to nothing published (an NVMe drive, the chipset); and variants.
 */
final class RenderFixtures {

  static final long GI = 1L << 30;
  static final long MI = 1L << 20;
  /** Host bridge buses of the four switches, as an HGX-class board numbers them. */
  static final int[] BUSES = {0x15, 0x37, 0x97, 0xb9};

  private RenderFixtures() {}

  static NodeReport twoSocketNode() {
    return twoSocketNode("gpu-node-7", "NVIDIA H100 80GB HBM3", List.of(
        new DiscoveryWarning("cpu-numa", "/sys/devices/system/node/node2/meminfo: line 7: not a number: \"x\" (1 chars)"),
        new DiscoveryWarning("nic-rdma", "/sys/class/infiniband/mlx5_3/ports/1/rate: unreadable: permission denied")));
  }

  static NodeReport twoSocketNode(String hostname, String gpuProduct, List<DiscoveryWarning> warnings) {
    return new NodeReport(NodeReport.SCHEMA_VERSION, new HostInfo(hostname, "6.8.0-45-generic", "/"),
        topology(true), devices(gpuProduct), warnings,
        Map.of("cpu-numa", SourceStatus.OK, "gpu", SourceStatus.OK, "nic-rdma", SourceStatus.OK,
            "accel", SourceStatus.unavailable("no AMD or Intel GPU")));
  }

  /** The same node from a report without a PCI tree (an older saved report, a host without sysfs PCI). */
  static NodeReport noPciTree() {
    NodeReport r = twoSocketNode();
    return new NodeReport(r.schemaVersion(), r.host(), r.topology().withPci(PciTree.EMPTY), r.devices(), r.warnings(),
        r.sources());
  }

  /**
   * {@code report} as a saved document keeps it: a source's state without its reason (the reason goes to
   * stderr when discovery runs, see DiscoverCommand).
   */
  static NodeReport withoutReasons(NodeReport report) {
    Map<String, SourceStatus> states = new TreeMap<>();
    report.sources().forEach((name, status) -> states.put(name, new SourceStatus(status.state(), "")));
    return new NodeReport(report.schemaVersion(), report.host(), report.topology(), report.devices(), report.warnings(),
        states);
  }

  static NodeReport empty() {
    return new NodeReport(NodeReport.SCHEMA_VERSION, new HostInfo(null, null, "/"), Topology.EMPTY, List.of(),
        List.of(), Map.of());
  }

  static CpuSet socketCpus(int s) {
    int[] ids = new int[64];
    for (int i = 0; i < 32; i++) {
      ids[i] = s * 32 + i;
      ids[32 + i] = 64 + s * 32 + i;
    }
    return CpuSet.of(ids);
  }

  static Topology topology(boolean withPci) {
    List<Topology.PackageInfo> packages = new ArrayList<>();
    List<CoreInfo> cores = new ArrayList<>();
    List<CacheInfo> caches = new ArrayList<>();
    List<NumaNodeInfo> numa = new ArrayList<>();
    for (int s = 0; s < 2; s++) {
      packages.add(new Topology.PackageInfo(s, socketCpus(s)));
      for (int c = 0; c < 32; c++) {
        CpuSet threads = CpuSet.of(s * 32 + c, 64 + s * 32 + c);
        cores.add(new CoreInfo(s, 0, c, threads, null));
        caches.add(new CacheInfo(1, CacheType.DATA, 48 * 1024, threads));
        caches.add(new CacheInfo(1, CacheType.INSTRUCTION, 32 * 1024, threads));
        caches.add(new CacheInfo(2, CacheType.UNIFIED, 2 * MI, threads));
      }
      caches.add(new CacheInfo(3, CacheType.UNIFIED, 105 * MI, socketCpus(s)));
      numa.add(new NumaNodeInfo(s, socketCpus(s), 512 * GI, 480 * GI, distances(s), List.of(
          new HugepagePool(2 * MI, 1024, 1000, 0L, 0), new HugepagePool(GI, 16, 16, 0L, 0)), 1, List.of(s),
          socketCpus(s)));
    }
    numa.add(new NumaNodeInfo(2, CpuSet.EMPTY, 64 * GI, 64 * GI, distances(2), List.of(), 4, List.of(0), socketCpus(0)));
    List<HugepageSize> sizes = List.of(
        new HugepageSize(2 * MI, 2048, 2000, 0L, 0, List.of("/dev/hugepages")),
        new HugepageSize(GI, 32, 32, 0L, 0, List.of("/dev/hugepages1G")));
    CpuSet all = CpuSet.range(0, 127);
    return new Topology(new Topology.CpuSummary(all, CpuSet.EMPTY, all), packages, List.of(), List.of(), cores, caches,
        numa, sizes, withPci ? pciTree() : PciTree.EMPTY);
  }

  private static TreeMap<Integer, Integer> distances(int node) {
    TreeMap<Integer, Integer> d = new TreeMap<>();
    int[][] slit = {{10, 21, 14}, {21, 10, 24}, {14, 24, 10}};
    for (int i = 0; i < 3; i++) {
      d.put(i, slit[node][i]);
    }
    return d;
  }

  static String bdf(int bus, int dev, int fn) {
    return String.format(Locale.ROOT, "0000:%02x:%02x.%d", bus, dev, fn);
  }

  static String hostBridge(int bus) {
    return String.format(Locale.ROOT, "pci0000:%02x", bus);
  }

  static PciNode node(String address, Kind kind, String vendor, String device, String cls, Integer numa,
      List<String> devices, PciNode... children) {
    return new PciNode(address, kind, vendor, device, cls, numa, devices, List.of(children));
  }

  static PciTree pciTree() {
    List<PciNode> bridges = new ArrayList<>();
    // The chipset's root complex: an NVMe drive and the LPC bridge, nothing published.
    bridges.add(node("pci0000:00", Kind.HOST_BRIDGE, null, null, null, 0, List.of(),
        node(bdf(0, 1, 0), Kind.ROOT_PORT, "8086", "347a", "060400", 0, List.of(),
            node(bdf(1, 0, 0), Kind.ENDPOINT, "144d", "a80a", "010802", 0, List.of())),
        node(bdf(0, 0x1f, 0), Kind.ENDPOINT, "8086", "1b81", "060100", 0, List.of())));
    List<PciPair> pairs = new ArrayList<>();
    for (int g = 0; g < 4; g++) {
      int s = g / 2;
      int b = BUSES[g];
      List<PciNode> nicFunctions = new ArrayList<>();
      nicFunctions.add(node(bdf(b + 5, 0, 0), Kind.ENDPOINT, "15b3", "1021", "020700", s, List.of("rdma-mlx5-" + g)));
      if (g == 0) {
        nicFunctions.add(node(bdf(b + 5, 0, 2), Kind.ENDPOINT, "15b3", "101e", "020700", s, List.of("vf-mlx5-0-0")));
        nicFunctions.add(node(bdf(b + 5, 0, 3), Kind.ENDPOINT, "15b3", "101e", "020700", s, List.of("vf-mlx5-0-1")));
      }
      List<PciNode> ports = new ArrayList<>();
      if (g == 1) {
        // An empty slot: a downstream port with nothing behind it.
        ports.add(node(bdf(b + 2, 3, 0), Kind.SWITCH_DOWNSTREAM, "1000", "c030", "060400", s, List.of()));
      }
      ports.add(new PciNode(bdf(b + 2, 2, 0), Kind.SWITCH_DOWNSTREAM, "1000", "c030", "060400", s, List.of(), nicFunctions));
      PciNode upstream = new PciNode(bdf(b + 1, 0, 0), Kind.SWITCH_UPSTREAM, "1000", "c030", "060400", s, List.of(),
          java.util.stream.Stream.concat(java.util.stream.Stream.of(
          node(bdf(b + 2, 0, 0), Kind.SWITCH_DOWNSTREAM, "1000", "c030", "060400", s, List.of(),
              node(bdf(b + 3, 0, 0), Kind.ENDPOINT, "10de", "2330", "030200", s, List.of("gpu-" + (2 * g)))),
          node(bdf(b + 2, 1, 0), Kind.SWITCH_DOWNSTREAM, "1000", "c030", "060400", s, List.of(),
              node(bdf(b + 4, 0, 0), Kind.ENDPOINT, "10de", "2330", "030200", s, List.of("gpu-" + (2 * g + 1))))),
              ports.stream()).toList());
      bridges.add(node(hostBridge(b), Kind.HOST_BRIDGE, null, null, null, s, List.of(),
          node(bdf(b, 1, 0), Kind.ROOT_PORT, "8086", "352a", "060400", s, List.of(), upstream)));
      pairs.add(new PciPair("gpu-" + (2 * g), "rdma-mlx5-" + g, Link.PIX));
      pairs.add(new PciPair("gpu-" + (2 * g), "gpu-" + (2 * g + 1), Link.PIX));
    }
    return new PciTree(bridges, pairs);
  }

  static List<Device> devices(String gpuProduct) {
    List<Device> out = new ArrayList<>();
    for (int g = 0; g < 4; g++) {
      int s = g / 2;
      int b = BUSES[g];
      String sw = bdf(b + 1, 0, 0);
      for (int k = 0; k < 2; k++) {
        int n = 2 * g + k;
        out.add(pci(Device.builder("gpu-" + n, "gpu"), "gpu", s, bdf(b + 3 + k, 0, 0), hostBridge(b), sw)
            .attribute(Names.ours("productName"), gpuProduct)
            .attribute(Names.ours("uuid"), "GPU-00000000-0000-0000-0000-00000000000" + n)
            .capacity(Names.ours("memory"), Quantity.of(85520809984L)).build());
      }
      out.add(pci(Device.builder("rdma-mlx5-" + g, "nic-rdma"), "rdma", s, bdf(b + 5, 0, 0), hostBridge(b), sw)
          .attribute(Names.ours("ifName"), String.format(Locale.ROOT, "ibp%ds0", b + 5))
          .attribute(Names.ours("rdmaDevice"), "mlx5_" + g)
          .attribute(Names.ours("rateGbps"), 400L)
          .attribute(Names.ours("linkLayer"), "infiniband").build());
    }
    for (int v = 0; v < 2; v++) {
      out.add(pci(Device.builder("vf-mlx5-0-" + v, "nic-rdma"), "vf", 0, bdf(BUSES[0] + 5, 0, 2 + v), hostBridge(BUSES[0]),
          bdf(BUSES[0] + 1, 0, 0))
          .attribute(Names.ours("vfIndex"), (long) v)
          .attribute(Names.ours("pfName"), "ibp26s0").build());
    }
    for (int s = 0; s < 2; s++) {
      out.add(Device.builder("cpu-numa" + s, "cpu-numa").attribute(Device.TYPE, "cpu")
          .attribute(Names.NUMA_NODE, (long) s).attribute(Names.ours("cpuCount"), 64L)
          .capacity(Names.ours("cpu"), 64).build());
      out.add(Device.builder("hugepages-2mi-numa" + s, "cpu-numa").attribute(Device.TYPE, "hugepages")
          .attribute(Names.NUMA_NODE, (long) s).attribute(Names.ours("pageSize"), "2Mi")
          .capacity(Names.ours("memory"), 1024 * 2 * MI).build());
    }
    return out;
  }

  private static Device.Builder pci(Device.Builder b, String type, int numa, String bdf, String root, String sw) {
    return b.attribute(Device.TYPE, type).attribute(Names.NUMA_NODE, (long) numa).attribute(Names.PCI_BUS_ID, bdf)
        .attribute(Names.PCIE_ROOT, root).attribute(Names.ours("pcieSwitch"), sw)
        .attribute(Names.ours("pcieLinkWidth"), 16L).attribute(Names.ours("pcieLinkSpeed"), "32.0 GT/s");
  }

  /**
   * Hostile text everywhere a host or a saved file can put it: markup characters, an ESC that would
   * recolour a terminal, a newline that would forge a line, bidi and NUL controls, a 64-byte value, and a
   * PCI address and warning from a doctored saved report.
   */
  static NodeReport hostile() {
    String evil = "<b>&\"x'\u001b[31mred\nline\u202e\u0000";
    List<DiscoveryWarning> warnings = List.of(
        new DiscoveryWarning("gpu", "</text><script>alert(1)</script>\u001b]0;title\u0007 & \"quoted\""),
        new DiscoveryWarning("nic-rdma", "x".repeat(600)));
    NodeReport base = twoSocketNode("host<&\">\u001b[2J", evil, warnings);
    List<PciNode> bridges = new ArrayList<>(base.topology().pci().hostBridges());
    bridges.add(node("pci<ffff>:&\"00\u001b", Kind.HOST_BRIDGE, "<v>", "&d", "\"c\"", null, List.of(),
        node("0000:ff:00.0\"/><script>", Kind.ENDPOINT, "'1'", null, null, null, List.of("gpu-hostile"))));
    List<Device> devices = new ArrayList<>(base.devices());
    devices.add(Device.builder("gpu-hostile", "gpu").attribute(Device.TYPE, "<gpu>&")
        .attribute(Names.ours("productName"), "\u5927\u578b GPU ".repeat(4) + "W" + "\u0007")
        .attribute(Names.ours("ifName"), "y".repeat(64)).build());
    return new NodeReport(base.schemaVersion(), base.host(),
        base.topology().withPci(new PciTree(bridges, base.topology().pci().pairs())), devices, base.warnings(),
        Map.of("gpu", SourceStatus.failed("NVML said <\u001b[31m>")));
  }
}
