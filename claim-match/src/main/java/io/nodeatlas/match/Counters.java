package io.nodeatlas.match;

import io.nodeatlas.discovery.model.CounterConsumption;
import io.nodeatlas.discovery.model.CounterSet;
import io.nodeatlas.discovery.model.Device;
import java.math.BigDecimal;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.TreeMap;

/**
 * The node's shared counters (KEP-4815, {@code ResourceSlice.spec.sharedCounters}) and what allocated
 * devices consume of them ({@code Device.consumesCounters}), as the scheduler's allocator counts them: a
 * device fits while, for every counter it consumes, the set's value minus what the allocated devices
 * consume covers it. Not thread-safe; {@link #copy} for a trial.
 */
final class Counters {

  /** Set → counter → value, as published. */
  private final Map<String, Map<String, BigDecimal>> total;
  /** Set → counter → consumed so far. */
  private final Map<String, Map<String, BigDecimal>> used;
  /** Set → counter → the devices (with their claims) that consume it, for the explanation. */
  private final Map<String, Map<String, List<String>>> holders;

  private Counters(Map<String, Map<String, BigDecimal>> total, Map<String, Map<String, BigDecimal>> used,
      Map<String, Map<String, List<String>>> holders) {
    this.total = total;
    this.used = used;
    this.holders = holders;
  }

  /** The counter sets the devices publish (the first of a name wins, as one pool holds each name once). */
  static Counters of(List<Device> devices) {
    Map<String, Map<String, BigDecimal>> total = new TreeMap<>();
    for (Device d : devices) {
      for (CounterSet set : d.sharedCounters()) {
        Map<String, BigDecimal> values = new TreeMap<>();
        set.counters().forEach((k, q) -> values.put(k, q.toBigDecimal()));
        total.putIfAbsent(set.name(), values);
      }
    }
    return new Counters(total, new HashMap<>(), new HashMap<>());
  }

  Counters copy() {
    Map<String, Map<String, BigDecimal>> u = new HashMap<>();
    used.forEach((k, v) -> u.put(k, new HashMap<>(v)));
    Map<String, Map<String, List<String>>> h = new HashMap<>();
    holders.forEach((k, v) -> {
      Map<String, List<String>> m = new HashMap<>();
      v.forEach((c, l) -> m.put(c, new ArrayList<>(l)));
      h.put(k, m);
    });
    return new Counters(total, u, h);
  }

  /** Why {@code d}'s consumption does not fit now, naming the counter that ran out; null when it fits. */
  String shortfall(Device d) {
    for (CounterConsumption c : d.consumesCounters()) {
      Map<String, BigDecimal> set = total.get(c.counterSet());
      if (set == null) {
        return d.name() + " consumes from counter set " + c.counterSet() + ", which this node does not publish";
      }
      for (Map.Entry<String, io.nodeatlas.discovery.model.Quantity> e : c.counters().entrySet()) {
        BigDecimal have = set.get(e.getKey());
        if (have == null) {
          return d.name() + " consumes counter " + e.getKey() + ", which counter set " + c.counterSet() + " does not have";
        }
        BigDecimal taken = used.getOrDefault(c.counterSet(), Map.of()).getOrDefault(e.getKey(), BigDecimal.ZERO);
        BigDecimal want = e.getValue().toBigDecimal();
        if (taken.add(want).compareTo(have) > 0) {
          List<String> by = holders.getOrDefault(c.counterSet(), Map.of()).getOrDefault(e.getKey(), List.of());
          return d.name() + " needs " + CapacityDemand.plain(want) + " of counter " + e.getKey() + " in counter set "
              + c.counterSet() + ", which has " + CapacityDemand.plain(have.subtract(taken)) + " of "
              + CapacityDemand.plain(have) + " left" + (by.isEmpty() ? "" : " (consumed by " + String.join(", ", by) + ")");
        }
      }
    }
    return null;
  }

  /** Takes what {@code d} consumes; {@code holder} names it in later explanations. */
  void take(Device d, String holder) {
    for (CounterConsumption c : d.consumesCounters()) {
      c.counters().forEach((k, q) -> {
        used.computeIfAbsent(c.counterSet(), s -> new HashMap<>()).merge(k, q.toBigDecimal(), BigDecimal::add);
        holders.computeIfAbsent(c.counterSet(), s -> new HashMap<>()).computeIfAbsent(k, x -> new ArrayList<>()).add(holder);
      });
    }
  }

  /** Gives back what {@link #take} took for {@code d}. */
  void give(Device d) {
    for (CounterConsumption c : d.consumesCounters()) {
      c.counters().forEach((k, q) -> {
        used.get(c.counterSet()).merge(k, q.toBigDecimal().negate(), BigDecimal::add);
        List<String> by = holders.get(c.counterSet()).get(k);
        if (!by.isEmpty()) {
          by.remove(by.size() - 1);
        }
      });
    }
  }
}
