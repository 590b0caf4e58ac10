package io.nodeatlas.cli.discover.render;

import io.nodeatlas.discovery.model.AttributeValue;
import io.nodeatlas.discovery.model.Device;
import io.nodeatlas.discovery.model.Names;
import io.nodeatlas.discovery.model.Quantity;
import io.nodeatlas.discovery.report.NodeReport;
import io.nodeatlas.discovery.topology.CpuSet;
import io.nodeatlas.discovery.topology.PciTree;
import io.nodeatlas.discovery.topology.PciTree.PciNode;
import io.nodeatlas.discovery.topology.Topology;
import io.nodeatlas.discovery.topology.Topology.CacheInfo;
import io.nodeatlas.discovery.topology.Topology.CoreInfo;
import io.nodeatlas.discovery.topology.Topology.NumaNodeInfo;
import java.math.BigDecimal;
import java.util.ArrayList;
import java.util.IdentityHashMap;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.OptionalLong;
import java.util.Set;
import java.util.TreeMap;
import java.util.TreeSet;
import java.util.stream.Collectors;

/**
 * What both pictures show, worked out once from a {@link NodeReport}: where each NUMA node, core and
 * cache sits (the containment hwloc draws: a NUMA node inside the package whose CPUs hold its CPUs, a
 * memory-only node beside the CPUs of its initiators), which PCI functions lead to a published device,
 * and the few attributes of a device worth a label. Every string that leaves here is {@link Text#clean}ed.
 */
final class NodeView {

  /** The longest device detail a label shows; attribute values may be 64 bytes. */
  static final int MAX_DETAIL = 40;
  /** The longest host-given name (host name, PCI address in a saved report) a label shows. */
  static final int MAX_NAME = 64;

  final NodeReport report;
  final Topology topology;
  private final boolean wholePci;
  private final Map<String, Device> byName = new LinkedHashMap<>();
  private final Set<String> onPci = new TreeSet<>();
  private final Map<PciNode, Boolean> published = new IdentityHashMap<>();

  NodeView(NodeReport report, boolean wholePci) {
    this.report = report;
    this.topology = report.topology();
    this.wholePci = wholePci;
    report.devices().forEach(d -> byName.put(d.name(), d));
    topology.pci().forEach(n -> onPci.addAll(n.devices()));
  }

  // ---------------------------------------------------------------- CPUs, NUMA nodes, caches

  /** A box of the CPU side: the machine, a package, a NUMA node (with CPUs, or memory only). */
  static final class Place {
    enum Kind { MACHINE, PACKAGE, NUMA, MEMORY_NODE }

    final Kind kind;
    final int id;
    final CpuSet cpus;
    final NumaNodeInfo numa;
    final List<Place> children = new ArrayList<>();
    final List<CoreInfo> cores = new ArrayList<>();
    final List<CacheInfo> caches = new ArrayList<>();

    Place(Kind kind, int id, CpuSet cpus, NumaNodeInfo numa) {
      this.kind = kind;
      this.id = id;
      this.cpus = cpus;
      this.numa = numa;
    }
  }

  /** The machine and everything below it, in id order. */
  Place machine() {
    Place machine = new Place(Place.Kind.MACHINE, -1, topology.cpus().online(), null);
    List<Place> packages = new ArrayList<>();
    for (Topology.PackageInfo p : topology.packages()) {
      Place place = new Place(Place.Kind.PACKAGE, p.id(), p.cpus(), null);
      packages.add(place);
      machine.children.add(place);
    }
    List<Place> nodes = new ArrayList<>();
    for (NumaNodeInfo n : topology.numaNodes()) {
      if (!n.memoryOnly()) {
        Place place = new Place(Place.Kind.NUMA, n.id(), n.cpus(), n);
        nodes.add(place);
        first(packages, p -> p.cpus.containsAll(n.cpus())).orElse(machine).children.add(place);
      }
    }
    for (NumaNodeInfo n : topology.numaNodes()) {
      if (n.memoryOnly()) {
        // hwloc hangs a CPU-less node where its initiators' CPUs are (access0/initiators).
        Place place = new Place(Place.Kind.MEMORY_NODE, n.id(), CpuSet.EMPTY, n);
        CpuSet near = n.initiatorCpus();
        (near.isEmpty() ? machine : first(packages, p -> p.cpus.containsAll(near)).orElse(machine)).children.add(place);
      }
    }
    for (CoreInfo c : topology.cores()) {
      first(nodes, n -> n.cpus.containsAll(c.cpus()))
          .or(() -> first(packages, p -> p.id == c.packageId()))
          .orElse(machine).cores.add(c);
    }
    for (CacheInfo c : topology.caches()) {
      first(nodes, n -> n.cpus.containsAll(c.cpus()))
          .or(() -> first(packages, p -> p.cpus.containsAll(c.cpus())))
          .orElse(machine).caches.add(c);
    }
    return machine;
  }

