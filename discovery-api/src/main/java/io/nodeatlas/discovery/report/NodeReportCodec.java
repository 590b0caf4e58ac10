package io.nodeatlas.discovery.report;

import com.fasterxml.jackson.core.JsonFactory;
import com.fasterxml.jackson.core.JsonGenerator;
import com.fasterxml.jackson.core.JsonProcessingException;
import com.fasterxml.jackson.core.util.DefaultPrettyPrinter;
import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import com.fasterxml.jackson.databind.SerializationFeature;
import com.fasterxml.jackson.databind.cfg.JsonNodeFeature;
import com.fasterxml.jackson.databind.json.JsonMapper;
import com.fasterxml.jackson.databind.node.ArrayNode;
import com.fasterxml.jackson.databind.node.JsonNodeFactory;
import com.fasterxml.jackson.databind.node.ObjectNode;
import com.fasterxml.jackson.dataformat.yaml.YAMLFactory;
import com.fasterxml.jackson.dataformat.yaml.YAMLGenerator;
import com.fasterxml.jackson.dataformat.yaml.YAMLMapper;
import io.nodeatlas.discovery.model.AttributeValue;
import io.nodeatlas.discovery.model.ContainerEdits;
import io.nodeatlas.discovery.model.Device;
import io.nodeatlas.discovery.model.Quantity;
import io.nodeatlas.discovery.model.NodeAllocatableMapping;
import io.nodeatlas.discovery.model.RequestPolicy;
import io.nodeatlas.discovery.parse.CpuListParser;
import io.nodeatlas.discovery.topology.CpuSet;
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
import io.nodeatlas.discovery.topology.PciTree;
import io.nodeatlas.discovery.topology.PciTree.PciNode;
import io.nodeatlas.discovery.topology.PciTree.PciPair;
import io.nodeatlas.discovery.topology.Topology.PackageInfo;
import java.io.IOException;
import java.io.StringWriter;
import java.util.ArrayList;
import java.util.Iterator;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.TreeMap;

/**
 * The {@code discover} document (schema {@code v1}, documented in the README) to and from JSON and
 * YAML. The mapping is written out by hand against a Jackson tree rather than by reflection, so the
 * document's shape is visible in one place and does not change when a record gains a component.
 * Properties are written sorted and null values are left out, so output is byte-stable.
 *
 * <p>JSON is written with Jackson's streaming generator straight from the tree, keys sorted at each
 * level: the same bytes as an {@link ObjectMapper} with {@code INDENT_OUTPUT} and
 * {@code WRITE_PROPERTIES_SORTED} (NodeReportCodecTest compares both), without building a mapper and
 * its serializers, which is most of what a one-shot {@code discover} spends in Jackson. Reading and
 * YAML use a mapper, built on first use.
 */
public final class NodeReportCodec {

  private static final JsonNodeFactory NODES = JsonNodeFactory.instance;

  private final JsonFactory jsonFactory = new JsonFactory();
  /** Built on first use: only reading needs it. */
  private ObjectMapper json;
  /** Built on first use: YAML pulls in snakeyaml, which a JSON-only CLI run should not pay for. */
  private ObjectMapper yaml;

  public NodeReportCodec() {}

  private synchronized ObjectMapper json() {
    if (json == null) {
      json = newJsonMapper();
    }
    return json;
  }

  /** The mapper whose output {@link #toJson(JsonNode)} reproduces; reading uses it too. */
  static ObjectMapper newJsonMapper() {
    return JsonMapper.builder()
        .enable(SerializationFeature.INDENT_OUTPUT)
        .enable(JsonNodeFeature.WRITE_PROPERTIES_SORTED)
        .build();
  }

  private synchronized ObjectMapper yaml() {
    if (yaml == null) {
      yaml = newYamlMapper();
    }
    return yaml;
  }

