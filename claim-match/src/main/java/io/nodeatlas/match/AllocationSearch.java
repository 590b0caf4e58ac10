package io.nodeatlas.match;

import io.nodeatlas.discovery.model.AttributeValue;
import io.nodeatlas.discovery.model.Device;
import io.nodeatlas.match.MatchReport.Rejection;
import io.nodeatlas.match.claims.ClaimModel.AllocationMode;
import io.nodeatlas.match.claims.ClaimModel.Constraint;
import io.nodeatlas.match.claims.ClaimModel.ConstraintKind;
import java.math.BigDecimal;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Optional;

/**
 * First-fit backtracking over one claim's requests, their alternatives and device choices, against what
 * the {@link Ledger} says earlier claims hold; bounded by {@link ClaimMatcher#SEARCH_BUDGET} steps.
 */
final class AllocationSearch {

  /** A selector failed with a CEL run-time error: the scheduler aborts the whole attempt. */
  static final class SelectorErrorAbort extends Exception {
    private static final long serialVersionUID = 1L;

    SelectorErrorAbort(String message) {
      super(message, null, false, false);
    }
  }

  /** More than {@link ClaimMatcher#SEARCH_BUDGET} steps: the claim is undecided. */
  static final class BudgetExhausted extends Exception {
    private static final long serialVersionUID = 1L;

    BudgetExhausted() {
      super(null, null, false, false);
    }
  }

  private final List<List<Candidates>> options;
  private final List<Constraint> constraints;
  final Map<String, List<Device>> chosen = new LinkedHashMap<>();
  /** The alternative each chosen key came from (its demands say what the devices give). */
  final Map<String, Candidates> chosenFrom = new HashMap<>();
  private final Ledger ledger;
  private final Map<String, Integer> exclusiveUse = new HashMap<>();
  /** Per shared device: what the requests chosen so far consume of each capacity. */
  private final Map<String, Map<String, BigDecimal>> consumed = new HashMap<>();
  /** Per constraint: value counts of the devices chosen under it so far. */
  private final List<Map<AttributeValue, Integer>> constraintValues = new ArrayList<>();
  private int steps;
  private boolean anyCandidates = true;
  /** KEP-4815 counters left after earlier claims and the devices chosen so far. */
  private final Counters counters;
  /** Per device with counters: how many requests of this claim hold it (its counters are taken once). */
  private final Map<String, Integer> counterHolds = new HashMap<>();

  AllocationSearch(List<List<Candidates>> options, List<Constraint> constraints, Ledger ledger) {
    this.options = options;
    this.constraints = constraints;
    this.ledger = ledger;
    constraints.forEach(c -> constraintValues.add(new HashMap<>()));
    // What earlier claims hold is not available to this one.
    ledger.exclusive.keySet().forEach(d -> exclusiveUse.put(d, 1));
    ledger.consumed.forEach((d, used) -> consumed.put(d, new HashMap<>(used)));
    this.counters = ledger.counters.copy();
    ledger.counted.keySet().forEach(d -> counterHolds.put(d, 1));
  }

  boolean run(int requestIndex) throws SelectorErrorAbort, BudgetExhausted {
    if (requestIndex == options.size()) {
      return true;
    }
    for (Candidates alt : options.get(requestIndex)) {
      if (!alt.errors().isEmpty()) {
        Rejection first = alt.errors().get(0);
        throw new SelectorErrorAbort("request " + alt.key() + ": " + first.failedAt() + " fails with a CEL run-time "
            + "error on device " + first.device() + " (" + first.detail() + "); the scheduler aborts the allocation "
            + "attempt with this error");
      }
      List<Device> pool = alt.devices();
      if (alt.selection().allocationMode() == AllocationMode.ALL) {
        if (pool.isEmpty()) {
          anyCandidates = false;
          continue;
        }
        if (tryTake(alt, pool)) {
          if (run(requestIndex + 1)) {
            return true;
          }
          chosen.remove(alt.key()).forEach(d -> release(alt, d));
          chosenFrom.remove(alt.key());
        }
        continue;
      }
      if (pool.size() < alt.selection().count()) {
        anyCandidates = false;
        continue;
      }
      if (choose(alt, pool, 0, new ArrayList<>(), requestIndex)) {
        return true;
      }
    }
    return false;
  }

  private boolean choose(Candidates alt, List<Device> pool, int from, List<Device> picked, int requestIndex)
      throws SelectorErrorAbort, BudgetExhausted {
    if (picked.size() == alt.selection().count()) {
      chosen.put(alt.key(), List.copyOf(picked));
      chosenFrom.put(alt.key(), alt);
      if (run(requestIndex + 1)) {
        return true;
      }
      chosen.remove(alt.key());
      chosenFrom.remove(alt.key());
      return false;
    }
    long missing = alt.selection().count() - picked.size();
    for (int i = from; i < pool.size() && pool.size() - i >= missing; i++) {
      if (++steps > ClaimMatcher.SEARCH_BUDGET) {
        throw new BudgetExhausted();
      }
      Device d = pool.get(i);
      if (!acquire(alt, d)) {
        continue;
      }
      picked.add(d);
      if (choose(alt, pool, i + 1, picked, requestIndex)) {
        return true;
      }
      picked.remove(picked.size() - 1);
      release(alt, d);
    }
    return false;
  }

