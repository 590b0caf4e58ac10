package io.nodeatlas.match.claims;

import com.fasterxml.jackson.databind.JsonNode;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.Set;

/**
 * A {@code core/v1} {@code NodeSelector}: its terms ORed, each term's expressions (on labels) and fields
 * (only {@code metadata.name}) ANDed, an empty term selecting nothing, as the API and the scheduler's
 * {@code nodeaffinity} helpers define them. Used by ResourceSlices ({@code spec.nodeSelector}) and by a pod's
 * {@code requiredDuringSchedulingIgnoredDuringExecution} node affinity.
 */
public record NodeSelectorTerms(List<Term> terms) {

  /** Terms of one selector: the API's own limit is generous, this one keeps hostile input small. */
  static final int MAX_TERMS = 64;
  private static final Set<String> OPERATORS = Set.of("In", "NotIn", "Exists", "DoesNotExist", "Gt", "Lt");

  public NodeSelectorTerms {
    terms = List.copyOf(terms);
  }

  public boolean selects(String node, Map<String, String> labels) {
    return terms.stream().anyMatch(t -> t.selects(node, labels));
  }

  /** One {@code NodeSelectorTerm}. */
  public record Term(List<Requirement> labels, List<Requirement> fields) {
    public Term {
      labels = List.copyOf(labels);
      fields = List.copyOf(fields);
    }

    boolean selects(String node, Map<String, String> nodeLabels) {
      if (labels.isEmpty() && fields.isEmpty()) {
        return false;
      }
      return labels.stream().allMatch(r -> r.matches(nodeLabels.get(r.key())))
          && fields.stream().allMatch(r -> r.key().equals("metadata.name") && r.matches(node));
    }
  }

  /** A {@code NodeSelectorRequirement}: In, NotIn, Exists, DoesNotExist, Gt, Lt. */
  public record Requirement(String key, String operator, List<String> values) {
    public Requirement {
      values = List.copyOf(values);
    }

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

  /** Reads {@code {nodeSelectorTerms: [...]}}; throws IllegalArgumentException for what the API would refuse. */
  public static NodeSelectorTerms parse(JsonNode selector) {
    JsonNode list = selector.path("nodeSelectorTerms");
    if (!list.isArray() || list.isEmpty() || list.size() > MAX_TERMS) {
      throw new IllegalArgumentException("nodeSelectorTerms must list 1 to " + MAX_TERMS + " terms");
    }
    List<Term> terms = new ArrayList<>();
    for (JsonNode t : list) {
      terms.add(new Term(requirements(t.path("matchExpressions"), false), requirements(t.path("matchFields"), true)));
    }
    return new NodeSelectorTerms(terms);
  }

  private static List<Requirement> requirements(JsonNode list, boolean fields) {
    List<Requirement> out = new ArrayList<>();
    for (JsonNode r : list) {
      String key = r.path("key").asText("");
      String op = r.path("operator").asText("");
      List<String> values = new ArrayList<>();
      r.path("values").forEach(v -> values.add(v.asText()));
      if (!OPERATORS.contains(op)) {
        throw new IllegalArgumentException("operator \"" + op + "\" of " + key + " is none of " + new java.util.TreeSet<>(OPERATORS));
      }
      if (fields && (!key.equals("metadata.name") || !(op.equals("In") || op.equals("NotIn")) || values.size() != 1)) {
        throw new IllegalArgumentException("matchFields supports only metadata.name with In or NotIn and one value");
      }
      boolean wantsValues = op.equals("In") || op.equals("NotIn");
      boolean oneNumber = op.equals("Gt") || op.equals("Lt");
      if (wantsValues && values.isEmpty() || oneNumber && values.size() != 1
          || !wantsValues && !oneNumber && !values.isEmpty()) {
        throw new IllegalArgumentException("operator " + op + " of " + key + " takes "
            + (wantsValues ? "at least one value" : oneNumber ? "one integer value" : "no values"));
      }
      out.add(new Requirement(key, op, values));
    }
    return out;
  }
}