  private static <T> Optional<T> first(List<T> list, java.util.function.Predicate<T> test) {
    return list.stream().filter(test).findFirst();
  }

  /** {@code 32 × 2 threads}, or {@code 8 × 2 threads, 16 × 1 thread} on a hybrid part; empty for no cores. */
  static String coreSummary(List<CoreInfo> cores) {
    Map<Integer, Long> byThreads = new TreeMap<>(java.util.Comparator.reverseOrder());
    cores.forEach(c -> byThreads.merge(c.cpus().size(), 1L, Long::sum));
    return byThreads.entrySet().stream().map(e -> e.getValue() + " × " + Text.count(e.getKey(), "thread"))
        .collect(Collectors.joining(", "));
  }

  /** {@code 8 performance, 16 efficiency} on hybrid CPUs; empty elsewhere. */
  static String coreTypes(List<CoreInfo> cores) {
    Map<String, Long> byType = new TreeMap<>();
    cores.stream().filter(c -> c.type() != null).forEach(c -> byType.merge(Text.clean(c.type(), 16), 1L, Long::sum));
    return byType.entrySet().stream().map(e -> e.getValue() + " " + e.getKey()).collect(Collectors.joining(", "));
  }

  /** Caches of one level, type and size: how many instances and the CPUs of each. */
  record CacheGroup(String name, long sizeBytes, List<CpuSet> instances) {
    String summary() {
      return name + " " + Text.bytes(sizeBytes) + (instances.size() > 1 ? " ×" + instances.size() : "");
    }
  }

  /** The caches grouped by level, type and size, innermost level first. */
  static List<CacheGroup> cacheGroups(List<CacheInfo> caches) {
    Map<String, CacheGroup> groups = new LinkedHashMap<>();
    for (CacheInfo c : caches) {
      String name = "L" + c.level() + switch (c.type()) {
        case DATA -> "d";
        case INSTRUCTION -> "i";
        case UNIFIED -> "";
      };
      groups.computeIfAbsent(name + "/" + c.sizeBytes(), k -> new CacheGroup(name, c.sizeBytes(), new ArrayList<>()))
          .instances().add(c.cpus());
    }
    return List.copyOf(groups.values());
  }

  /** {@code memory 512Gi (480Gi free)}, or empty when the node's meminfo was unreadable. */
  static String memory(NumaNodeInfo n) {
    if (n.memoryTotalBytes() == null) {
      return "";
    }
    return "memory " + Text.bytes(n.memoryTotalBytes())
        + (n.memoryFreeBytes() == null ? "" : " (" + Text.bytes(n.memoryFreeBytes()) + " free)");
  }

  /** {@code tier 4, initiators node 0 (cpus 0-31)} for a memory-only node; what the kernel said. */
  static String locality(NumaNodeInfo n) {
    List<String> parts = new ArrayList<>();
    if (n.memoryTier() != null) {
      parts.add("tier " + n.memoryTier());
    }
    if (!n.initiatorNodes().isEmpty()) {
      parts.add((n.initiatorNodes().size() == 1 ? "initiator node " : "initiator nodes ")
          + n.initiatorNodes().stream().map(String::valueOf).collect(Collectors.joining(",")));
    }
    if (!n.initiatorCpus().isEmpty()) {
      parts.add("local to cpus " + n.initiatorCpus());
    }
    return String.join(", ", parts);
  }

  // ---------------------------------------------------------------- PCI

  PciTree pci() {
    return topology.pci();
  }

  /** Whether a published device sits on {@code n} or below it. */
  boolean leadsToDevice(PciNode n) {
    Boolean known = published.get(n);
    if (known != null) {
      return known;
    }
    boolean any = !n.devices().isEmpty() || n.children().stream().anyMatch(this::leadsToDevice);
    published.put(n, any);
    return any;
  }

