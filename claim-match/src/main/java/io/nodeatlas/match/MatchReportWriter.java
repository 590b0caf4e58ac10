package io.nodeatlas.match;

import com.fasterxml.jackson.core.JsonProcessingException;
import com.fasterxml.jackson.databind.SerializationFeature;
import com.fasterxml.jackson.databind.json.JsonMapper;
import com.fasterxml.jackson.databind.node.ArrayNode;
import com.fasterxml.jackson.databind.node.JsonNodeFactory;
import com.fasterxml.jackson.databind.node.ObjectNode;
import io.nodeatlas.match.MatchReport.AlternativeReport;
import io.nodeatlas.match.MatchReport.ClaimReport;
import io.nodeatlas.match.MatchReport.ClassReport;
import io.nodeatlas.match.MatchReport.Rejection;
import io.nodeatlas.match.MatchReport.RequestReport;
import io.nodeatlas.match.MatchReport.SelectorReport;
import io.nodeatlas.match.cel.SelectorResult;
import java.util.List;

/** Renders a {@link MatchReport} as a text table or as JSON (fields in a fixed order, byte-stable). */
public final class MatchReportWriter {

  private static final JsonNodeFactory NODES = JsonNodeFactory.instance;

  private MatchReportWriter() {}

  /** How much per-device detail the text shows. */
  public enum Explain {
    /** Verdicts, reasons, requests and allocations. */
    NONE,
    /** Also why each device the request's DeviceClass admits does not serve it, and what allocations consume. */
    ADMITTED,
    /** Also why each device the DeviceClass itself refuses does not serve it. */
    ALL
  }

  public static String table(MatchReport report, boolean explain) {
    return table(report, explain ? Explain.ADMITTED : Explain.NONE);
  }

  /**
   * The text report: per claim the verdict and the reason first, then its requests and allocation, then
   * (with {@code explain}) the per-device detail; the DeviceClasses they use last (all of them when there are no claims). Amounts of byte capacities read as
   * people write them ({@link Amounts#HUMAN}).
   */
  public static String table(MatchReport report, Explain explain) {
    Amounts amounts = Amounts.HUMAN;
    StringBuilder out = new StringBuilder();
    for (ClaimReport claim : report.claims()) {
      out.append(claim.displayName()).append(": ").append(claim.satisfiable() ? "satisfiable on this node" : "NOT satisfiable on this node")
          .append('\n');
      if (!claim.satisfiable()) {
        out.append("  reason: ").append(claim.reason()).append('\n');
      }
      if (claim.satisfiable()) {
        claim.allocation().forEach((req, devs) -> out.append("  allocation ").append(req).append(" -> ")
            .append(String.join(", ", devs)).append('\n'));
        if (explain != Explain.NONE) {
          for (MatchReport.Consumed c : claim.consumed()) {
            out.append("    ").append(c.request()).append(" on ").append(c.device()).append(": ");
            if (c.exclusive()) {
              out.append("the whole device (exclusive)\n");
            } else {
              out.append("consumes ").append(amounts.text(c.capacity(), c.amount())).append(' ').append(c.capacity())
                  .append(", ").append(amounts.text(c.capacity(), c.left())).append(" of ")
                  .append(amounts.text(c.capacity(), c.total())).append(" left\n");
            }
          }
        }
      }
      out.append(String.format("  %-24s %-28s %-10s %-8s %s%n", "REQUEST", "CLASS", "MODE", "MATCHES", "DEVICES"));
      for (RequestReport r : claim.requests()) {
        for (AlternativeReport a : r.alternatives()) {
          String name = r.firstAvailable() ? r.name() + "/" + a.name() : r.name();
          String mode = a.allocationMode().equals("All") ? "All" : "count=" + a.count();
          String devices = a.devices().isEmpty() ? "-" : String.join(",", a.devices());
          out.append(String.format("  %-24s %-28s %-10s %-8s %s%n", name, a.deviceClassName(), mode, a.devices().size(), devices));
          if (!a.capacityRequests().isEmpty()) {
            java.util.Map<String, String> shown = new java.util.TreeMap<>();
            a.capacityRequests().forEach((k, v) -> shown.put(k, amounts.text(k, v)));
            out.append("    capacity requests: ").append(shown).append('\n');
          }
          grouped(a.errors()).forEach((why, devs) -> out.append("    error on ").append(devs).append(": ").append(why).append('\n'));
          selectorNotes(out, a.selectors(), "    ");
        }
      }
      claim.constraints().forEach(c -> out.append("  constraint ").append(c.kind()).append(' ').append(c.attribute())
          .append(c.requests().isEmpty() ? " (all requests)" : " (" + String.join(", ", c.requests()) + ")").append('\n'));
      if (explain != Explain.NONE) {
        details(out, claim, explain, amounts);
      }
    }
    // With claims, only the DeviceClasses they use; the others are noise under the answer.
    java.util.Set<String> used = new java.util.HashSet<>();
    report.claims().forEach(c -> c.requests().forEach(r -> r.alternatives().forEach(a -> used.add(a.deviceClassName()))));
    List<ClassReport> classes = report.claims().isEmpty() ? report.classes()
        : report.classes().stream().filter(c -> used.contains(c.name())).toList();
    if (!classes.isEmpty() && !report.claims().isEmpty()) {
      out.append('\n');
    }
    for (ClassReport c : classes) {
      out.append("DeviceClass ").append(c.name()).append(": ").append(c.devices().size()).append(" device")
          .append(c.devices().size() == 1 ? "" : "s").append(c.devices().isEmpty() ? "" : " " + String.join(", ", c.devices()))
          .append('\n');
      selectorNotes(out, c.selectors(), "  ");
    }
    return out.toString();
  }

