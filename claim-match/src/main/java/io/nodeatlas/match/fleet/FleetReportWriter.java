package io.nodeatlas.match.fleet;

import com.fasterxml.jackson.core.JsonProcessingException;
import com.fasterxml.jackson.databind.ObjectMapper;
import com.fasterxml.jackson.databind.SerializationFeature;
import com.fasterxml.jackson.databind.json.JsonMapper;
import com.fasterxml.jackson.databind.node.ArrayNode;
import com.fasterxml.jackson.databind.node.JsonNodeFactory;
import com.fasterxml.jackson.databind.node.ObjectNode;
import com.fasterxml.jackson.dataformat.yaml.YAMLGenerator;
import com.fasterxml.jackson.dataformat.yaml.YAMLMapper;
import io.nodeatlas.match.Amounts;
import io.nodeatlas.match.MatchReport.Consumed;
import io.nodeatlas.match.fleet.FleetReport.ClaimVerdict;
import io.nodeatlas.match.fleet.FleetReport.NodeVerdict;
import java.util.ArrayList;
import java.util.List;

/** Renders a {@link FleetReport}: the summary line, then one line per node; or JSON / YAML with exact amounts. */
public final class FleetReportWriter {

  private FleetReportWriter() {}

  public static String table(FleetReport report) {
    return table(report, java.util.Map.of());
  }

  /**
   * The summary line, then per node the devices it would give or its first blocking reason; under a node
   * that {@code explanations} names, its text (the single-node {@code --explain} report), indented.
   */
  public static String table(FleetReport report, java.util.Map<String, String> explanations) {
    StringBuilder out = new StringBuilder(report.summary()).append('\n');
    int width = Math.max(4, report.verdicts().stream().mapToInt(v -> v.node().length()).max().orElse(4));
    out.append(String.format("%-" + width + "s  %-4s  %s%n", "NODE", "FITS", "DEVICES, OR WHY NOT"));
    for (NodeVerdict v : report.verdicts()) {
      out.append(String.format("%-" + width + "s  %-4s  %s%n", v.node(), v.fits() ? "yes" : "no",
          v.fits() ? devices(v) : v.reason()));
      String explained = explanations.get(v.node());
      if (explained != null) {
        explained.lines().forEach(l -> out.append(l.isEmpty() ? "" : "    " + l).append('\n'));
      }
    }
    report.warnings().forEach(w -> out.append("warning: ").append(w).append('\n'));
    return out.toString();
  }

  /** {@code gpu -> gpu-0; pages -> hugepages-2mi-numa0 (1Gi nodeatlas.io/memory, 7Gi of 8Gi left)}. */
  private static String devices(NodeVerdict v) {
    List<String> parts = new ArrayList<>();
    for (ClaimVerdict c : v.claims()) {
      c.allocation().forEach((request, devices) -> {
        List<String> shown = new ArrayList<>();
        for (String d : devices) {
          List<String> shares = c.consumed().stream()
              .filter(x -> !x.exclusive() && x.request().equals(request) && x.device().equals(d))
              .map(x -> Amounts.HUMAN.text(x.capacity(), x.amount()) + " " + x.capacity() + ", "
                  + Amounts.HUMAN.text(x.capacity(), x.left()) + " of " + Amounts.HUMAN.text(x.capacity(), x.total()) + " left")
              .toList();
          shown.add(shares.isEmpty() ? d : d + " (" + String.join("; ", shares) + ")");
        }
        parts.add((v.claims().size() > 1 ? c.claim() + ": " : "") + request + " -> " + String.join(", ", shown));
      });
    }
    return String.join("; ", parts);
  }

  public static String json(FleetReport report) {
    try {
      return JsonMapper.builder().enable(SerializationFeature.INDENT_OUTPUT).build().writeValueAsString(tree(report)) + "\n";
    } catch (JsonProcessingException e) {
      throw new IllegalStateException("cannot serialise the fleet report", e);
    }
  }

  public static String yaml(FleetReport report) {
    try {
      ObjectMapper yaml = YAMLMapper.builder().disable(YAMLGenerator.Feature.WRITE_DOC_START_MARKER)
          .enable(YAMLGenerator.Feature.MINIMIZE_QUOTES).disable(YAMLGenerator.Feature.SPLIT_LINES).build();
      return yaml.writeValueAsString(tree(report));
    } catch (JsonProcessingException e) {
      throw new IllegalStateException("cannot serialise the fleet report", e);
    }
  }

  /** The same document as YAML, for outputs written as JSON first. */
  public static String yamlOf(String json) {
    try {
      ObjectMapper yaml = YAMLMapper.builder().disable(YAMLGenerator.Feature.WRITE_DOC_START_MARKER)
          .enable(YAMLGenerator.Feature.MINIMIZE_QUOTES).disable(YAMLGenerator.Feature.SPLIT_LINES).build();
      return yaml.writeValueAsString(new ObjectMapper().readTree(json));
    } catch (JsonProcessingException e) {
      throw new IllegalStateException("cannot convert the report to YAML", e);
    }
  }

  static ObjectNode tree(FleetReport report) {
    ObjectNode root = JsonNodeFactory.instance.objectNode();
    root.put("summary", report.summary()).put("nodesFit", report.fitting()).put("nodes", report.verdicts().size());
    ArrayNode nodes = root.putArray("verdicts");
    for (NodeVerdict v : report.verdicts()) {
      ObjectNode n = nodes.addObject().put("node", v.node()).put("fits", v.fits());
      if (v.reason() != null) {
        n.put("reason", v.reason());
      }
      ArrayNode claims = n.putArray("claims");
      for (ClaimVerdict c : v.claims()) {
        ObjectNode cn = claims.addObject().put("claim", c.claim()).put("fits", c.fits());
        if (c.reason() != null) {
          cn.put("reason", c.reason());
        }
        ObjectNode allocation = cn.putObject("allocation");
        c.allocation().forEach((k, devs) -> {
          ArrayNode list = allocation.putArray(k);
          devs.forEach(list::add);
        });
        ArrayNode consumed = cn.putArray("consumed");
        for (Consumed x : c.consumed()) {
          ObjectNode xn = consumed.addObject().put("request", x.request()).put("device", x.device());
          if (x.exclusive()) {
            xn.put("exclusive", true);
          } else {
            xn.put("capacity", x.capacity()).put("amount", x.amount()).put("left", x.left()).put("total", x.total());
          }
        }
      }
    }
    report.warnings().forEach(root.putArray("warnings")::add);
    return root;
  }
}