  /** The nodes of {@code nodes} a picture shows: all with {@code --whole-pci}, else those leading to a device. */
  List<PciNode> shown(List<PciNode> nodes) {
    return wholePci ? nodes : nodes.stream().filter(this::leadsToDevice).toList();
  }

  /** How many nodes of {@code nodes}, with everything below them, {@link #shown} leaves out. */
  int hidden(List<PciNode> nodes) {
    int[] count = {0};
    nodes.stream().filter(n -> !wholePci && !leadsToDevice(n)).forEach(n -> n.forEach(x -> count[0]++));
    return count[0];
  }

  /** How many PCI nodes of the whole tree the pictures leave out (none with {@code --whole-pci}). */
  int hiddenInTree() {
    int[] count = {0};
    topology.pci().forEach(n -> {
      if (!wholePci && !leadsToDevice(n)) {
        count[0]++;
      }
    });
    return count[0];
  }

  /** The NUMA node of a host bridge: its own, else the first one a function below it reports; null if none. */
  static Integer numaOf(PciNode hostBridge) {
    Integer[] found = {hostBridge.numaNode()};
    hostBridge.forEach(n -> {
      if (found[0] == null && n.numaNode() != null) {
        found[0] = n.numaNode();
      }
    });
    return found[0];
  }

  /** What a PCI node is, in words. */
  static String kindText(PciTree.Kind kind) {
    return switch (kind) {
      case HOST_BRIDGE -> "host bridge";
      case ROOT_PORT -> "root port";
      case SWITCH_UPSTREAM -> "PCIe switch";
      case SWITCH_DOWNSTREAM -> "switch port";
      case BRIDGE -> "bridge";
      case ENDPOINT -> "function";
    };
  }

  /** {@code 10de:2330 class 030200} for a function without published devices. */
  static String ids(PciNode n) {
    String ids = n.vendorId() == null && n.deviceId() == null ? ""
        : Text.clean(n.vendorId() == null ? "?" : n.vendorId(), 8) + ":" + Text.clean(n.deviceId() == null ? "?" : n.deviceId(), 8);
    String cls = n.classCode() == null ? "" : "class " + Text.clean(n.classCode(), 8);
    return (ids + " " + cls).strip();
  }

  static String address(PciNode n) {
    return Text.clean(n.address(), MAX_NAME);
  }

  // ---------------------------------------------------------------- devices

  /** The published device of this name, if the report has it (a saved tree may name one it lacks). */
  Optional<Device> device(String name) {
    return Optional.ofNullable(byName.get(name));
  }

  /** The devices no PCI function of the tree names, by NUMA node (null key last: no NUMA node). */
  Map<Integer, List<Device>> unplacedByNuma() {
    Map<Integer, List<Device>> out = new TreeMap<>(java.util.Comparator.nullsLast(java.util.Comparator.naturalOrder()));
    for (Device d : report.devices()) {
      if (!onPci.contains(d.name())) {
        out.computeIfAbsent(numaNode(d).orElse(null), k -> new ArrayList<>()).add(d);
      }
    }
    return out;
  }

  static Optional<Integer> numaNode(Device d) {
    return d.attribute(Names.NUMA_NODE).filter(AttributeValue.IntValue.class::isInstance)
        .map(v -> ((AttributeValue.IntValue) v).value())
        .filter(v -> v >= 0 && v <= Integer.MAX_VALUE).map(Long::intValue);
  }

  static String name(String deviceName) {
    return Text.clean(deviceName, MAX_NAME);
  }

  static String type(Device d) {
    return Text.clean(d.type().orElse("-"), 24);
  }

