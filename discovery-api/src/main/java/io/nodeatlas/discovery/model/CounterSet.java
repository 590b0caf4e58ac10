package io.nodeatlas.discovery.model;

import java.util.Collections;
import java.util.SortedMap;
import java.util.TreeMap;

/**
 * A named set of counters that devices consume when allocated (KEP-4815, partitionable devices;
 * {@code resource.k8s.io/v1} {@code ResourceSlice.spec.sharedCounters[]}): e.g. a GPU's memory slices,
 * so that two MIG placements that share a slice can never both be allocated. The name and every counter
 * name are DNS labels; at most {@link #MAX_COUNTERS} counters (ResourceSliceMaxCountersPerCounterSet).
 */
public record CounterSet(String name, SortedMap<String, Quantity> counters) {

  /** ResourceSliceMaxCountersPerCounterSet. */
  public static final int MAX_COUNTERS = 32;

  public CounterSet {
    requireLabel("counter set", name);
    counters = Collections.unmodifiableSortedMap(new TreeMap<>(counters));
    if (counters.isEmpty() || counters.size() > MAX_COUNTERS) {
      throw new IllegalArgumentException("counter set " + name + " has " + counters.size()
          + " counters, the API allows 1 to " + MAX_COUNTERS);
    }
    counters.keySet().forEach(c -> requireLabel("counter", c));
  }

  static void requireLabel(String what, String name) {
    if (name == null || !Names.isDnsLabel(name)) {
      throw new IllegalArgumentException(what + " name \"" + name + "\" is not a DNS label");
    }
  }
}
