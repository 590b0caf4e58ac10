package io.nodeatlas.discovery.model;

import java.util.List;
import java.util.Objects;
import java.util.Optional;

/**
 * How a claim may consume one capacity of a shared device: {@code resource.k8s.io/v1}
 * {@code CapacityRequestPolicy} (KEP-5075, consumable capacity). {@code defaultValue} is what a
 * request that names no amount consumes; at most one of {@code validRange} and {@code validValues}
 * restricts what a request may ask for (the scheduler rounds a request up to the next valid amount).
 * A source sets it on the device; slices, {@code match} and Prepare all read it from there.
 */
public record RequestPolicy(Quantity defaultValue, Optional<ValidRange> validRange, List<Quantity> validValues) {

  /** CapacityRequestPolicyDiscreteMaxOptions. */
  public static final int MAX_VALID_VALUES = 10;

  public RequestPolicy {
    Objects.requireNonNull(defaultValue, "defaultValue");
    validRange = validRange == null ? Optional.empty() : validRange;
    validValues = validValues == null ? List.of() : List.copyOf(validValues);
    if (validRange.isPresent() && !validValues.isEmpty()) {
      throw new IllegalArgumentException("a request policy has either validRange or validValues, not both");
    }
    if (validValues.size() > MAX_VALID_VALUES) {
      throw new IllegalArgumentException(
          "a request policy lists at most " + MAX_VALID_VALUES + " valid values, got " + validValues.size());
    }
    for (int i = 1; i < validValues.size(); i++) {
      if (validValues.get(i - 1).compareTo(validValues.get(i)) >= 0) {
        throw new IllegalArgumentException("valid values must be sorted ascending without duplicates");
      }
    }
    if (!validValues.isEmpty() && !validValues.contains(defaultValue)) {
      throw new IllegalArgumentException("the default " + defaultValue + " is not one of the valid values");
    }
    if (validRange.isPresent() && !validRange.get().admits(defaultValue)) {
      throw new IllegalArgumentException("the default " + defaultValue + " is outside the valid range");
    }
  }

  /** A policy over a range: requests from {@code min} to {@code max} (when set) in steps of {@code step} (when set). */
  public static RequestPolicy range(Quantity defaultValue, Quantity min, Quantity max, Quantity step) {
    return new RequestPolicy(defaultValue, Optional.of(new ValidRange(min, Optional.ofNullable(max), Optional.ofNullable(step))), List.of());
  }

  /** {@code CapacityRequestPolicyRange}: {@code min} required, {@code max} and {@code step} optional. */
  public record ValidRange(Quantity min, Optional<Quantity> max, Optional<Quantity> step) {
    public ValidRange {
      Objects.requireNonNull(min, "min");
      max = max == null ? Optional.empty() : max;
      step = step == null ? Optional.empty() : step;
      if (max.isPresent() && max.get().compareTo(min) < 0) {
        throw new IllegalArgumentException("valid range max " + max.get() + " is below min " + min);
      }
      if (step.isPresent() && !step.get().isPositive()) {
        throw new IllegalArgumentException("valid range step " + step.get() + " must be positive");
      }
    }

    /** Whether {@code q} lies in the range and on a step from {@code min}. */
    public boolean admits(Quantity q) {
      if (q.compareTo(min) < 0 || (max.isPresent() && q.compareTo(max.get()) > 0)) {
        return false;
      }
      return step.isEmpty() || q.isOnStep(min, step.get());
    }
  }
}
