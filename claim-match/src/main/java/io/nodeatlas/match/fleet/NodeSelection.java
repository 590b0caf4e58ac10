package io.nodeatlas.match.fleet;

import com.fasterxml.jackson.databind.JsonNode;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;

/**
 * Which nodes see a ResourceSlice or one of its devices ({@code resource.k8s.io/v1}
 * {@code ResourceSliceSpec.nodeName}, {@code nodeSelector}, {@code allNodes}, and the same fields on a
 * device under {@code perDeviceNodeSelection}): one node by name, every node, or the nodes a core/v1
 * {@code NodeSelector} selects (its terms ORed, each term's expressions and fields ANDed).
 */
public sealed interface NodeSelection {

  boolean selects(String node, Map<String, String> labels);

  record OneNode(String name) implements NodeSelection {
    public boolean selects(String node, Map<String, String> labels) {
      return name.equals(node);
    }
  }

  record AllNodes() implements NodeSelection {
    public boolean selects(String node, Map<String, String> labels) {
      return true;
    }
  }

  /** No node: a slice whose devices each say where they are ({@code perDeviceNodeSelection}). */
  record PerDevice() implements NodeSelection {
    public boolean selects(String node, Map<String, String> labels) {
      return false;
    }
  }

  record Selector(List<Term> terms) implements NodeSelection {
    public Selector {
      terms = List.copyOf(terms);
    }

    public boolean selects(String node, Map<String, String> labels) {
      return terms.stream().anyMatch(t -> t.selects(node, labels));
    }
  }

  /** One {@code NodeSelectorTerm}: an empty term selects nothing, as in the API. */
  record Term(List<Requirement> labels, List<Requirement> fields) {
    boolean selects(String node, Map<String, String> nodeLabels) {
      if (labels.isEmpty() && fields.isEmpty()) {
        return false;
      }
      return labels.stream().allMatch(r -> r.matches(nodeLabels.get(r.key())))
          && fields.stream().allMatch(r -> r.key().equals("metadata.name") && r.matches(node));
    }
  }

  /** A {@code NodeSelectorRequirement}: In, NotIn, Exists, DoesNotExist, Gt, Lt. */
  record Requirement(String key, String operator, List<String> values) {
    boolean matches(String value) {
      return switch (operator) {
        case "In" -> value != null && values.contains(value);
        case "NotIn" -> value == null || !values.contains(value);
        case "Exists" -> value != null;
        case "DoesNotExist" -> value == null;
        case "Gt", "Lt" -> value != null && values.size() == 1 && compare(value, values.get(0), operator);
        default -> false;
      };
    }

    private static boolean compare(String value, String bound, String operator) {
      try {
        long v = Long.parseLong(value);
        long b = Long.parseLong(bound);
        return operator.equals("Gt") ? v > b : v < b;
      } catch (NumberFormatException e) {
        return false;
      }
    }
  }

  /**
   * The selection of a slice spec or a device: exactly one of {@code nodeName}, {@code allNodes},
   * {@code nodeSelector} (and for a slice {@code perDeviceNodeSelection}); anything else is refused.
   */
  static NodeSelection of(JsonNode spec, boolean slice) {
    List<NodeSelection> set = new ArrayList<>();
    if (spec.path("nodeName").isTextual() && !spec.path("nodeName").asText().isEmpty()) {
      set.add(new OneNode(spec.path("nodeName").asText()));
    }
    if (spec.path("allNodes").asBoolean(false)) {
      set.add(new AllNodes());
    }
    if (spec.path("nodeSelector").isObject()) {
      set.add(selector(spec.path("nodeSelector")));
    }
    if (slice && spec.path("perDeviceNodeSelection").asBoolean(false)) {
      set.add(new PerDevice());
    }
    if (set.size() != 1) {
      throw new IllegalArgumentException("exactly one of nodeName, nodeSelector, allNodes"
          + (slice ? ", perDeviceNodeSelection" : "") + " must be set, found " + set.size());
    }
    return set.get(0);
  }

  private static Selector selector(JsonNode node) {
    List<Term> terms = new ArrayList<>();
    for (JsonNode t : node.path("nodeSelectorTerms")) {
      terms.add(new Term(requirements(t.path("matchExpressions")), requirements(t.path("matchFields"))));
    }
    return new Selector(terms);
  }

  private static List<Requirement> requirements(JsonNode list) {
    List<Requirement> out = new ArrayList<>();
    for (JsonNode r : list) {
      List<String> values = new ArrayList<>();
      r.path("values").forEach(v -> values.add(v.asText()));
      out.add(new Requirement(r.path("key").asText(""), r.path("operator").asText(""), values));
    }
    return out;
  }
}
