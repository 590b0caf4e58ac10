package io.nodeatlas.cli.fleet;

import com.fasterxml.jackson.core.JsonFactory;
import com.fasterxml.jackson.core.JsonParser;
import com.fasterxml.jackson.core.JsonProcessingException;
import com.fasterxml.jackson.core.JsonToken;
import com.fasterxml.jackson.core.StreamReadConstraints;
import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import com.fasterxml.jackson.databind.node.ArrayNode;
import com.fasterxml.jackson.databind.node.JsonNodeFactory;
import com.fasterxml.jackson.databind.node.ObjectNode;
import io.nodeatlas.cli.SavedReport;
import io.nodeatlas.cli.UsageException;
import io.nodeatlas.discovery.host.Excerpt;
import io.nodeatlas.discovery.model.Names;
import io.nodeatlas.discovery.report.NodeReport;
import io.nodeatlas.match.Inventory.DeviceTaint;
import io.nodeatlas.match.fleet.Allocation;
import io.nodeatlas.match.fleet.FleetBuilder;
import io.nodeatlas.match.fleet.FleetNode;
import io.nodeatlas.match.fleet.NodeSelection;
import io.nodeatlas.match.fleet.PoolReport;
import io.nodeatlas.match.fleet.SliceReader;
import java.io.IOException;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.Optional;
import java.util.TreeMap;

/**
 * What the fleet commands read, from saved files or the cluster: Nodes (name and labels), ResourceSlices of
 * every driver, allocated ResourceClaims, and DeviceClasses (kept as a {@code kind: List} for the claim
 * parser). One bad object costs that object and a warning.
 */
public final class FleetInput {

  /** Saved API lists: Jackson's bounds, Kubernetes objects nest about 10 deep. */
  private static final ObjectMapper MAPPER = new ObjectMapper(JsonFactory.builder()
      .streamReadConstraints(StreamReadConstraints.builder().maxNestingDepth(64).build()).build());

  final Map<String, Map<String, String>> nodes = new TreeMap<>();
  final Map<String, List<DeviceTaint>> nodeTaints = new TreeMap<>();
  final List<SliceReader.Slice> slices = new ArrayList<>();
  /** One reader for every slice, so that their devices share repeated values. */
  private final SliceReader sliceReader = new SliceReader();
  final List<Allocation> allocations = new ArrayList<>();
  final ObjectNode deviceClasses = JsonNodeFactory.instance.objectNode().put("apiVersion", "v1").put("kind", "List");
  final List<String> warnings = new ArrayList<>();
  /** Nodes known from saved discover documents, whose labels nobody knows. */
  final List<String> unlabelled = new ArrayList<>();
  /** Whether Node objects were read; without them the slices say which nodes exist. */
  boolean nodeObjects;
  /** The saved discover documents read, in order. */
  final List<NodeReport> reports = new ArrayList<>();

  FleetInput() {
    deviceClasses.putArray("items");
  }

  /** The one saved discover document when that is all that was read (then match answers for that node alone). */
  public Optional<NodeReport> onlyReport() {
    boolean alone = reports.size() == 1 && slices.size() == 1 && allocations.isEmpty() && nodes.size() == 1
        && deviceClasses.get("items").isEmpty();
    return alone ? Optional.of(reports.get(0)) : Optional.empty();
  }

  /** The nodes with what the slices put on them and the allocated claims hold. */
  public List<FleetNode> fleet() {
    return FleetBuilder.build(nodes, nodeTaints, !nodeObjects, slices, allocations, warnings);
  }

  /** What is allocated and left in every pool read. */
  public PoolReport pools() {
    return PoolReport.of(slices, allocations);
  }

  /** The DeviceClasses read from the cluster or saved lists, as one {@code kind: List} document. */
  public String deviceClassesJson() {
    return deviceClasses.toString();
  }

  public boolean hasDeviceClasses() {
    return !deviceClasses.get("items").isEmpty();
  }

  public boolean hasUnlabelledNodes() {
    return !unlabelled.isEmpty();
  }