  /** Per request, why each device does not serve it: those its DeviceClass admits, or all with {@link Explain#ALL}. */
  private static void details(StringBuilder out, ClaimReport claim, Explain explain, Amounts amounts) {
    for (RequestReport r : claim.requests()) {
      for (AlternativeReport a : r.alternatives()) {
        List<Rejection> shown = a.rejected().stream().filter(x -> x.outcome() != SelectorResult.Outcome.ERROR)
            .filter(x -> explain == Explain.ALL || !x.failedAt().startsWith("DeviceClass ")).toList();
        long refusedByClass = a.rejected().stream().filter(x -> x.failedAt().startsWith("DeviceClass ")).count();
        if (shown.isEmpty() && a.consumption().isEmpty() && (refusedByClass == 0 || explain == Explain.ALL)) {
          continue;
        }
        String name = r.firstAvailable() ? r.name() + "/" + a.name() : r.name();
        out.append("  ").append(name).append(", per device:\n");
        a.consumption().forEach(c -> out.append("    ").append(c.device()).append(": consumes ")
            .append(amounts.text(c.capacity(), c.consumed())).append(" of ").append(c.capacity())
            .append(c.requested() == null ? "" : " (requested " + amounts.text(c.capacity(), c.requested()) + ")")
            .append(": ").append(c.rule()).append('\n'));
        for (Rejection x : shown) {
          out.append("    ").append(x.device()).append(": ").append(x.failedAt()).append(' ').append(x.detail());
          if (x.expression() != null) {
            out.append(": ").append(x.expression().replace('\n', ' '));
          }
          out.append('\n');
          for (SelectorResult.Observed o : x.observed()) {
            out.append("      ").append(o.path()).append(" = ").append(o.value()).append('\n');
          }
        }
        if (explain != Explain.ALL && refusedByClass > 0) {
          out.append("    (").append(refusedByClass).append(" device").append(refusedByClass == 1 ? "" : "s")
              .append(" DeviceClass ").append(a.deviceClassName()).append(" refuses not shown; --explain=all shows them)\n");
        }
      }
    }
  }

  /** Rejections with the same check and detail, as "dev-a, dev-b" (or "dev-a, dev-b, dev-c and 5 more") per reason. */
  private static java.util.Map<String, String> grouped(List<Rejection> rejections) {
    java.util.Map<String, List<String>> by = new java.util.LinkedHashMap<>();
    rejections.forEach(e -> by.computeIfAbsent(e.failedAt() + ": " + e.detail(), k -> new java.util.ArrayList<>()).add(e.device()));
    java.util.Map<String, String> out = new java.util.LinkedHashMap<>();
    by.forEach((why, devs) -> out.put(why, devs.size() <= 4 ? String.join(", ", devs)
        : String.join(", ", devs.subList(0, 3)) + " and " + (devs.size() - 3) + " more"));
    return out;
  }

  private static void selectorNotes(StringBuilder out, List<SelectorReport> selectors, String indent) {
    for (SelectorReport s : selectors) {
      if (s.neverMatches()) {
        out.append(indent).append("selector #").append(s.index()).append(" can never match on this node (0 devices")
            .append(s.errors() > 0 ? ", " + s.errors() + " errors" : "").append("): ").append(s.expression().replace('\n', ' '))
            .append('\n');
      }
      s.warnings().forEach(w -> out.append(indent).append("hint: ").append(w).append('\n'));
    }
  }

