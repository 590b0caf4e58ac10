package io.nodeatlas.discovery.report;

import com.fasterxml.jackson.core.JsonFactory;
import com.fasterxml.jackson.core.JsonGenerator;
import com.fasterxml.jackson.core.JsonParser;
import com.fasterxml.jackson.core.JsonProcessingException;
import com.fasterxml.jackson.core.util.DefaultPrettyPrinter;
import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import com.fasterxml.jackson.databind.SerializationFeature;
import com.fasterxml.jackson.databind.cfg.JsonNodeFeature;
import com.fasterxml.jackson.databind.json.JsonMapper;
import com.fasterxml.jackson.databind.node.ObjectNode;
import com.fasterxml.jackson.databind.util.TokenBuffer;
import com.fasterxml.jackson.dataformat.yaml.YAMLFactory;
import com.fasterxml.jackson.dataformat.yaml.YAMLGenerator;
import com.fasterxml.jackson.dataformat.yaml.YAMLMapper;
import io.nodeatlas.discovery.model.AttributeValue;
import io.nodeatlas.discovery.model.ContainerEdits;
import io.nodeatlas.discovery.model.Device;
import io.nodeatlas.discovery.model.Quantity;
import io.nodeatlas.discovery.model.NodeAllocatableMapping;
import io.nodeatlas.discovery.model.RequestPolicy;
import io.nodeatlas.discovery.topology.Topology;
import io.nodeatlas.discovery.topology.Topology.CacheInfo;
import io.nodeatlas.discovery.topology.Topology.ClusterInfo;
import io.nodeatlas.discovery.topology.Topology.CoreInfo;
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
import java.util.List;
import java.util.Map;
import java.util.SortedMap;
import java.util.TreeMap;

/**
 * The {@code discover} document (schema {@code v1}, documented in the README) to and from JSON and
 * YAML. The mapping is written out by hand as Jackson generator events rather than by reflection, so
 * the document's shape is visible in one place and does not change when a record gains a component.
 * Members are written in sorted order and null values are left out, so output is byte-stable.
 *
 * <p>JSON is written by the streaming generator straight from the report: the same bytes as an
 * {@link ObjectMapper} with {@code INDENT_OUTPUT} and {@code WRITE_PROPERTIES_SORTED} writes for the
 * tree of the same events (NodeReportCodecTest compares both), with no tree and no mapper, which is
 * what a one-shot {@code discover} would otherwise spend most of its output time on. Trees, reading
 * and YAML use a mapper, built on first use.
 */
public final class NodeReportCodec {

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

  /** The mapper whose output {@link #toJson(NodeReport)} reproduces for the report's tree; reading uses it too. */
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

  /** The report as sorted, indented JSON, ending in a newline. */
  public String toJson(NodeReport report) {
    StringWriter out = new StringWriter(1 << 14);
    try (JsonGenerator g = jsonFactory.createGenerator(out)) {
      g.setPrettyPrinter(new DefaultPrettyPrinter());
      writeReport(g, report);
    } catch (IOException e) {
      throw new IllegalStateException("cannot serialise report", e);
    }
    return out.append('\n').toString();
  }

