package io.nodeatlas.match.fleet;

import com.fasterxml.jackson.databind.JsonNode;
import io.nodeatlas.match.claims.NodeSelectorTerms;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;

/**
 * Which nodes see a ResourceSlice or one of its devices ({@code resource.k8s.io/v1}
 * {@code ResourceSliceSpec.nodeName}, {@code nodeSelector}, {@code allNodes}, and the same fields on a
 * device under {@code perDeviceNodeSelection}): one node by name, every node, or the nodes a core/v1
 * {@code NodeSelector} selects ({@link NodeSelectorTerms}).
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

  record Selector(NodeSelectorTerms terms) implements NodeSelection {
    public boolean selects(String node, Map<String, String> labels) {
      return terms.selects(node, labels);
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
    return new Selector(NodeSelectorTerms.parse(node));
  }
}
