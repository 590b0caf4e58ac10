package io.nodeatlas.discovery.report;

import com.fasterxml.jackson.databind.JsonNode;
import io.nodeatlas.discovery.model.AttributeValue;
import io.nodeatlas.discovery.model.ContainerEdits;
import io.nodeatlas.discovery.model.Device;
import io.nodeatlas.discovery.model.NodeAllocatableMapping;
import io.nodeatlas.discovery.model.Quantity;
import io.nodeatlas.discovery.model.RequestPolicy;
import io.nodeatlas.discovery.parse.CpuListParser;
import io.nodeatlas.discovery.topology.CpuSet;
import io.nodeatlas.discovery.topology.PciTree;
import io.nodeatlas.discovery.topology.PciTree.PciNode;
import io.nodeatlas.discovery.topology.PciTree.PciPair;
import io.nodeatlas.discovery.topology.Topology;
import io.nodeatlas.discovery.topology.Topology.CacheInfo;
import io.nodeatlas.discovery.topology.Topology.CacheType;
import io.nodeatlas.discovery.topology.Topology.ClusterInfo;
import io.nodeatlas.discovery.topology.Topology.CoreInfo;
import io.nodeatlas.discovery.topology.Topology.CpuSummary;
import io.nodeatlas.discovery.topology.Topology.DieInfo;
import io.nodeatlas.discovery.topology.Topology.HugepagePool;
import io.nodeatlas.discovery.topology.Topology.HugepageSize;
import io.nodeatlas.discovery.topology.Topology.NumaNodeInfo;
import io.nodeatlas.discovery.topology.Topology.PackageInfo;
import java.util.ArrayList;
import java.util.Iterator;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.TreeMap;

/**
 * Reads a {@code discover} document's tree (schema {@code v1}) back into a {@link NodeReport}: every
 * member checked for its type, a PCI tree bounded in depth; {@link NodeReportCodec} writes it.
 */
final class NodeReportReader {

  private NodeReportReader() {}


  static NodeReport fromTree(JsonNode root) {
    if (root == null || !root.isObject()) {
      throw new IllegalArgumentException("not a nodeatlas discover document: expected a JSON object");
    }
    String schema = text(root, "schemaVersion");
    if (!NodeReport.SCHEMA_VERSION.equals(schema)) {
      throw new IllegalArgumentException("unsupported schemaVersion \"" + schema + "\"; this build reads " + NodeReport.SCHEMA_VERSION);
    }
    JsonNode host = root.path("host");
    HostInfo hostInfo = new HostInfo(optText(host, "hostname"), optText(host, "kernel"), optText(host, "hostRoot"));
    List<Device> devices = new ArrayList<>();
    for (JsonNode d : root.path("devices")) {
      devices.add(readDevice(d));
    }
    List<DiscoveryWarning> warnings = new ArrayList<>();
    for (JsonNode w : root.path("warnings")) {
      warnings.add(new DiscoveryWarning(text(w, "source"), text(w, "message")));
    }
    Map<String, SourceStatus> sources = new TreeMap<>();
    root.path("sources").fields().forEachRemaining(e ->
        sources.put(e.getKey(), new SourceStatus(
            SourceStatus.State.valueOf(e.getValue().asText().toUpperCase(java.util.Locale.ROOT)), "")));
    Topology topology = root.has("topology") ? readTopology(root.get("topology")) : Topology.EMPTY;
    return new NodeReport(schema, hostInfo, topology, devices, warnings, sources);
  }

