package io.nodeatlas.discovery.model;

import java.util.Collections;
import java.util.SortedMap;
import java.util.TreeMap;

/**
 * What a device takes from one {@link CounterSet} of its pool while allocated (KEP-4815,
 * {@code resource.k8s.io/v1} {@code Device.consumesCounters[]}, a {@code DeviceCounterConsumption}): at
 * most {@link #MAX_COUNTERS} counters (ResourceSliceMaxCountersPerDeviceCounterConsumption).
 */
public record CounterConsumption(String counterSet, SortedMap<String, Quantity> counters) {

  /** ResourceSliceMaxCountersPerDeviceCounterConsumption. */
  public static final int MAX_COUNTERS = 32;

  public CounterConsumption {
    CounterSet.requireLabel("counter set", counterSet);
    counters = Collections.unmodifiableSortedMap(new TreeMap<>(counters));
    if (counters.isEmpty() || counters.size() > MAX_COUNTERS) {
      throw new IllegalArgumentException("consumption of " + counterSet + " names " + counters.size()
          + " counters, the API allows 1 to " + MAX_COUNTERS);
    }
    counters.keySet().forEach(c -> CounterSet.requireLabel("counter", c));
  }
}