  public List<String> warnings() {
    return warnings;
  }

  /**
   * Whether the document is an API object or list (a top-level {@code kind} and no {@code schemaVersion}),
   * found by streaming over its top level only: a discover document is then parsed once, by its codec.
   */
  static boolean isApiObject(String text) {
    boolean kind = false;
    try (JsonParser p = MAPPER.getFactory().createParser(text)) {
      if (p.nextToken() != JsonToken.START_OBJECT) {
        return false;
      }
      while (p.nextToken() == JsonToken.FIELD_NAME) {
        String name = p.currentName();
        if (name.equals("schemaVersion")) {
          return false;
        }
        kind |= name.equals("kind");
        p.nextToken();
        p.skipChildren();
      }
    } catch (IOException e) {
      // Not JSON: the discover codec says what is wrong with it.
      return false;
    }
    return kind;
  }

  /** A saved {@code nodeatlas discover -o json} document: one node, our driver, one pool named after it. */
  void addDiscovered(String option, NodeReport report, Path file) {
    String host = report.host() == null ? null : report.host().hostname();
    if (host == null || host.isBlank() || !Names.isDnsSubdomain(host.trim().toLowerCase(Locale.ROOT))) {
      warnings.add(option + " " + file + ": the document names no usable host name; left out");
      return;
    }
    String node = host.trim().toLowerCase(Locale.ROOT);
    if (nodes.containsKey(node)) {
      warnings.add(option + " " + file + ": node " + node + " was already read; left out");
      return;
    }
    nodes.put(node, Map.of("kubernetes.io/hostname", node));
    unlabelled.add(node);
    reports.add(report);
    // Counter sets travel on the slice, as the API publishes them (KEP-4815), not on the device that carried them.
    List<SliceReader.SliceDevice> devices = report.devices().stream()
        .map(d -> new SliceReader.SliceDevice(d.withCounters(List.of(), d.consumesCounters()), List.of(), null)).toList();
    List<io.nodeatlas.discovery.model.CounterSet> counters = report.devices().stream()
        .flatMap(d -> d.sharedCounters().stream()).toList();
    slices.add(new SliceReader.Slice(node + "-discovered", Names.DRIVER, node, 0, 1, new NodeSelection.OneNode(node), devices,
        counters));
  }

  /**
   * One item of a live list call, from the page's token stream: a ResourceSlice is read straight into
   * devices and a ResourceClaim into what it holds; Nodes and classes through their trees. The list's path
   * says the kind.
   */
  void addObject(JsonParser p, String kind, String where) throws IOException {
    if (kind.equals("ResourceClaim")) {
      allocations.addAll(Allocation.of(p, warnings));
      return;
    }
    if (!kind.equals("ResourceSlice")) {
      JsonNode item = p.readValueAsTree();
      addObject(item == null ? JsonNodeFactory.instance.objectNode() : item, kind, where);
      return;
    }
    try {
      slices.add(sliceReader.slice(p, warnings));
    } catch (SliceReader.RefusedSlice e) {
      warnings.add(where + ": ResourceSlice " + e.name() + ": left out: " + e.getMessage());
    }
  }

  /** One API object of a saved list or a live list call; {@code kind} when the list's items carry none. */
  void addObject(JsonNode item, String kind, String where) {
    String k = item.path("kind").asText(kind);
    String name = item.path("metadata").path("name").asText("");
    try {
      switch (k) {
        case "ResourceSlice" -> slices.add(sliceReader.slice(item, warnings));
        case "ResourceClaim" -> allocations.addAll(Allocation.of(item, warnings));
        case "Node" -> {
          nodeObjects = true;
          Map<String, String> labels = new LinkedHashMap<>();
          item.path("metadata").path("labels").properties().forEach(e -> labels.put(e.getKey(), e.getValue().asText()));
          labels.putIfAbsent("kubernetes.io/hostname", name);
          nodes.put(name, labels);
          List<DeviceTaint> taints = new ArrayList<>();
          item.path("spec").path("taints").forEach(t -> taints.add(new DeviceTaint(t.path("key").asText(""),
              t.path("value").asText(""), t.path("effect").asText(""))));
          nodeTaints.put(name, taints);
        }
        case "DeviceClass" -> {
          ObjectNode copy = item.deepCopy();
          copy.put("apiVersion", item.path("apiVersion").asText("resource.k8s.io/v1")).put("kind", "DeviceClass");
          ((ArrayNode) deviceClasses.get("items")).add(copy);
        }
        default -> warnings.add(where + ": " + k + " " + name + " is not read by the fleet view; left out");
      }
    } catch (IllegalArgumentException e) {
      warnings.add(where + ": " + k + " " + name + ": left out: " + e.getMessage());
    }
  }