  private static ObjectMapper newYamlMapper() {
    return YAMLMapper.builder(YAMLFactory.builder()
            .disable(YAMLGenerator.Feature.WRITE_DOC_START_MARKER)
            .enable(YAMLGenerator.Feature.MINIMIZE_QUOTES)
            .enable(YAMLGenerator.Feature.ALWAYS_QUOTE_NUMBERS_AS_STRINGS)
            .enable(YAMLGenerator.Feature.INDENT_ARRAYS_WITH_INDICATOR)
            .build())
        .enable(JsonNodeFeature.WRITE_PROPERTIES_SORTED)
        .build();
  }

  public String toJson(NodeReport report) {
    return toJson(toTree(report));
  }

  public String toYaml(NodeReport report) {
    return write(yaml(), toTree(report));
  }

  /** Any tree as sorted, indented JSON (used for devices and sub-documents). */
  public String toJson(JsonNode node) {
    StringWriter out = new StringWriter();
    try (JsonGenerator g = jsonFactory.createGenerator(out)) {
      g.setPrettyPrinter(new DefaultPrettyPrinter());
      writeSorted(g, node);
    } catch (NotPlainTree e) {
      // A tree holding a POJO or binary node: the mapper knows how to write those.
      return write(json(), node) + "\n";
    } catch (IOException e) {
      throw new IllegalStateException("cannot serialise report", e);
    }
    return out + "\n";
  }

  /** A node that only a mapper writes (POJO, binary, missing). */
  private static final class NotPlainTree extends RuntimeException {
    private static final long serialVersionUID = 1L;

    NotPlainTree() {
      super(null, null, false, false);
    }
  }

  /** What {@code ObjectNode.serialize} with {@code WRITE_PROPERTIES_SORTED} writes, node by node. */
  private static void writeSorted(JsonGenerator g, JsonNode node) throws IOException {
    switch (node.getNodeType()) {
      case OBJECT -> {
        g.writeStartObject();
        List<String> names = new ArrayList<>(node.size());
        node.fieldNames().forEachRemaining(names::add);
        names.sort(null);
        for (String name : names) {
          g.writeFieldName(name);
          writeSorted(g, node.get(name));
        }
        g.writeEndObject();
      }
      case ARRAY -> {
        g.writeStartArray();
        for (JsonNode element : node) {
          writeSorted(g, element);
        }
        g.writeEndArray();
      }
      case STRING -> g.writeString(node.textValue());
      case BOOLEAN -> g.writeBoolean(node.booleanValue());
      case NULL -> g.writeNull();
      case NUMBER -> {
        switch (node.numberType()) {
          case INT -> g.writeNumber(node.intValue());
          case LONG -> g.writeNumber(node.longValue());
          case BIG_INTEGER -> g.writeNumber(node.bigIntegerValue());
          default -> throw new NotPlainTree(); // floating point: not in our documents; the mapper writes it
        }
      }
      default -> throw new NotPlainTree();
    }
  }

  private static String write(ObjectMapper mapper, JsonNode node) {
    try {
      return mapper.writeValueAsString(node);
    } catch (JsonProcessingException e) {
      throw new IllegalStateException("cannot serialise report", e);
    }
  }

  /** Reads a document written by {@link #toJson(NodeReport)} or {@link #toYaml(NodeReport)}. */
  public NodeReport fromJson(String text) {
    try {
      return fromTree(json().readTree(text));
    } catch (JsonProcessingException e) {
      throw new IllegalArgumentException("not a nodeatlas discover document: " + e.getOriginalMessage(), e);
    }
  }

  public ObjectNode toTree(NodeReport report) {
    ObjectNode root = NODES.objectNode();
    root.put("schemaVersion", report.schemaVersion());
    ObjectNode host = root.putObject("host");
    putIfNotNull(host, "hostname", report.host().hostname());
    putIfNotNull(host, "kernel", report.host().kernel());
    putIfNotNull(host, "hostRoot", report.host().hostRoot());
    root.set("topology", topology(report.topology()));
    ArrayNode devices = root.putArray("devices");
    report.devices().forEach(d -> devices.add(device(d)));
    ArrayNode warnings = root.putArray("warnings");
    for (DiscoveryWarning w : report.warnings()) {
      warnings.addObject().put("source", w.source()).put("message", w.message());
    }
    ObjectNode sources = root.putObject("sources");
    report.sources().forEach((name, status) -> sources.put(name, status.jsonName()));
    return root;
  }

