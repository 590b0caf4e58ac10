package io.nodeatlas.match.fleet;

import io.nodeatlas.match.ClaimMatcher;
import io.nodeatlas.match.MatchReport;
import io.nodeatlas.match.claims.ClaimInputException;
import io.nodeatlas.match.claims.ClaimModel.Documents;
import io.nodeatlas.match.fleet.FleetReport.ClaimVerdict;
import io.nodeatlas.match.fleet.FleetReport.NodeVerdict;
import java.util.ArrayList;
import java.util.Comparator;
import java.util.List;
import java.util.Map;

/**
 * Runs the single-node matcher on every node of the fleet with the same documents: on each node the claims
 * are allocated in input order against what is left after the claims already allocated there, so a node
 * fits when all of them fit together (a pod's claims are allocated together). Only the verdicts are kept,
 * not the per-device detail, so memory stays proportional to the fleet. Nodes of one shape (the same
 * devices as the checks see them and the same holds) share one verdict.
 */
public final class FleetMatcher {

  private final ClaimMatcher matcher;

  public FleetMatcher(ClaimMatcher matcher) {
    this.matcher = matcher;
  }

  /** The verdict for each node, fitting nodes first; {@code placement} refuses nodes before matching. */
  public FleetReport match(List<FleetNode> nodes, Documents documents, Placement placement, List<String> warnings)
      throws ClaimInputException {
    // Only the DeviceClasses the claims use: the others would be evaluated on every device of every node.
    java.util.Set<String> used = new java.util.HashSet<>();
    documents.claims().forEach(c -> c.requests().forEach(r -> r.alternatives().forEach(a -> used.add(a.deviceClassName()))));
    Documents needed = new Documents(documents.deviceClasses().stream().filter(c -> used.contains(c.name())).toList(),
        documents.claims(), documents.pods());
    List<NodeVerdict> verdicts = new ArrayList<>(nodes.size());
    Shapes shapes = new Shapes();
    for (FleetNode node : nodes) {
      String refused = placement.refuses(node.name(), node.labels(), node.taints());
      if (refused != null) {
        verdicts.add(new NodeVerdict(node.name(), false, refused, List.of()));
        continue;
      }
      Object shape = shapes.keyed() ? matcher.shape(node.inventory(), needed) : null;
      NodeVerdict same = shape == null ? null : shapes.known.get(shape);
      if (same != null) {
        shapes.hits++;
        verdicts.add(new NodeVerdict(node.name(), same.fits(), same.reason(), same.claims()));
        continue;
      }
      MatchReport report = matcher.match(node.name(), node.inventory(), needed);
      // The per-device detail of the report is dropped here; only the verdicts stay.
      List<ClaimVerdict> claims = new ArrayList<>();
      String reason = null;
      for (MatchReport.ClaimReport c : report.claims()) {
        claims.add(new ClaimVerdict(c.displayName(), c.satisfiable(), c.reason(), c.allocation(), c.consumed()));
        if (!c.satisfiable() && reason == null) {
          // The first blocking reason alone; the claim's verdict keeps all of them, --explain the per-device detail.
          reason = c.displayName() + ": " + c.firstReason();
        }
      }
      NodeVerdict verdict = new NodeVerdict(node.name(), reason == null, reason, claims);
      verdicts.add(verdict);
      if (shape != null) {
        shapes.remember(shape, verdict, node.inventory());
      }
    }
    verdicts.sort(Comparator.comparing((NodeVerdict v) -> !v.fits()).thenComparing(NodeVerdict::node));
    return new FleetReport(verdicts, warnings);
  }

  /**
   * The verdicts of the node shapes seen so far ({@link ClaimMatcher#shape}): a fleet of a few node types
   * is matched once per type. A verdict that names a claim the node holds (a failure sentence saying who
   * holds a device) is its node's own and is not kept. Once more than half the nodes keyed are of shapes
   * not seen before, shapes are no longer computed: a fleet of distinct nodes is matched as before.
   */
  private static final class Shapes {
    static final int MAX = 1_024;
    static final int TRIAL = 64;
    final Map<Object, NodeVerdict> known = new java.util.HashMap<>();
    int hits;
    int misses;

    boolean keyed() {
      return misses < TRIAL || hits >= misses;
    }

    void remember(Object shape, NodeVerdict verdict, io.nodeatlas.match.Inventory inventory) {
      misses++;
      if (known.size() >= MAX) {
        return;
      }
      String text = verdict.claims().toString();
      for (io.nodeatlas.match.Inventory.Held h : inventory.held()) {
        if (text.contains(h.claim())) {
          return;
        }
      }
      known.put(shape, verdict);
    }
  }

  /**
   * A pod's own node selection ({@code spec.nodeName}, {@code spec.nodeSelector}, the
   * {@code requiredDuringSchedulingIgnoredDuringExecution} node affinity) and its tolerations of
   * node taints, checked before its claims as the scheduler's NodeName, NodeAffinity and TaintToleration
   * filters run before DynamicResources. {@link #ANY} (claims without a pod) checks nothing.
   */
  public record Placement(String nodeName, Map<String, String> nodeSelector,
      io.nodeatlas.match.claims.NodeSelectorTerms requiredNodeAffinity,
      List<io.nodeatlas.match.claims.ClaimModel.Toleration> tolerations, boolean pod) {
    public static final Placement ANY = new Placement(null, Map.of(), null, List.of(), false);

    public Placement {
      nodeSelector = Map.copyOf(nodeSelector);
      tolerations = List.copyOf(tolerations);
    }

    /** Why the pod cannot go to {@code node}; null when it may. */
    public String refuses(String node, Map<String, String> labels, List<io.nodeatlas.match.Inventory.DeviceTaint> taints) {
      if (nodeName != null && !nodeName.isEmpty() && !nodeName.equals(node)) {
        return "the pod's nodeName is " + nodeName;
      }
      for (Map.Entry<String, String> want : new java.util.TreeMap<>(nodeSelector).entrySet()) {
        String have = labels.get(want.getKey());
        if (!want.getValue().equals(have)) {
          return "the pod's nodeSelector " + want.getKey() + "=" + want.getValue() + " does not match"
              + (have == null ? " (no such label)" : " (" + want.getKey() + "=" + have + ")");
        }
      }
      if (requiredNodeAffinity != null && !requiredNodeAffinity.selects(node, labels)) {
        return "the pod's required node affinity selects no term that matches this node";
      }
      for (io.nodeatlas.match.Inventory.DeviceTaint t : pod ? taints : List.<io.nodeatlas.match.Inventory.DeviceTaint>of()) {
        if (t.blocksAllocation() && tolerations.stream().noneMatch(x -> x.tolerates(t.key(), t.value(), t.effect()))) {
          return "node taint " + t + " is not tolerated by the pod";
        }
      }
      return null;
    }
  }
}
