package io.nodeatlas.discovery.model;

import java.util.Objects;
import java.util.Optional;
import java.util.regex.Pattern;

/**
 * How an allocation of a device counts against one node-allocatable resource ({@code cpu}, {@code memory},
 * {@code hugepages-<size>}): {@code resource.k8s.io/v1} {@code NodeAllocatableMapping} (KEP-5517, alpha,
 * feature gate {@code DRANodeAllocatableResources}). Either the consumed amount of a capacity times
 * {@code capacityMultiplier}, or the number of allocated devices times {@code deviceMultiplier}; the two
 * are mutually exclusive. The rules are the API server's ({@code pkg/apis/resource/validation}
 * validateNodeAllocatableMapping): multipliers positive, {@code capacityKey} and {@code capacityMultiplier}
 * together, the key naming a capacity of the device (checked by {@link Device}).
 */
public record NodeAllocatableMapping(Optional<String> capacityKey, Optional<Quantity> capacityMultiplier,
    Optional<Quantity> deviceMultiplier) {

  /** The keys KEP-5517 allows: {@code cpu}, {@code memory} and {@code hugepages-<size>} (no extended resources). */
  private static final Pattern RESOURCE = Pattern.compile("^(cpu|memory|hugepages-[0-9]+(Ki|Mi|Gi|Ti|Pi|Ei|k|M|G|T|P|E)?)$");

  public NodeAllocatableMapping {
    capacityKey = capacityKey == null ? Optional.empty() : capacityKey;
    capacityMultiplier = capacityMultiplier == null ? Optional.empty() : capacityMultiplier;
    deviceMultiplier = deviceMultiplier == null ? Optional.empty() : deviceMultiplier;
    if (capacityKey.isPresent() != capacityMultiplier.isPresent()) {
      throw new IllegalArgumentException("capacityKey and capacityMultiplier are set together");
    }
    if (capacityKey.isPresent() == deviceMultiplier.isPresent()) {
      throw new IllegalArgumentException("a node-allocatable mapping has either capacityKey or deviceMultiplier");
    }
    capacityKey.ifPresent(Names::requireQualifiedName);
    capacityMultiplier.ifPresent(m -> requirePositive("capacityMultiplier", m));
    deviceMultiplier.ifPresent(m -> requirePositive("deviceMultiplier", m));
  }

  /** The consumed amount of capacity {@code key}, times {@code multiplier}. */
  public static NodeAllocatableMapping ofCapacity(String key, Quantity multiplier) {
    return new NodeAllocatableMapping(Optional.of(key), Optional.of(multiplier), Optional.empty());
  }

  /** Each allocated device counts as {@code multiplier} of the resource. */
  public static NodeAllocatableMapping perDevice(Quantity multiplier) {
    return new NodeAllocatableMapping(Optional.empty(), Optional.empty(), Optional.of(multiplier));
  }

  /** Whether {@code name} is a node-allocatable resource a device may map to. */
  public static boolean isResourceName(String name) {
    return name != null && RESOURCE.matcher(name).matches();
  }

  private static void requirePositive(String field, Quantity q) {
    Objects.requireNonNull(q, field);
    if (!q.isPositive()) {
      throw new IllegalArgumentException(field + " must be positive, got " + q);
    }
  }
}