  private boolean tryTake(Candidates alt, List<Device> pool) {
    List<Device> taken = new ArrayList<>();
    for (Device d : pool) {
      if (!acquire(alt, d)) {
        taken.forEach(t -> release(alt, t));
        return false;
      }
      taken.add(d);
    }
    chosen.put(alt.key(), List.copyOf(taken));
    chosenFrom.put(alt.key(), alt);
    return true;
  }

  /** Takes a device for a request if it is free (or shared with room for the request) and fits every constraint. */
  private boolean acquire(Candidates alt, Device d) {
    CapacityDemand.Demand demand = alt.demands().get(d.name());
    if (!demand.shared() && exclusiveUse.getOrDefault(d.name(), 0) > 0) {
      return false;
    }
    if (demand.shared()) {
      Map<String, BigDecimal> used = consumed.getOrDefault(d.name(), Map.of());
      for (CapacityDemand.Share share : demand.shares()) {
        BigDecimal have = d.capacity().get(share.capacity()).toBigDecimal();
        if (used.getOrDefault(share.capacity(), BigDecimal.ZERO).add(share.consumed()).compareTo(have) > 0) {
          return false;
        }
      }
    }
    for (int c = 0; c < constraints.size(); c++) {
      Constraint constraint = constraints.get(c);
      if (!applies(constraint, alt)) {
        continue;
      }
      Optional<AttributeValue> value = ClaimMatcher.attribute(d, constraint.attribute());
      if (value.isEmpty()) {
        return false;
      }
      Map<AttributeValue, Integer> seen = constraintValues.get(c);
      if (constraint.kind() == ConstraintKind.MATCH_ATTRIBUTE && !seen.isEmpty() && !seen.containsKey(value.get())) {
        return false;
      }
      if (constraint.kind() == ConstraintKind.DISTINCT_ATTRIBUTE && seen.containsKey(value.get())) {
        return false;
      }
    }
    boolean takesCounters = !d.consumesCounters().isEmpty() && counterHolds.getOrDefault(d.name(), 0) == 0;
    if (takesCounters && counters.shortfall(d) != null) {
      return false;
    }
    for (int c = 0; c < constraints.size(); c++) {
      if (applies(constraints.get(c), alt)) {
        constraintValues.get(c).merge(ClaimMatcher.attribute(d, constraints.get(c).attribute()).orElseThrow(), 1, Integer::sum);
      }
    }
    if (!d.consumesCounters().isEmpty()) {
      if (takesCounters) {
        counters.take(d, d.name());
      }
      counterHolds.merge(d.name(), 1, Integer::sum);
    }
    if (demand.shared()) {
      Map<String, BigDecimal> used = consumed.computeIfAbsent(d.name(), k -> new HashMap<>());
      demand.shares().forEach(share -> used.merge(share.capacity(), share.consumed(), BigDecimal::add));
    } else {
      exclusiveUse.merge(d.name(), 1, Integer::sum);
    }
    return true;
  }

  private void release(Candidates alt, Device d) {
    if (!d.consumesCounters().isEmpty() && counterHolds.merge(d.name(), -1, Integer::sum) == 0) {
      counters.give(d);
    }
    CapacityDemand.Demand demand = alt.demands().get(d.name());
    if (demand.shared()) {
      Map<String, BigDecimal> used = consumed.get(d.name());
      demand.shares().forEach(share -> used.merge(share.capacity(), share.consumed().negate(), BigDecimal::add));
    } else {
      exclusiveUse.merge(d.name(), -1, Integer::sum);
    }
    for (int c = 0; c < constraints.size(); c++) {
      if (applies(constraints.get(c), alt)) {
        AttributeValue v = ClaimMatcher.attribute(d, constraints.get(c).attribute()).orElseThrow();
        Map<AttributeValue, Integer> seen = constraintValues.get(c);
        if (seen.merge(v, -1, Integer::sum) == 0) {
          seen.remove(v);
        }
      }
    }
  }

  private boolean applies(Constraint constraint, Candidates alt) {
    return constraint.requests().isEmpty() || constraint.requests().contains(alt.request())
        || constraint.requests().contains(alt.key());
  }

  /** The candidates of each request, in claim order. */
  List<List<Candidates>> options() {
    return options;
  }

  /** False when some alternative had too few candidates to be tried at all. */
  boolean anyCandidates() {
    return anyCandidates;
  }
}