  static Device readDevice(JsonNode d) {
    Device.Builder b = Device.builder(text(d, "name"), text(d, "source"));
    Iterator<Map.Entry<String, JsonNode>> attrs = d.path("attributes").fields();
    while (attrs.hasNext()) {
      Map.Entry<String, JsonNode> e = attrs.next();
      JsonNode v = e.getValue();
      if (v.size() != 1) {
        throw new IllegalArgumentException("attribute " + e.getKey() + " must have exactly one of int, bool, string, version");
      }
      AttributeValue value;
      if (v.has("int") && v.get("int").canConvertToLong() && v.get("int").isIntegralNumber()) {
        value = AttributeValue.of(v.get("int").asLong());
      } else if (v.has("bool") && v.get("bool").isBoolean()) {
        value = AttributeValue.of(v.get("bool").asBoolean());
      } else if (v.has("string") && v.get("string").isTextual()) {
        value = AttributeValue.string(v.get("string").asText());
      } else if (v.has("version") && v.get("version").isTextual()) {
        value = AttributeValue.version(v.get("version").asText());
      } else if (v.has("strings") && v.get("strings").isArray()) {
        List<String> items = new ArrayList<>();
        for (JsonNode item : v.get("strings")) {
          if (!item.isTextual() || items.size() == AttributeValue.MAX_VALUES_PER_DEVICE) {
            throw new IllegalArgumentException("attribute " + e.getKey() + " must hold 1 to "
                + AttributeValue.MAX_VALUES_PER_DEVICE + " strings");
          }
          items.add(item.asText());
        }
        value = AttributeValue.strings(items);
      } else {
        throw new IllegalArgumentException("attribute " + e.getKey() + " has no valid int, bool, string or version value");
      }
      b.attribute(e.getKey(), value);
    }
    d.path("capacity").fields().forEachRemaining(e -> b.capacity(e.getKey(), Quantity.parse(e.getValue().asText())));
    if (d.has("allowMultipleAllocations")) {
      if (!d.get("allowMultipleAllocations").isBoolean()) {
        throw new IllegalArgumentException("allowMultipleAllocations must be true or false");
      }
      b.allowMultipleAllocations(d.get("allowMultipleAllocations").asBoolean());
    }
    d.path("requestPolicies").fields().forEachRemaining(e ->
        b.requestPolicy(e.getKey(), readRequestPolicy(e.getKey(), e.getValue())));
    d.path("nodeAllocatableResources").fields().forEachRemaining(e ->
        b.nodeAllocatable(e.getKey(), readNodeAllocatableMapping(e.getKey(), e.getValue())));
    b.containerEdits(readEdits(d.path("containerEdits")));
    List<io.nodeatlas.discovery.model.CounterSet> shared = new ArrayList<>();
    for (JsonNode c : d.path("sharedCounters")) {
      shared.add(new io.nodeatlas.discovery.model.CounterSet(text(c, "name"), readCounters(c)));
    }
    List<io.nodeatlas.discovery.model.CounterConsumption> consumes = new ArrayList<>();
    for (JsonNode c : d.path("consumesCounters")) {
      consumes.add(new io.nodeatlas.discovery.model.CounterConsumption(text(c, "counterSet"), readCounters(c)));
    }
    Device device = b.build();
    return shared.isEmpty() && consumes.isEmpty() ? device : device.withCounters(shared, consumes);
  }

  private static ContainerEdits readEdits(JsonNode e) {
    ContainerEdits.Builder b = ContainerEdits.builder();
    e.path("env").forEach(v -> b.env(v.asText()));
    for (JsonNode n : e.path("deviceNodes")) {
      b.deviceNode(new ContainerEdits.DeviceNode(text(n, "path"), optText(n, "hostPath"), optText(n, "type"),
          optLong(n, "major"), optLong(n, "minor"), optInt(n, "fileMode"), optText(n, "permissions"),
          optInt(n, "uid"), optInt(n, "gid")));
    }
    for (JsonNode m : e.path("mounts")) {
      List<String> options = new ArrayList<>();
      m.path("options").forEach(o -> options.add(o.asText()));
      b.mount(new ContainerEdits.Mount(text(m, "hostPath"), text(m, "containerPath"), optText(m, "type"), options));
    }
    for (JsonNode h : e.path("hooks")) {
      List<String> args = new ArrayList<>();
      h.path("args").forEach(o -> args.add(o.asText()));
      List<String> env = new ArrayList<>();
      h.path("env").forEach(o -> env.add(o.asText()));
      b.hook(new ContainerEdits.Hook(text(h, "hookName"), text(h, "path"), args, env, optInt(h, "timeout")));
    }
    for (JsonNode n : e.path("netDevices")) {
      b.netDevice(new ContainerEdits.NetDevice(text(n, "hostInterfaceName"), text(n, "name")));
    }
    return b.build();
  }