  private static ObjectNode topology(Topology t) {
    ObjectNode out = NODES.objectNode();
    out.putObject("cpus")
        .put("online", t.cpus().online().toString())
        .put("offline", t.cpus().offline().toString())
        .put("possible", t.cpus().possible().toString());
    ArrayNode packages = out.putArray("packages");
    t.packages().forEach(p -> packages.addObject().put("id", p.id()).put("cpus", p.cpus().toString()));
    ArrayNode dies = out.putArray("dies");
    t.dies().forEach(d -> dies.addObject().put("package", d.packageId()).put("id", d.id()).put("cpus", d.cpus().toString()));
    ArrayNode clusters = out.putArray("clusters");
    t.clusters().forEach(c -> clusters.addObject().put("package", c.packageId()).put("id", c.id()).put("cpus", c.cpus().toString()));
    ArrayNode cores = out.putArray("cores");
    for (CoreInfo c : t.cores()) {
      ObjectNode core = cores.addObject().put("package", c.packageId()).put("die", c.dieId()).put("id", c.id())
          .put("cpus", c.cpus().toString());
      putIfNotNull(core, "type", c.type());
    }
    ArrayNode caches = out.putArray("caches");
    t.caches().forEach(c -> caches.addObject().put("level", c.level()).put("type", c.type().jsonName())
        .put("sizeBytes", c.sizeBytes()).put("cpus", c.cpus().toString()));
    ArrayNode numa = out.putArray("numaNodes");
    for (NumaNodeInfo n : t.numaNodes()) {
      ObjectNode node = numa.addObject().put("id", n.id()).put("cpus", n.cpus().toString());
      putIfNotNull(node, "memoryTotalBytes", n.memoryTotalBytes());
      putIfNotNull(node, "memoryFreeBytes", n.memoryFreeBytes());
      if (n.memoryOnly() && n.memoryTotalBytes() != null && n.memoryTotalBytes() > 0) {
        node.put("memoryOnly", true);
      }
      putIfNotNull(node, "memoryTier", n.memoryTier());
      if (!n.initiatorNodes().isEmpty()) {
        ArrayNode initiators = node.putArray("initiatorNodes");
        n.initiatorNodes().forEach(initiators::add);
        node.put("initiatorCpus", n.initiatorCpus().toString());
      }
      ObjectNode distances = node.putObject("distances");
      n.distances().forEach((id, d) -> distances.put(Integer.toString(id), d));
      ArrayNode pools = node.putArray("hugepages");
      n.hugepages().forEach(p -> pool(pools.addObject(), p.pageSizeBytes(), p.total(), p.free(), p.reserved(), p.surplus()));
    }
    ArrayNode hugepages = out.putArray("hugepages");
    for (HugepageSize h : t.hugepages()) {
      ObjectNode size = hugepages.addObject();
      pool(size, h.pageSizeBytes(), h.total(), h.free(), h.reserved(), h.surplus());
      ArrayNode mounts = size.putArray("mounts");
      h.mounts().forEach(mounts::add);
    }
    if (!t.pci().isEmpty()) {
      out.set("pci", pciTree(t.pci()));
    }
    return out;
  }

  private static ObjectNode pciTree(PciTree tree) {
    ObjectNode out = NODES.objectNode();
    ArrayNode bridges = out.putArray("hostBridges");
    tree.hostBridges().forEach(n -> bridges.add(pciNode(n)));
    ArrayNode pairs = out.putArray("pairs");
    tree.pairs().forEach(p -> pairs.addObject().put("a", p.deviceA()).put("b", p.deviceB()).put("link", p.link().name()));
    return out;
  }

