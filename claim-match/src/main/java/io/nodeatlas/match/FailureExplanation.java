package io.nodeatlas.match;

import io.nodeatlas.match.MatchReport.Rejection;
import io.nodeatlas.match.claims.ClaimModel.AllocationMode;
import io.nodeatlas.match.claims.ClaimModel.Claim;
import io.nodeatlas.match.claims.ClaimModel.DeviceSelection;
import java.util.ArrayList;
import java.util.Comparator;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;

/**
 * Why a claim that the {@link AllocationSearch} could not place does not fit, in one sentence per request:
 * too few matching devices (and what keeps the rest out), held by earlier claims, or the constraints.
 */
final class FailureExplanation {

  private final List<List<Candidates>> options;
  private final boolean anyCandidates;
  private final Ledger ledger;
  private final Amounts amounts;

  FailureExplanation(AllocationSearch search, Ledger ledger, Amounts amounts) {
    this.options = search.options();
    this.anyCandidates = search.anyCandidates();
    this.ledger = ledger;
    this.amounts = amounts;
  }

  String text(Claim claim) {
    return String.join("; ", reasons(claim));
  }

  /** One sentence per blocking request (or one for the claim as a whole), the first blocking first. */
  List<String> reasons(Claim claim) {
    if (!anyCandidates || options.stream().anyMatch(o -> o.stream().noneMatch(this::enoughAlone))) {
      List<String> short_ = new ArrayList<>();
      for (List<Candidates> request : options) {
        if (request.stream().noneMatch(this::enoughAlone)) {
          Candidates c = request.get(request.size() - 1);
          short_.add("request " + c.request() + " needs " + need(c.selection()) + ", this node has "
              + c.devices().size() + " matching device" + (c.devices().size() == 1 ? "" : "s") + blocker(c, false));
        }
      }
      if (!short_.isEmpty()) {
        return short_;
      }
    }
    List<String> taken = new ArrayList<>();
    for (List<Candidates> request : options) {
      if (request.stream().noneMatch(this::enoughAfterEarlierClaims)) {
        Candidates c = request.get(request.size() - 1);
        List<String> why = c.devices().stream().map(d -> ledger.blocked(d, c.demands().get(d.name()), amounts))
            .filter(java.util.Objects::nonNull).toList();
        taken.add("request " + c.key() + " needs " + need(c.selection()) + ", but earlier claims hold what matches: "
            + String.join("; ", why) + blocker(c, true));
      }
    }
    if (!taken.isEmpty()) {
      return taken;
    }
    if (!claim.constraints().isEmpty()) {
      return List.of("every request has matching devices, but no choice of distinct devices satisfies "
          + String.join(" and ", claim.constraints().stream().map(c -> c.kind().apiName() + " " + c.attribute()).toList()));
    }
    return List.of("every request has matching devices, but not enough distinct devices for all requests together");
  }

  /**
   * What keeps the devices the request's DeviceClass admits from serving it, most common first-failing
   * check first, in the words of {@code --explain}; or that the class admits none of the devices. With
   * {@code heldOnly} (what matches is held by earlier claims) only the devices that match but for a taint
   * or their capacity, which might serve once that changes.
   */
  private String blocker(Candidates c, boolean heldOnly) {
    List<Rejection> admitted = c.rejected().stream().filter(r -> !r.failedAt().startsWith("DeviceClass "))
        .filter(r -> !heldOnly || r.failedAt().startsWith("device taint ") || r.failedAt().startsWith("capacity request "))
        .toList();
    if (heldOnly && admitted.isEmpty()) {
      return "";
    }
    if (admitted.isEmpty()) {
      return c.devices().isEmpty() ? " (DeviceClass " + c.selection().deviceClassName() + " admits none of its "
          + c.rejected().size() + " device" + (c.rejected().size() == 1 ? "" : "s") + ")" : "";
    }
    Map<String, List<String>> byReason = new LinkedHashMap<>();
    admitted.forEach(r -> byReason.computeIfAbsent(r.failedAt() + " " + r.detail(), k -> new ArrayList<>()).add(r.device()));
    Map.Entry<String, List<String>> top = byReason.entrySet().stream()
        .max(Comparator.comparingInt((Map.Entry<String, List<String>> e) -> e.getValue().size())).orElseThrow();
    List<String> names = top.getValue();
    String shown = names.size() <= 4 ? String.join(", ", names)
        : String.join(", ", names.subList(0, 3)) + " and " + (names.size() - 3) + " more";
    return " (" + shown + ": " + top.getKey() + ")";
  }

  /** Enough candidates that the claims allocated before this one leave room on. */
  private boolean enoughAfterEarlierClaims(Candidates c) {
    long free = c.devices().stream().filter(d -> ledger.blocked(d, c.demands().get(d.name()), amounts) == null).count();
    return c.selection().allocationMode() == AllocationMode.ALL
        ? free == c.devices().size() && free > 0 : free >= c.selection().count();
  }

  private boolean enoughAlone(Candidates c) {
    return c.selection().allocationMode() == AllocationMode.ALL ? !c.devices().isEmpty()
        : c.devices().size() >= c.selection().count();
  }

  private String need(DeviceSelection s) {
    return s.allocationMode() == AllocationMode.ALL ? "all matching devices (at least one)"
        : s.count() + " device" + (s.count() == 1 ? "" : "s");
  }
}