  private static Topology readTopology(JsonNode t) {
    JsonNode cpus = t.path("cpus");
    CpuSummary summary = new CpuSummary(cpuSet(cpus, "online"), cpuSet(cpus, "offline"), cpuSet(cpus, "possible"));
    List<PackageInfo> packages = new ArrayList<>();
    t.path("packages").forEach(p -> packages.add(new PackageInfo(p.path("id").asInt(), cpuSet(p, "cpus"))));
    List<DieInfo> dies = new ArrayList<>();
    t.path("dies").forEach(d -> dies.add(new DieInfo(d.path("package").asInt(), d.path("id").asInt(), cpuSet(d, "cpus"))));
    List<ClusterInfo> clusters = new ArrayList<>();
    t.path("clusters").forEach(c -> clusters.add(new ClusterInfo(c.path("package").asInt(), c.path("id").asInt(), cpuSet(c, "cpus"))));
    List<CoreInfo> cores = new ArrayList<>();
    t.path("cores").forEach(c -> cores.add(new CoreInfo(c.path("package").asInt(), c.path("die").asInt(),
        c.path("id").asInt(), cpuSet(c, "cpus"), optText(c, "type"))));
    List<CacheInfo> caches = new ArrayList<>();
    t.path("caches").forEach(c -> caches.add(new CacheInfo(c.path("level").asInt(), CacheType.fromJson(text(c, "type")),
        c.path("sizeBytes").asLong(), cpuSet(c, "cpus"))));
    List<NumaNodeInfo> numa = new ArrayList<>();
    for (JsonNode n : t.path("numaNodes")) {
      Map<Integer, Integer> distances = new TreeMap<>();
      n.path("distances").fields().forEachRemaining(e -> distances.put(Integer.parseInt(e.getKey()), e.getValue().asInt()));
      List<HugepagePool> pools = new ArrayList<>();
      n.path("hugepages").forEach(p -> pools.add(new HugepagePool(p.path("pageSizeBytes").asLong(), p.path("total").asLong(),
          p.path("free").asLong(), optLong(p, "reserved"), p.path("surplus").asLong())));
      List<Integer> initiators = new ArrayList<>();
      n.path("initiatorNodes").forEach(i -> initiators.add(i.asInt()));
      numa.add(new NumaNodeInfo(n.path("id").asInt(), cpuSet(n, "cpus"), optLong(n, "memoryTotalBytes"),
          optLong(n, "memoryFreeBytes"), new TreeMap<>(distances), pools, optInt(n, "memoryTier"), initiators,
          cpuSet(n, "initiatorCpus")));
    }
    List<HugepageSize> sizes = new ArrayList<>();
    for (JsonNode h : t.path("hugepages")) {
      List<String> mounts = new ArrayList<>();
      h.path("mounts").forEach(m -> mounts.add(m.asText()));
      sizes.add(new HugepageSize(h.path("pageSizeBytes").asLong(), h.path("total").asLong(), h.path("free").asLong(),
          optLong(h, "reserved"), h.path("surplus").asLong(), mounts));
    }
    PciTree pci = t.has("pci") ? readPciTree(t.get("pci")) : PciTree.EMPTY;
    return new Topology(summary, packages, dies, clusters, cores, caches, numa, sizes, pci);
  }

  private static CpuSet cpuSet(JsonNode node, String field) {
    return node.has(field) ? CpuListParser.parse(node.get(field).asText()) : CpuSet.EMPTY;
  }