  private static ObjectNode pciNode(PciNode n) {
    ObjectNode out = NODES.objectNode().put("address", n.address()).put("kind", n.kind().jsonName());
    putIfNotNull(out, "vendorId", n.vendorId());
    putIfNotNull(out, "deviceId", n.deviceId());
    putIfNotNull(out, "classCode", n.classCode());
    putIfNotNull(out, "numaNode", n.numaNode());
    if (!n.devices().isEmpty()) {
      ArrayNode devices = out.putArray("devices");
      n.devices().forEach(devices::add);
    }
    if (!n.children().isEmpty()) {
      ArrayNode children = out.putArray("children");
      n.children().forEach(c -> children.add(pciNode(c)));
    }
    return out;
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

  private static void pool(ObjectNode node, long pageSize, long total, long free, Long reserved, long surplus) {
    node.put("pageSizeBytes", pageSize).put("total", total).put("free", free);
    putIfNotNull(node, "reserved", reserved);
    node.put("surplus", surplus);
  }

  /** One device as the {@code discover} document shows it. */
  public static ObjectNode device(Device d) {
    ObjectNode out = NODES.objectNode();
    out.put("name", d.name()).put("source", d.source());
    ObjectNode attributes = out.putObject("attributes");
    d.attributes().forEach((k, v) -> {
      ObjectNode value = attributes.putObject(k);
      if (v instanceof AttributeValue.IntValue i) {
        value.put("int", i.value());
      } else if (v instanceof AttributeValue.BoolValue b) {
        value.put("bool", b.value());
      } else if (v instanceof AttributeValue.StringValue s) {
        value.put("string", s.value());
      } else if (v instanceof AttributeValue.VersionValue ver) {
        value.put("version", ver.value());
      } else if (v instanceof AttributeValue.StringsValue list) {
        ArrayNode items = value.putArray("strings");
        list.values().forEach(items::add);
      }
    });
    ObjectNode capacity = out.putObject("capacity");
    d.capacity().forEach((k, q) -> capacity.put(k, q.value()));
    if (d.allowMultipleAllocations()) {
      // Written only when true, as the API leaves it out when false: documents of exclusive
      // devices stay as they were.
      out.put("allowMultipleAllocations", true);
    }
    if (!d.requestPolicies().isEmpty()) {
      ObjectNode policies = out.putObject("requestPolicies");
      d.requestPolicies().forEach((k, p) -> policies.set(k, requestPolicy(p)));
    }
    // KEP-4815 counters, with the API's field names; written only when present.
    if (!d.sharedCounters().isEmpty()) {
      com.fasterxml.jackson.databind.node.ArrayNode sets = out.putArray("sharedCounters");
      d.sharedCounters().forEach(c -> counters(sets.addObject().put("name", c.name()), c.counters()));
    }
    if (!d.consumesCounters().isEmpty()) {
      com.fasterxml.jackson.databind.node.ArrayNode uses = out.putArray("consumesCounters");
      d.consumesCounters().forEach(c -> counters(uses.addObject().put("counterSet", c.counterSet()), c.counters()));
    }
    if (!d.nodeAllocatableResources().isEmpty()) {
      ObjectNode mappings = out.putObject("nodeAllocatableResources");
      d.nodeAllocatableResources().forEach((k, m) -> mappings.putObject(k).set("mapping", nodeAllocatableMapping(m)));
    }
    out.set("containerEdits", containerEdits(d.containerEdits()));
    return out;
  }

  private static void counters(ObjectNode parent, Map<String, Quantity> counters) {
    ObjectNode out = parent.putObject("counters");
    counters.forEach((k, q) -> out.putObject(k).put("value", q.value()));
  }

  private static java.util.SortedMap<String, Quantity> readCounters(JsonNode parent) {
    java.util.SortedMap<String, Quantity> out = new java.util.TreeMap<>();
    parent.path("counters").fields().forEachRemaining(e -> out.put(e.getKey(), Quantity.parse(text(e.getValue(), "value"))));
    return out;
  }

  /** A KEP-5517 {@code NodeAllocatableMapping} with the API's field names. */
  public static ObjectNode nodeAllocatableMapping(NodeAllocatableMapping m) {
    ObjectNode out = NODES.objectNode();
    m.capacityKey().ifPresent(k -> out.put("capacityKey", k));
    m.capacityMultiplier().ifPresent(q -> out.put("capacityMultiplier", q.value()));
    m.deviceMultiplier().ifPresent(q -> out.put("deviceMultiplier", q.value()));
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

  /** A request policy with the API's field names ({@code default}, {@code validRange}, {@code validValues}). */
  public static ObjectNode requestPolicy(RequestPolicy p) {
    ObjectNode out = NODES.objectNode();
    out.put("default", p.defaultValue().value());
    p.validRange().ifPresent(r -> {
      ObjectNode range = out.putObject("validRange");
      r.max().ifPresent(q -> range.put("max", q.value()));
      range.put("min", r.min().value());
      r.step().ifPresent(q -> range.put("step", q.value()));
    });
    if (!p.validValues().isEmpty()) {
      ArrayNode values = out.putArray("validValues");
      p.validValues().forEach(q -> values.add(q.value()));
    }
    return out;
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

  /** Container edits with CDI's field names; empty lists are left out. */
  public static ObjectNode containerEdits(ContainerEdits e) {
    ObjectNode out = NODES.objectNode();
    if (!e.env().isEmpty()) {
      ArrayNode env = out.putArray("env");
      e.env().forEach(env::add);
    }
    if (!e.deviceNodes().isEmpty()) {
      ArrayNode nodes = out.putArray("deviceNodes");
      for (ContainerEdits.DeviceNode n : e.deviceNodes()) {
        ObjectNode node = nodes.addObject().put("path", n.path());
        putIfNotNull(node, "hostPath", n.hostPath());
        putIfNotNull(node, "type", n.type());
        putIfNotNull(node, "major", n.major());
        putIfNotNull(node, "minor", n.minor());
        putIfNotNull(node, "fileMode", n.fileMode());
        putIfNotNull(node, "permissions", n.permissions());
        putIfNotNull(node, "uid", n.uid());
        putIfNotNull(node, "gid", n.gid());
      }
    }
    if (!e.mounts().isEmpty()) {
      ArrayNode mounts = out.putArray("mounts");
      for (ContainerEdits.Mount m : e.mounts()) {
        ObjectNode mount = mounts.addObject().put("hostPath", m.hostPath()).put("containerPath", m.containerPath());
        putIfNotNull(mount, "type", m.type());
        if (!m.options().isEmpty()) {
          ArrayNode options = mount.putArray("options");
          m.options().forEach(options::add);
        }
      }
    }
    if (!e.hooks().isEmpty()) {
      ArrayNode hooks = out.putArray("hooks");
      for (ContainerEdits.Hook h : e.hooks()) {
        ObjectNode hook = hooks.addObject().put("hookName", h.hookName()).put("path", h.path());
        if (!h.args().isEmpty()) {
          ArrayNode args = hook.putArray("args");
          h.args().forEach(args::add);
        }
        if (!h.env().isEmpty()) {
          ArrayNode env = hook.putArray("env");
          h.env().forEach(env::add);
        }
        putIfNotNull(hook, "timeout", h.timeout());
      }
    }
    if (!e.netDevices().isEmpty()) {
      ArrayNode nets = out.putArray("netDevices");
      e.netDevices().forEach(n -> nets.addObject().put("hostInterfaceName", n.hostInterfaceName()).put("name", n.name()));
    }
    return out;
  }

  private static void putIfNotNull(ObjectNode node, String key, Object value) {
    if (value instanceof String s) {
      node.put(key, s);
    } else if (value instanceof Long l) {
      node.put(key, l);
    } else if (value instanceof Integer i) {
      node.put(key, i);
    }
  }

  // ---- reading -------------------------------------------------------------------------------

  public NodeReport fromTree(JsonNode root) {
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

  public static Device readDevice(JsonNode d) {
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
}