  /**
   * The few facts that tell devices apart at a glance, in this order: product, memory, page size, CPUs,
   * network interface and rate, link layer, the VF's function, the PCIe link. Each is cleaned and cut.
   */
  static List<String> details(Device d) {
    List<String> out = new ArrayList<>();
    string(d, "productName").ifPresent(out::add);
    string(d, "profile").ifPresent(p -> out.add("MIG " + p));
    string(d, "pageSize").ifPresent(p -> out.add("pages " + p));
    Optional.ofNullable(d.capacity().get(Names.ours("memory"))).flatMap(NodeView::bytes).ifPresent(out::add);
    integer(d, "cpuCount").ifPresent(n -> out.add(Text.count(n, "CPU")));
    string(d, "ifName").ifPresent(out::add);
    OptionalLong rate = integer(d, "rateGbps");
    if (rate.isPresent()) {
      out.add(rate.getAsLong() + " Gb/s");
    } else {
      integer(d, "speedMbps").ifPresent(s -> out.add(s % 1000 == 0 ? s / 1000 + " Gb/s" : s + " Mb/s"));
    }
    string(d, "linkLayer").ifPresent(out::add);
    OptionalLong vf = integer(d, "vfIndex");
    Optional<String> pf = string(d, "pfName");
    if (vf.isPresent() || pf.isPresent()) {
      out.add("VF" + (vf.isPresent() ? " " + vf.getAsLong() : "") + pf.map(p -> " of " + p).orElse(""));
    }
    OptionalLong width = integer(d, "pcieLinkWidth");
    Optional<String> speed = string(d, "pcieLinkSpeed");
    if (width.isPresent() || speed.isPresent()) {
      out.add(((width.isPresent() ? "x" + width.getAsLong() + " " : "") + speed.orElse("")).strip());
    }
    return out.stream().map(s -> Text.clean(s, MAX_DETAIL)).toList();
  }

  private static Optional<String> bytes(Quantity q) {
    try {
      BigDecimal v = q.toBigDecimal();
      return v.signum() >= 0 && v.compareTo(BigDecimal.valueOf(Long.MAX_VALUE)) <= 0
          ? Optional.of(Text.bytes(v.longValue())) : Optional.of(q.value());
    } catch (RuntimeException e) {
      return Optional.empty();
    }
  }

  private static Optional<String> string(Device d, String attribute) {
    return d.attribute(Names.ours(attribute)).filter(AttributeValue.StringValue.class::isInstance)
        .map(v -> ((AttributeValue.StringValue) v).value()).filter(s -> !s.isBlank());
  }

  private static OptionalLong integer(Device d, String attribute) {
    Optional<AttributeValue> v = d.attribute(Names.ours(attribute)).filter(AttributeValue.IntValue.class::isInstance);
    return v.isPresent() ? OptionalLong.of(((AttributeValue.IntValue) v.get()).value()) : OptionalLong.empty();
  }

  /**
   * The report's warnings, each cleaned, as {@code source: message}; without the "source unavailable"
   * line of a source that {@link #troubledSources()} already shows as unavailable (said once).
   */
  List<String[]> warnings() {
    return report.warnings().stream()
        .filter(w -> !(w.message().startsWith("source unavailable") && report.sources().containsKey(w.source())
            && report.sources().get(w.source()).isUnavailable()))
        .map(w -> new String[] {Text.clean(w.source(), 32), Text.clean(w.message(), 512)}).toList();
  }

  /** Sources that did not run cleanly, as {@code name, state, reason}. */
  List<String[]> troubledSources() {
    List<String[]> out = new ArrayList<>();
    report.sources().forEach((name, status) -> {
      if (status.state() != io.nodeatlas.discovery.report.SourceStatus.State.OK) {
        out.add(new String[] {Text.clean(name, 32), status.jsonName(), Text.clean(status.reason(), 200)});
      }
    });
    return out;
  }

  /** Host name, or {@code -}. */
  String hostname() {
    String h = report.host() == null ? null : report.host().hostname();
    return h == null || h.isEmpty() ? "-" : Text.clean(h, MAX_NAME);
  }

  String kernel() {
    String k = report.host() == null ? null : report.host().kernel();
    return k == null || k.isEmpty() ? "" : Text.clean(k, MAX_NAME);
  }

  /** {@code 2 packages, 3 NUMA nodes, 64 cores, 128 CPUs}: what the machine holds. */
  String machineSummary() {
    List<String> parts = new ArrayList<>();
    if (!topology.packages().isEmpty()) {
      parts.add(Text.count(topology.packages().size(), "package"));
    }
    if (!topology.numaNodes().isEmpty()) {
      parts.add(Text.count(topology.numaNodes().size(), "NUMA node"));
    }
    if (!topology.cores().isEmpty()) {
      parts.add(Text.count(topology.cores().size(), "core"));
    }
    if (!topology.cpus().online().isEmpty()) {
      parts.add(Text.count(topology.cpus().online().size(), "CPU"));
    }
    long memory = topology.numaNodes().stream().map(NumaNodeInfo::memoryTotalBytes).filter(java.util.Objects::nonNull)
        .mapToLong(Long::longValue).sum();
    if (memory > 0) {
      parts.add(Text.bytes(memory) + " memory");
    }
    return String.join(", ", parts);
  }

}