  /**
   * One item of a saved list, {@code p} at its first token: the fields before its {@code kind} are kept as
   * a tree; a ResourceSlice or ResourceClaim whose kind comes before its metadata, spec and status (as
   * kubectl and sorted keys write it) is read on from the stream, anything else as its tree.
   */
  private void addItem(JsonParser p, String where) throws IOException {
    if (p.currentToken() != JsonToken.START_OBJECT) {
      JsonNode item = p.readValueAsTree();
      addObject(item == null ? JsonNodeFactory.instance.nullNode() : item, "", where);
      return;
    }
    ObjectNode seen = JsonNodeFactory.instance.objectNode();
    while (p.nextToken() == JsonToken.FIELD_NAME) {
      String field = p.currentName();
      JsonToken t = p.nextToken();
      if (field.equals("kind") && t == JsonToken.VALUE_STRING && !seen.has("metadata") && !seen.has("spec")
          && !seen.has("status")) {
        String kind = p.getText();
        if (kind.equals("ResourceSlice")) {
          try {
            slices.add(sliceReader.sliceFields(p, warnings));
          } catch (SliceReader.RefusedSlice e) {
            warnings.add(where + ": ResourceSlice " + e.name() + ": left out: " + e.getMessage());
          }
          return;
        } else if (kind.equals("ResourceClaim")) {
          allocations.addAll(Allocation.ofFields(p, warnings));
          return;
        }
      }
      JsonNode value = p.readValueAsTree();
      seen.set(field, value == null ? JsonNodeFactory.instance.nullNode() : value);
    }
    addObject(seen, "", where);
  }

  /** A saved file: a discover document, or an API object or list ({@code kubectl get ... -o json}, {@code slices -o json}). */
  void addFile(String option, Path file) {
    String text;
    try {
      text = SavedReport.readText(option, file);
    } catch (SavedReport.InvalidReportException e) {
      throw new UsageException(e.getMessage(), e.getCause());
    }
    if (isApiObject(text)) {
      String where = option + " " + file;
      // Streamed like a page of the cluster: a list's slices and claims without a tree, the rest as trees.
      try (JsonParser p = MAPPER.createParser(text)) {
        p.nextToken();
        ObjectNode top = JsonNodeFactory.instance.objectNode();
        boolean list = false;
        while (p.nextToken() == JsonToken.FIELD_NAME) {
          String field = p.currentName();
          if (p.nextToken() == JsonToken.START_ARRAY && field.equals("items")) {
            list = true;
            while (p.nextToken() != JsonToken.END_ARRAY) {
              addItem(p, where);
            }
          } else {
            top.set(field, p.readValueAsTree());
          }
        }
        if (!list) {
          addObject(top, "", where);
        }
      } catch (IOException e) {
        throw new UsageException(option + " " + file + ": not JSON: " + Excerpt
            .scrub(String.valueOf(e instanceof JsonProcessingException j ? j.getOriginalMessage()
                : e.getMessage())).lines().findFirst().orElse(""), e);
      }
      return;
    }
    try {
      addDiscovered(option, SavedReport.parse(option, file, text), file);
    } catch (SavedReport.InvalidReportException e) {
      throw new UsageException(e.getMessage(), e.getCause());
    }
  }
}