  public String toYaml(NodeReport report) {
    return write(yaml(), toTree(report));
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

  /**
   * The document as a tree (YAML, tests), built from the same events {@link #toJson(NodeReport)} writes.
   */
  public ObjectNode toTree(NodeReport report) {
    return (ObjectNode) tree(json(), g -> writeReport(g, report));
  }

  /** One device as the {@code discover} document shows it. */
  public static ObjectNode device(Device d) {
    return (ObjectNode) tree(newJsonMapper(), g -> writeDevice(g, d));
  }

  /** Something written by one of the writers below. */
  private interface Events {
    void writeTo(JsonGenerator g) throws IOException;
  }

  /** The tree of what {@code events} writes, read back by {@code mapper} through a token buffer. */
  private static JsonNode tree(ObjectMapper mapper, Events events) {
    try (TokenBuffer buffer = new TokenBuffer(null, false)) {
      events.writeTo(buffer);
      try (JsonParser parser = buffer.asParser()) {
        return mapper.readTree(parser);
      }
    } catch (IOException e) {
      throw new IllegalStateException("cannot serialise report", e);
    }
  }

  /*
   * The writers below emit each object's members in ascending order of their names (String.compareTo,
   * as WRITE_PROPERTIES_SORTED orders them), leaving out null values. NodeReportCodecTest checks the
   * order against a mapper that sorts.
   */

  private static void writeReport(JsonGenerator g, NodeReport report) throws IOException {
    g.writeStartObject();
    g.writeFieldName("devices");
    g.writeStartArray();
    for (Device d : report.devices()) {
      writeDevice(g, d);
    }
    g.writeEndArray();
    g.writeFieldName("host");
    g.writeStartObject();
    optional(g, "hostRoot", report.host().hostRoot());
    optional(g, "hostname", report.host().hostname());
    optional(g, "kernel", report.host().kernel());
    g.writeEndObject();
    g.writeStringField("schemaVersion", report.schemaVersion());
    g.writeFieldName("sources");
    g.writeStartObject();
    for (Map.Entry<String, SourceStatus> e : sorted(report.sources()).entrySet()) {
      g.writeStringField(e.getKey(), e.getValue().jsonName());
    }
    g.writeEndObject();
    g.writeFieldName("topology");
    writeTopology(g, report.topology());
    g.writeFieldName("warnings");
    g.writeStartArray();
    for (DiscoveryWarning w : report.warnings()) {
      g.writeStartObject();
      g.writeStringField("message", w.message());
      g.writeStringField("source", w.source());
      g.writeEndObject();
    }
    g.writeEndArray();
    g.writeEndObject();
  }

  private static void writeTopology(JsonGenerator g, Topology t) throws IOException {
    g.writeStartObject();
    g.writeFieldName("caches");
    g.writeStartArray();
    for (CacheInfo c : t.caches()) {
      g.writeStartObject();
      g.writeStringField("cpus", c.cpus().toString());
      g.writeNumberField("level", c.level());
      g.writeNumberField("sizeBytes", c.sizeBytes());
      g.writeStringField("type", c.type().jsonName());
      g.writeEndObject();
    }
    g.writeEndArray();
    g.writeFieldName("clusters");
    g.writeStartArray();
    for (ClusterInfo c : t.clusters()) {
      g.writeStartObject();
      g.writeStringField("cpus", c.cpus().toString());
      g.writeNumberField("id", c.id());
      g.writeNumberField("package", c.packageId());
      g.writeEndObject();
    }
    g.writeEndArray();
    g.writeFieldName("cores");
    g.writeStartArray();
    for (CoreInfo c : t.cores()) {
      g.writeStartObject();
      g.writeStringField("cpus", c.cpus().toString());
      g.writeNumberField("die", c.dieId());
      g.writeNumberField("id", c.id());
      g.writeNumberField("package", c.packageId());
      optional(g, "type", c.type());
      g.writeEndObject();
    }
    g.writeEndArray();
    g.writeFieldName("cpus");
    g.writeStartObject();
    g.writeStringField("offline", t.cpus().offline().toString());
    g.writeStringField("online", t.cpus().online().toString());
    g.writeStringField("possible", t.cpus().possible().toString());
    g.writeEndObject();
    g.writeFieldName("dies");
    g.writeStartArray();
    for (DieInfo d : t.dies()) {
      g.writeStartObject();
      g.writeStringField("cpus", d.cpus().toString());
      g.writeNumberField("id", d.id());
      g.writeNumberField("package", d.packageId());
      g.writeEndObject();
    }
    g.writeEndArray();
    g.writeFieldName("hugepages");
    g.writeStartArray();
    for (HugepageSize h : t.hugepages()) {
      g.writeStartObject();
      g.writeNumberField("free", h.free());
      g.writeFieldName("mounts");
      strings(g, h.mounts());
      g.writeNumberField("pageSizeBytes", h.pageSizeBytes());
      optional(g, "reserved", h.reserved());
      g.writeNumberField("surplus", h.surplus());
      g.writeNumberField("total", h.total());
      g.writeEndObject();
    }
    g.writeEndArray();
    g.writeFieldName("numaNodes");
    g.writeStartArray();
    for (NumaNodeInfo n : t.numaNodes()) {
      writeNumaNode(g, n);
    }
    g.writeEndArray();
    g.writeFieldName("packages");
    g.writeStartArray();
    for (PackageInfo p : t.packages()) {
      g.writeStartObject();
      g.writeStringField("cpus", p.cpus().toString());
      g.writeNumberField("id", p.id());
      g.writeEndObject();
    }
    g.writeEndArray();
    if (!t.pci().isEmpty()) {
      g.writeFieldName("pci");
      writePciTree(g, t.pci());
    }
    g.writeEndObject();
  }

  private static void writeNumaNode(JsonGenerator g, NumaNodeInfo n) throws IOException {
    g.writeStartObject();
    g.writeStringField("cpus", n.cpus().toString());
    // Keyed by the node id's decimal text, so "10" sorts before "2".
    TreeMap<String, Integer> distances = new TreeMap<>();
    n.distances().forEach((id, d) -> distances.put(Integer.toString(id), d));
    g.writeFieldName("distances");
    g.writeStartObject();
    for (Map.Entry<String, Integer> e : distances.entrySet()) {
      g.writeNumberField(e.getKey(), e.getValue());
    }
    g.writeEndObject();
    g.writeFieldName("hugepages");
    g.writeStartArray();
    for (HugepagePool p : n.hugepages()) {
      g.writeStartObject();
      g.writeNumberField("free", p.free());
      g.writeNumberField("pageSizeBytes", p.pageSizeBytes());
      optional(g, "reserved", p.reserved());
      g.writeNumberField("surplus", p.surplus());
      g.writeNumberField("total", p.total());
      g.writeEndObject();
    }
    g.writeEndArray();
    g.writeNumberField("id", n.id());
    if (!n.initiatorNodes().isEmpty()) {
      g.writeStringField("initiatorCpus", n.initiatorCpus().toString());
      g.writeFieldName("initiatorNodes");
      g.writeStartArray();
      for (int id : n.initiatorNodes()) {
        g.writeNumber(id);
      }
      g.writeEndArray();
    }
    optional(g, "memoryFreeBytes", n.memoryFreeBytes());
    if (n.memoryOnly() && n.memoryTotalBytes() != null && n.memoryTotalBytes() > 0) {
      g.writeBooleanField("memoryOnly", true);
    }
    optional(g, "memoryTier", n.memoryTier());
    optional(g, "memoryTotalBytes", n.memoryTotalBytes());
    g.writeEndObject();
  }

  private static void writePciTree(JsonGenerator g, PciTree tree) throws IOException {
    g.writeStartObject();
    g.writeFieldName("hostBridges");
    g.writeStartArray();
    for (PciNode n : tree.hostBridges()) {
      writePciNode(g, n);
    }
    g.writeEndArray();
    g.writeFieldName("pairs");
    g.writeStartArray();
    for (PciPair p : tree.pairs()) {
      g.writeStartObject();
      g.writeStringField("a", p.deviceA());
      g.writeStringField("b", p.deviceB());
      g.writeStringField("link", p.link().name());
      g.writeEndObject();
    }
    g.writeEndArray();
    g.writeEndObject();
  }

  private static void writePciNode(JsonGenerator g, PciNode n) throws IOException {
    g.writeStartObject();
    g.writeStringField("address", n.address());
    if (!n.children().isEmpty()) {
      g.writeFieldName("children");
      g.writeStartArray();
      for (PciNode c : n.children()) {
        writePciNode(g, c);
      }
      g.writeEndArray();
    }
    optional(g, "classCode", n.classCode());
    optional(g, "deviceId", n.deviceId());
    if (!n.devices().isEmpty()) {
      g.writeFieldName("devices");
      strings(g, n.devices());
    }
    g.writeStringField("kind", n.kind().jsonName());
    optional(g, "numaNode", n.numaNode());
    optional(g, "vendorId", n.vendorId());
    g.writeEndObject();
  }

  private static void writeDevice(JsonGenerator g, Device d) throws IOException {
    g.writeStartObject();
    if (d.allowMultipleAllocations()) {
      // Written only when true, as the API leaves it out when false: documents of exclusive
      // devices stay as they were.
      g.writeBooleanField("allowMultipleAllocations", true);
    }
    g.writeFieldName("attributes");
    g.writeStartObject();
    for (Map.Entry<String, AttributeValue> e : sorted(d.attributes()).entrySet()) {
      g.writeFieldName(e.getKey());
      g.writeStartObject();
      AttributeValue v = e.getValue();
      if (v instanceof AttributeValue.BoolValue b) {
        g.writeBooleanField("bool", b.value());
      } else if (v instanceof AttributeValue.IntValue i) {
        g.writeNumberField("int", i.value());
      } else if (v instanceof AttributeValue.StringValue s) {
        g.writeStringField("string", s.value());
      } else if (v instanceof AttributeValue.StringsValue list) {
        g.writeFieldName("strings");
        strings(g, list.values());
      } else if (v instanceof AttributeValue.VersionValue ver) {
        g.writeStringField("version", ver.value());
      }
      g.writeEndObject();
    }
    g.writeEndObject();
    g.writeFieldName("capacity");
    g.writeStartObject();
    for (Map.Entry<String, Quantity> e : sorted(d.capacity()).entrySet()) {
      g.writeStringField(e.getKey(), e.getValue().value());
    }
    g.writeEndObject();
    // KEP-4815 counters, with the API's field names; written only when present.
    if (!d.consumesCounters().isEmpty()) {
      g.writeFieldName("consumesCounters");
      g.writeStartArray();
      for (io.nodeatlas.discovery.model.CounterConsumption c : d.consumesCounters()) {
        g.writeStartObject();
        g.writeStringField("counterSet", c.counterSet());
        writeCounters(g, c.counters());
        g.writeEndObject();
      }
      g.writeEndArray();
    }
    g.writeFieldName("containerEdits");
    writeContainerEdits(g, d.containerEdits());
    g.writeStringField("name", d.name());
    if (!d.nodeAllocatableResources().isEmpty()) {
      g.writeFieldName("nodeAllocatableResources");
      g.writeStartObject();
      for (Map.Entry<String, NodeAllocatableMapping> e : sorted(d.nodeAllocatableResources()).entrySet()) {
        g.writeFieldName(e.getKey());
        g.writeStartObject();
        g.writeFieldName("mapping");
        writeNodeAllocatableMapping(g, e.getValue());
        g.writeEndObject();
      }
      g.writeEndObject();
    }
    if (!d.requestPolicies().isEmpty()) {
      g.writeFieldName("requestPolicies");
      g.writeStartObject();
      for (Map.Entry<String, RequestPolicy> e : sorted(d.requestPolicies()).entrySet()) {
        g.writeFieldName(e.getKey());
        writeRequestPolicy(g, e.getValue());
      }
      g.writeEndObject();
    }
    if (!d.sharedCounters().isEmpty()) {
      g.writeFieldName("sharedCounters");
      g.writeStartArray();
      for (io.nodeatlas.discovery.model.CounterSet c : d.sharedCounters()) {
        g.writeStartObject();
        writeCounters(g, c.counters());
        g.writeStringField("name", c.name());
        g.writeEndObject();
      }
      g.writeEndArray();
    }
    g.writeStringField("source", d.source());
    g.writeEndObject();
  }

  private static void writeCounters(JsonGenerator g, Map<String, Quantity> counters) throws IOException {
    g.writeFieldName("counters");
    g.writeStartObject();
    for (Map.Entry<String, Quantity> e : sorted(counters).entrySet()) {
      g.writeFieldName(e.getKey());
      g.writeStartObject();
      g.writeStringField("value", e.getValue().value());
      g.writeEndObject();
    }
    g.writeEndObject();
  }

  /** A KEP-5517 {@code NodeAllocatableMapping} with the API's field names. */
  private static void writeNodeAllocatableMapping(JsonGenerator g, NodeAllocatableMapping m) throws IOException {
    g.writeStartObject();
    if (m.capacityKey().isPresent()) {
      g.writeStringField("capacityKey", m.capacityKey().get());
    }
    if (m.capacityMultiplier().isPresent()) {
      g.writeStringField("capacityMultiplier", m.capacityMultiplier().get().value());
    }
    if (m.deviceMultiplier().isPresent()) {
      g.writeStringField("deviceMultiplier", m.deviceMultiplier().get().value());
    }
    g.writeEndObject();
  }

  /** A request policy with the API's field names ({@code default}, {@code validRange}, {@code validValues}). */
  private static void writeRequestPolicy(JsonGenerator g, RequestPolicy p) throws IOException {
    g.writeStartObject();
    g.writeStringField("default", p.defaultValue().value());
    if (p.validRange().isPresent()) {
      RequestPolicy.ValidRange r = p.validRange().get();
      g.writeFieldName("validRange");
      g.writeStartObject();
      if (r.max().isPresent()) {
        g.writeStringField("max", r.max().get().value());
      }
      g.writeStringField("min", r.min().value());
      if (r.step().isPresent()) {
        g.writeStringField("step", r.step().get().value());
      }
      g.writeEndObject();
    }
    if (!p.validValues().isEmpty()) {
      g.writeFieldName("validValues");
      g.writeStartArray();
      for (Quantity q : p.validValues()) {
        g.writeString(q.value());
      }
      g.writeEndArray();
    }
    g.writeEndObject();
  }

  /** Container edits with CDI's field names; empty lists are left out. */
  private static void writeContainerEdits(JsonGenerator g, ContainerEdits e) throws IOException {
    g.writeStartObject();
    if (!e.deviceNodes().isEmpty()) {
      g.writeFieldName("deviceNodes");
      g.writeStartArray();
      for (ContainerEdits.DeviceNode n : e.deviceNodes()) {
        g.writeStartObject();
        optional(g, "fileMode", n.fileMode());
        optional(g, "gid", n.gid());
        optional(g, "hostPath", n.hostPath());
        optional(g, "major", n.major());
        optional(g, "minor", n.minor());
        g.writeStringField("path", n.path());
        optional(g, "permissions", n.permissions());
        optional(g, "type", n.type());
        optional(g, "uid", n.uid());
        g.writeEndObject();
      }
      g.writeEndArray();
    }
    if (!e.env().isEmpty()) {
      g.writeFieldName("env");
      strings(g, e.env());
    }
    if (!e.hooks().isEmpty()) {
      g.writeFieldName("hooks");
      g.writeStartArray();
      for (ContainerEdits.Hook h : e.hooks()) {
        g.writeStartObject();
        if (!h.args().isEmpty()) {
          g.writeFieldName("args");
          strings(g, h.args());
        }
        if (!h.env().isEmpty()) {
          g.writeFieldName("env");
          strings(g, h.env());
        }
        g.writeStringField("hookName", h.hookName());
        g.writeStringField("path", h.path());
        optional(g, "timeout", h.timeout());
        g.writeEndObject();
      }
      g.writeEndArray();
    }
    if (!e.mounts().isEmpty()) {
      g.writeFieldName("mounts");
      g.writeStartArray();
      for (ContainerEdits.Mount m : e.mounts()) {
        g.writeStartObject();
        g.writeStringField("containerPath", m.containerPath());
        g.writeStringField("hostPath", m.hostPath());
        if (!m.options().isEmpty()) {
          g.writeFieldName("options");
          strings(g, m.options());
        }
        optional(g, "type", m.type());
        g.writeEndObject();
      }
      g.writeEndArray();
    }
    if (!e.netDevices().isEmpty()) {
      g.writeFieldName("netDevices");
      g.writeStartArray();
      for (ContainerEdits.NetDevice n : e.netDevices()) {
        g.writeStartObject();
        g.writeStringField("hostInterfaceName", n.hostInterfaceName());
        g.writeStringField("name", n.name());
        g.writeEndObject();
      }
      g.writeEndArray();
    }
    g.writeEndObject();
  }

  private static void strings(JsonGenerator g, List<String> values) throws IOException {
    g.writeStartArray();
    for (String v : values) {
      g.writeString(v);
    }
    g.writeEndArray();
  }

  /** A member whose value may be absent: a String, Long or Integer is written, anything else left out. */
  private static void optional(JsonGenerator g, String name, Object value) throws IOException {
    if (value instanceof String s) {
      g.writeStringField(name, s);
    } else if (value instanceof Long l) {
      g.writeNumberField(name, l);
    } else if (value instanceof Integer i) {
      g.writeNumberField(name, i);
    }
  }

  /** {@code map} in ascending key order (itself when it is already sorted so). */
  private static <V> SortedMap<String, V> sorted(Map<String, V> map) {
    return map instanceof SortedMap<String, V> s && s.comparator() == null ? s : new TreeMap<>(map);
  }

  // ---- reading -------------------------------------------------------------------------------

  public NodeReport fromTree(JsonNode root) {
    return NodeReportReader.fromTree(root);
  }

  public static Device readDevice(JsonNode d) {
    return NodeReportReader.readDevice(d);
  }
}
