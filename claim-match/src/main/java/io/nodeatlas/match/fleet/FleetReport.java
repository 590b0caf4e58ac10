package io.nodeatlas.match.fleet;

import io.nodeatlas.match.MatchReport.Consumed;
import java.util.List;
import java.util.Map;

/**
 * Where the claims (or a pod's claims) would fit across the fleet: one verdict per node, the nodes that fit
 * first (each group in node-name order), and what could not be read.
 */
public record FleetReport(List<NodeVerdict> verdicts, List<String> warnings) {

  public FleetReport {
    verdicts = List.copyOf(verdicts);
    warnings = List.copyOf(warnings);
  }

  public long fitting() {
    return verdicts.stream().filter(NodeVerdict::fits).count();
  }

  /** "2 of 5 nodes fit" with the first few that do. */
  public String summary() {
    List<String> names = verdicts.stream().filter(NodeVerdict::fits).map(NodeVerdict::node).toList();
    String shown = names.isEmpty() ? "" : ": " + (names.size() <= 5 ? String.join(", ", names)
        : String.join(", ", names.subList(0, 5)) + " and " + (names.size() - 5) + " more");
    return fitting() + " of " + verdicts.size() + " node" + (verdicts.size() == 1 ? "" : "s") + " fit" + shown;
  }

  /** One node: whether every claim fits together, and the first reason when not. */
  public record NodeVerdict(String node, boolean fits, String reason, List<ClaimVerdict> claims) {
    public NodeVerdict {
      claims = List.copyOf(claims);
    }
  }

  /** One claim on one node: the devices it would get and what it consumes, or why not. */
  public record ClaimVerdict(String claim, boolean fits, String reason, Map<String, List<String>> allocation,
      List<Consumed> consumed) {
    public ClaimVerdict {
      allocation = java.util.Collections.unmodifiableMap(new java.util.LinkedHashMap<>(allocation));
      consumed = List.copyOf(consumed);
    }
  }
}