  private static String text(JsonNode node, String field) {
    JsonNode v = node.get(field);
    if (v == null || !v.isValueNode()) {
      throw new IllegalArgumentException("missing field \"" + field + "\"");
    }
    return v.asText();
  }

  private static String optText(JsonNode node, String field) {
    JsonNode v = node.get(field);
    return v == null || v.isNull() ? null : v.asText();
  }

  private static Long optLong(JsonNode node, String field) {
    JsonNode v = node.get(field);
    return v == null || v.isNull() ? null : v.asLong();
  }

  private static Integer optInt(JsonNode node, String field) {
    JsonNode v = node.get(field);
    return v == null || v.isNull() ? null : v.asInt();
  }

  private static PciTree readPciTree(JsonNode t) {
    List<PciNode> bridges = new ArrayList<>();
    t.path("hostBridges").forEach(n -> bridges.add(readPciNode(n, 0)));
    List<PciPair> pairs = new ArrayList<>();
    t.path("pairs").forEach(p -> pairs.add(new PciPair(text(p, "a"), text(p, "b"), PciTree.Link.valueOf(text(p, "link")))));
    return new PciTree(bridges, pairs);
  }

  /** PCI nesting is shallow on real machines (a few switches deep); a saved document is bounded anyway. */
  private static final int MAX_PCI_DEPTH = 32;

  private static PciNode readPciNode(JsonNode n, int depth) {
    if (depth > MAX_PCI_DEPTH) {
      throw new IllegalArgumentException("PCI tree nested deeper than " + MAX_PCI_DEPTH + " levels");
    }
    List<String> devices = new ArrayList<>();
    n.path("devices").forEach(d -> devices.add(d.asText()));
    List<PciNode> children = new ArrayList<>();
    n.path("children").forEach(c -> children.add(readPciNode(c, depth + 1)));
    return new PciNode(text(n, "address"), PciTree.Kind.fromJson(text(n, "kind")), optText(n, "vendorId"),
        optText(n, "deviceId"), optText(n, "classCode"), optInt(n, "numaNode"), devices, children);
  }

  private static java.util.SortedMap<String, Quantity> readCounters(JsonNode parent) {
    java.util.SortedMap<String, Quantity> out = new java.util.TreeMap<>();
    parent.path("counters").fields().forEachRemaining(e -> out.put(e.getKey(), Quantity.parse(text(e.getValue(), "value"))));
    return out;
  }

  private static NodeAllocatableMapping readNodeAllocatableMapping(String resource, JsonNode r) {
    JsonNode m = r.path("mapping");
    if (!m.isObject()) {
      throw new IllegalArgumentException("nodeAllocatableResources " + resource + " has no mapping");
    }
    return new NodeAllocatableMapping(Optional.ofNullable(optText(m, "capacityKey")),
        Optional.ofNullable(optText(m, "capacityMultiplier")).map(Quantity::parse),
        Optional.ofNullable(optText(m, "deviceMultiplier")).map(Quantity::parse));
  }

  private static RequestPolicy readRequestPolicy(String capacity, JsonNode p) {
    if (!p.isObject() || !p.path("default").isTextual()) {
      throw new IllegalArgumentException("request policy of " + capacity + " has no default quantity");
    }
    Optional<RequestPolicy.ValidRange> range = Optional.empty();
    if (p.has("validRange")) {
      JsonNode r = p.get("validRange");
      range = Optional.of(new RequestPolicy.ValidRange(
          Quantity.parse(text(r, "min")),
          r.has("max") ? Optional.of(Quantity.parse(text(r, "max"))) : Optional.empty(),
          r.has("step") ? Optional.of(Quantity.parse(text(r, "step"))) : Optional.empty()));
    }
    List<Quantity> values = new ArrayList<>();
    for (JsonNode v : p.path("validValues")) {
      values.add(Quantity.parse(v.asText()));
    }
    return new RequestPolicy(Quantity.parse(p.get("default").asText()), range, values);
  }
}
