package io.nodeatlas.discovery.model;

import java.util.Collections;
import java.util.Map;
import java.util.Optional;
import java.util.SortedMap;
import java.util.TreeMap;

/**
 * One allocatable device of this node, the unit every output is derived from: a {@code discover}
 * entry, a CDI device, a ResourceSlice {@code Device}.
 *
 * <p>The name is a DNS label that stays the same across runs for the same hardware; attribute and
 * capacity names are fully qualified ({@code nodeatlas.io/type}, {@code resource.kubernetes.io/numaNode})
 * and together number at most 32, as the ResourceSlice API allows ({@code resource.k8s.io/v1}
 * {@code ResourceSliceMaxAttributesAndCapacitiesPerDevice}).
 *
 * <p>Whether several claims may hold the device at once is a fact about the device, set by its source:
 * {@code allowMultipleAllocations} and, per capacity, a {@link RequestPolicy} (KEP-5075, consumable
 * capacity). Every consumer (ResourceSlices, {@code match}, Prepare) reads it from here; none keeps
 * its own list of shareable types.
 *
 * <p>{@code nodeAllocatableResources} maps node-allocatable resources ({@code cpu}, {@code hugepages-2Mi})
 * to what an allocation of the device counts as (KEP-5517, alpha); empty unless a source is told to set it.
 */