  public static String json(MatchReport report) {
    ObjectNode root = NODES.objectNode();
    root.put("node", report.node());
    root.put("satisfiable", report.allSatisfiable());
    ArrayNode classes = root.putArray("deviceClasses");
    for (ClassReport c : report.classes()) {
      ObjectNode n = classes.addObject().put("name", c.name()).put("origin", c.origin());
      strings(n.putArray("devices"), c.devices());
      selectors(n.putArray("selectors"), c.selectors());
    }
    ArrayNode claims = root.putArray("claims");
    for (ClaimReport claim : report.claims()) {
      ObjectNode n = claims.addObject().put("kind", claim.kind());
      if (claim.namespace() != null) {
        n.put("namespace", claim.namespace());
      }
      n.put("name", claim.name()).put("origin", claim.origin()).put("satisfiable", claim.satisfiable());
      if (claim.reason() != null) {
        n.put("reason", claim.reason());
      }
      ObjectNode allocation = n.putObject("allocation");
      claim.allocation().forEach((k, v) -> strings(allocation.putArray(k), v));
      ArrayNode consumed = n.putArray("consumed");
      for (MatchReport.Consumed c : claim.consumed()) {
        ObjectNode cn = consumed.addObject().put("request", c.request()).put("device", c.device());
        if (c.exclusive()) {
          cn.put("exclusive", true);
        } else {
          cn.put("capacity", c.capacity()).put("amount", c.amount()).put("left", c.left()).put("total", c.total());
        }
      }
      ArrayNode requests = n.putArray("requests");
      for (RequestReport r : claim.requests()) {
        ObjectNode rn = requests.addObject().put("name", r.name()).put("firstAvailable", r.firstAvailable());
        ArrayNode alts = rn.putArray("alternatives");
        for (AlternativeReport a : r.alternatives()) {
          ObjectNode an = alts.addObject().put("name", a.name()).put("deviceClassName", a.deviceClassName())
              .put("allocationMode", a.allocationMode()).put("count", a.count());
          ObjectNode cap = an.putObject("capacityRequests");
          a.capacityRequests().forEach(cap::put);
          strings(an.putArray("devices"), a.devices());
          ArrayNode rejected = an.putArray("rejected");
          for (Rejection x : a.rejected()) {
            ObjectNode xn = rejected.addObject().put("device", x.device()).put("failedAt", x.failedAt())
                .put("outcome", x.outcome().name().toLowerCase(java.util.Locale.ROOT)).put("detail", x.detail());
            if (x.expression() != null) {
              xn.put("expression", x.expression());
            }
            ObjectNode observed = xn.putObject("observed");
            x.observed().forEach(o -> observed.put(o.path(), o.value()));
          }
          selectors(an.putArray("selectors"), a.selectors());
          ArrayNode consumption = an.putArray("consumption");
          for (MatchReport.CapacityConsumption c : a.consumption()) {
            ObjectNode cn = consumption.addObject().put("device", c.device()).put("capacity", c.capacity());
            if (c.requested() != null) {
              cn.put("requested", c.requested());
            }
            cn.put("consumes", c.consumed()).put("rule", c.rule());
          }
        }
      }
      ArrayNode constraints = n.putArray("constraints");
      claim.constraints().forEach(c -> {
        ObjectNode cn = constraints.addObject().put(c.kind(), c.attribute());
        strings(cn.putArray("requests"), c.requests());
      });
    }
    try {
      return JsonMapper.builder().enable(SerializationFeature.INDENT_OUTPUT).build().writeValueAsString(root) + "\n";
    } catch (JsonProcessingException e) {
      throw new IllegalStateException("cannot serialise match report", e);
    }
  }

  private static void selectors(ArrayNode out, List<SelectorReport> selectors) {
    for (SelectorReport s : selectors) {
      ObjectNode n = out.addObject().put("index", s.index()).put("expression", s.expression())
          .put("matchingDevices", s.matchingDevices()).put("errors", s.errors()).put("neverMatches", s.neverMatches());
      strings(n.putArray("hints"), s.warnings());
    }
  }

  private static void strings(ArrayNode out, List<String> values) {
    values.forEach(out::add);
  }
}