public record Device(
    String name,
    String source,
    SortedMap<String, AttributeValue> attributes,
    SortedMap<String, Quantity> capacity,
    SortedMap<String, RequestPolicy> requestPolicies,
    boolean allowMultipleAllocations,
    ContainerEdits containerEdits,
    java.util.List<CounterSet> sharedCounters,
    java.util.List<CounterConsumption> consumesCounters,
    SortedMap<String, NodeAllocatableMapping> nodeAllocatableResources) {

  /** ResourceSliceMaxDeviceCounterConsumptionsPerDevice. */
  public static final int MAX_COUNTER_CONSUMPTIONS = 2;

  /** ResourceSliceMaxAttributesAndCapacitiesPerDevice. */
  public static final int MAX_ATTRIBUTES_AND_CAPACITIES = 32;

  /** The device type attribute every source sets ({@code gpu}, {@code rdma}, {@code cpu}, ...). */
  public static final String TYPE = Names.ours("type");

  public Device {
    Names.requireDeviceName(name);
    if (source == null || source.isEmpty()) {
      throw new IllegalArgumentException("device " + name + " has no source");
    }
    // Copies without view objects, and one shared empty map: a fleet holds 100,000 devices.
    attributes = sorted(attributes);
    capacity = sorted(capacity);
    requestPolicies = sorted(requestPolicies == null ? Collections.emptySortedMap() : requestPolicies);
    SortedMap<String, Quantity> capacities = capacity;
    requestPolicies.forEach((key, policy) -> {
      if (!capacities.containsKey(key)) {
        throw new IllegalArgumentException("device " + name + ": request policy for \"" + key + "\", which is no capacity");
      }
    });
    if (!requestPolicies.isEmpty() && !allowMultipleAllocations) {
      throw new IllegalArgumentException(
          "device " + name + ": request policies only apply to a device that allows multiple allocations");
    }
    requireQualifiedNames(attributes);
    requireQualifiedNames(capacity);
    int total = attributes.size() + capacity.size();
    if (total > MAX_ATTRIBUTES_AND_CAPACITIES) {
      throw new IllegalArgumentException(
          "device " + name + " has " + total + " attributes and capacities, the API allows at most "
              + MAX_ATTRIBUTES_AND_CAPACITIES);
    }
    int[] counted = {0};
    attributes.forEach((key, value) -> counted[0] += value.valueCount());
    int values = counted[0];
    if (values > AttributeValue.MAX_VALUES_PER_DEVICE) {
      throw new IllegalArgumentException("device " + name + " has " + values + " attribute values, the API allows at most "
          + AttributeValue.MAX_VALUES_PER_DEVICE);
    }
    attributes.forEach((key, value) -> {
      if (capacities.containsKey(key)) {
        throw new IllegalArgumentException("device " + name + ": \"" + key + "\" is both an attribute and a capacity");
      }
    });
    if (containerEdits == null) {
      containerEdits = ContainerEdits.EMPTY;
    }
    sharedCounters = java.util.List.copyOf(sharedCounters == null ? java.util.List.of() : sharedCounters);
    consumesCounters = java.util.List.copyOf(consumesCounters == null ? java.util.List.of() : consumesCounters);
    if (consumesCounters.size() > MAX_COUNTER_CONSUMPTIONS) {
      throw new IllegalArgumentException("device " + name + " consumes from " + consumesCounters.size()
          + " counter sets, the API allows at most " + MAX_COUNTER_CONSUMPTIONS);
    }
    nodeAllocatableResources = sorted(nodeAllocatableResources == null ? Collections.emptySortedMap()
        : nodeAllocatableResources);
    for (Map.Entry<String, NodeAllocatableMapping> e : nodeAllocatableResources.isEmpty()
        ? java.util.Set.<Map.Entry<String, NodeAllocatableMapping>>of() : nodeAllocatableResources.entrySet()) {
      if (!NodeAllocatableMapping.isResourceName(e.getKey())) {
        throw new IllegalArgumentException("device " + name + ": \"" + e.getKey()
            + "\" is not a node-allocatable resource (cpu, memory, hugepages-<size>)");
      }
      String key = e.getValue().capacityKey().orElse(null);
      if (key != null && !capacity.containsKey(key)) {
        throw new IllegalArgumentException("device " + name + ": node-allocatable " + e.getKey() + " maps capacity \""
            + key + "\", which the device does not have");
      }
    }
  }

  /** Checks the names of a map this device holds, unless a device holding it checked them before. */
  private static void requireQualifiedNames(SortedMap<String, ?> map) {
    if (!ArraySortedMap.hasQualifiedNames(map)) {
      map.forEach((key, value) -> Names.requireQualifiedName(key));
      ArraySortedMap.qualifiedNamesChecked(map);
    }
  }

  /**
   * An unmodifiable copy in natural key order, in two arrays (another device's map as it is); the one empty
   * sorted map for an empty one.
   */
  private static <V> SortedMap<String, V> sorted(SortedMap<String, V> map) {
    return map.isEmpty() ? Collections.emptySortedMap() : ArraySortedMap.copyOf(map);
  }

  /**
   * A device without counters or node-allocatable mappings. {@code sharedCounters} are counter sets a
   * device's source publishes with it (the slice builder moves them into a slice of their own, as the API
   * wants); {@code consumesCounters} what the device takes from them when allocated (KEP-4815).
   */
  public Device(
      String name,
      String source,
      SortedMap<String, AttributeValue> attributes,
      SortedMap<String, Quantity> capacity,
      SortedMap<String, RequestPolicy> requestPolicies,
      boolean allowMultipleAllocations,
      ContainerEdits containerEdits) {
    this(name, source, attributes, capacity, requestPolicies, allowMultipleAllocations, containerEdits,
        java.util.List.of(), java.util.List.of(), new TreeMap<>());
  }

  /** A device with counters (KEP-4815) and no node-allocatable mappings. */
  public Device(String name, String source, SortedMap<String, AttributeValue> attributes, SortedMap<String, Quantity> capacity,
      SortedMap<String, RequestPolicy> requestPolicies, boolean allowMultipleAllocations, ContainerEdits containerEdits,
      java.util.List<CounterSet> sharedCounters, java.util.List<CounterConsumption> consumesCounters) {
    this(name, source, attributes, capacity, requestPolicies, allowMultipleAllocations, containerEdits, sharedCounters,
        consumesCounters, new TreeMap<>());
  }

  /** A device with node-allocatable mappings (KEP-5517) and no counters. */
  public Device(String name, String source, SortedMap<String, AttributeValue> attributes, SortedMap<String, Quantity> capacity,
      SortedMap<String, RequestPolicy> requestPolicies, boolean allowMultipleAllocations, ContainerEdits containerEdits,
      SortedMap<String, NodeAllocatableMapping> nodeAllocatableResources) {
    this(name, source, attributes, capacity, requestPolicies, allowMultipleAllocations, containerEdits, java.util.List.of(),
        java.util.List.of(), nodeAllocatableResources);
  }

  /** This device with the given counter sets and consumptions (KEP-4815). */
  public Device withCounters(java.util.List<CounterSet> shared, java.util.List<CounterConsumption> consumes) {
    return new Device(name, source, attributes, capacity, requestPolicies, allowMultipleAllocations, containerEdits,
        shared, consumes, nodeAllocatableResources);
  }

  /** This device with {@code mappings} as its node-allocatable resources. */
  public Device withNodeAllocatableResources(SortedMap<String, NodeAllocatableMapping> mappings) {
    return new Device(name, source, attributes, capacity, requestPolicies, allowMultipleAllocations, containerEdits,
        sharedCounters, consumesCounters, mappings);
  }

  /** A device that one claim at a time may hold (no request policies). */
  public Device(
      String name,
      String source,
      SortedMap<String, AttributeValue> attributes,
      SortedMap<String, Quantity> capacity,
      ContainerEdits containerEdits) {
    this(name, source, attributes, capacity, new TreeMap<>(), false, containerEdits);
  }

  public static Builder builder(String name, String source) {
    return new Builder(name, source);
  }

  /** The {@code nodeatlas.io/type} attribute, when set. */
  public Optional<String> type() {
    return Optional.ofNullable(attributes.get(TYPE))
        .filter(AttributeValue.StringValue.class::isInstance)
        .map(v -> ((AttributeValue.StringValue) v).value());
  }

  public Optional<AttributeValue> attribute(String qualifiedName) {
    return Optional.ofNullable(attributes.get(qualifiedName));
  }

  /** Collects a device's facts; attributes given a null value are skipped, which keeps sources terse. */
  public static final class Builder {
    private final String name;
    private final String source;
    private final Map<String, AttributeValue> attributes = new TreeMap<>();
    private final Map<String, Quantity> capacity = new TreeMap<>();
    private final Map<String, RequestPolicy> requestPolicies = new TreeMap<>();
    private boolean allowMultipleAllocations;
    private ContainerEdits edits = ContainerEdits.EMPTY;
    private final Map<String, NodeAllocatableMapping> nodeAllocatable = new TreeMap<>();

    private Builder(String name, String source) {
      this.name = name;
      this.source = source;
    }

    public Builder attribute(String qualifiedName, AttributeValue value) {
      if (value != null) {
        attributes.put(qualifiedName, value);
      }
      return this;
    }

    public Builder attribute(String qualifiedName, String value) {
      return value == null ? this : attribute(qualifiedName, AttributeValue.string(value));
    }

    public Builder attribute(String qualifiedName, long value) {
      return attribute(qualifiedName, AttributeValue.of(value));
    }

    public Builder attribute(String qualifiedName, boolean value) {
      return attribute(qualifiedName, AttributeValue.of(value));
    }

    public Builder capacity(String qualifiedName, Quantity value) {
      if (value != null) {
        capacity.put(qualifiedName, value);
      }
      return this;
    }

    public Builder capacity(String qualifiedName, long value) {
      return capacity(qualifiedName, Quantity.of(value));
    }

    /** A capacity that claims consume in shares, by {@code policy}. */
    public Builder capacity(String qualifiedName, Quantity value, RequestPolicy policy) {
      capacity(qualifiedName, value);
      if (value != null && policy != null) {
        requestPolicies.put(qualifiedName, policy);
      }
      return this;
    }

    /** The request policy of a capacity set with {@link #capacity(String, Quantity)}. */
    public Builder requestPolicy(String qualifiedName, RequestPolicy policy) {
      requestPolicies.put(qualifiedName, policy);
      return this;
    }

    /** Several claims may hold this device at once ({@code allowMultipleAllocations}). */
    public Builder allowMultipleAllocations(boolean allow) {
      this.allowMultipleAllocations = allow;
      return this;
    }

    public Builder containerEdits(ContainerEdits containerEdits) {
      this.edits = containerEdits;
      return this;
    }

    /** What an allocation counts as against node-allocatable {@code resource} (KEP-5517). */
    public Builder nodeAllocatable(String resource, NodeAllocatableMapping mapping) {
      nodeAllocatable.put(resource, mapping);
      return this;
    }

    public Device build() {
      return new Device(name, source, new TreeMap<>(attributes), new TreeMap<>(capacity),
          new TreeMap<>(requestPolicies), allowMultipleAllocations, edits, new TreeMap<>(nodeAllocatable));
    }
  }
}
