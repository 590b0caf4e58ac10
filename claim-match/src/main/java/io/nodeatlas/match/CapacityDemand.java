package io.nodeatlas.match;

import io.nodeatlas.discovery.model.Device;
import io.nodeatlas.discovery.model.Names;
import io.nodeatlas.discovery.model.Quantity;
import io.nodeatlas.discovery.model.RequestPolicy;
import java.math.BigDecimal;
import java.math.RoundingMode;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.Optional;

/**
 * What one request ({@code resource.k8s.io/v1} {@code DeviceRequest.exactly.capacity.requests}) takes
 * of one device, computed as the scheduler's allocator does for consumable capacity (KEP-5075):
 *
 * <ul>
 *   <li>every requested capacity must exist on the device;
 *   <li>an exclusive device (no {@code allowMultipleAllocations}) only needs at least the requested
 *       amount of each; the request holds the whole device;
 *   <li>a device that allows multiple allocations is shared: the request consumes an amount of
 *       <em>every</em> capacity of the device. For a capacity the request does not name it is the
 *       capacity's {@code requestPolicy.default}, or the whole capacity when there is no policy. A
 *       named amount is rounded up as the policy says: below {@code validRange.min} to the minimum, else
 *       to the next {@code min + n × step}; with {@code validValues} to the smallest valid value not below
 *       it. A rounded amount above {@code validRange.max}, or above every valid value, violates the policy
 *       and the device cannot serve the request. The amounts of all requests on a device must fit its
 *       capacities together.
 * </ul>
 */
final class CapacityDemand {

  /**
   * One capacity of a shared device that a request consumes: the device's own capacity name, the amount
   * asked for ({@code null} when not named), the amount consumed and, when the two differ, why.
   */
  record Share(String capacity, BigDecimal requested, BigDecimal consumed, String rule) {
    /** Whether the consumed amount is exactly what was asked for. */
    boolean asRequested() {
      return requested != null && requested.compareTo(consumed) == 0;
    }
  }

  /**
   * A request's demand on one device: empty shares for an exclusive device, or the shares of a shared
   * one; {@code refusal} is set (and names the capacity) when the device cannot serve the request.
   */
  record Demand(boolean shared, List<Share> shares, String refusedAt, String refusal) {
    Demand {
      shares = List.copyOf(shares);
    }

    boolean refused() {
      return refusal != null;
    }

    static Demand refuse(String capacity, String why) {
      return new Demand(false, List.of(), capacity, why);
    }
  }

  private CapacityDemand() {}

  /** The demand of {@code requests} (qualified capacity name → amount) on {@code device}. */
  static Demand of(Device device, Map<String, BigDecimal> requests, Amounts amounts) {
    Map<String, BigDecimal> byDeviceName = new java.util.TreeMap<>();
    for (Map.Entry<String, BigDecimal> want : requests.entrySet()) {
      Optional<String> key = capacityKey(device, want.getKey());
      if (key.isEmpty()) {
        return Demand.refuse(want.getKey(), "device has no capacity " + want.getKey());
      }
      byDeviceName.put(key.get(), want.getValue());
    }
    if (!device.allowMultipleAllocations()) {
      for (Map.Entry<String, BigDecimal> want : byDeviceName.entrySet()) {
        BigDecimal have = device.capacity().get(want.getKey()).toBigDecimal();
        if (have.compareTo(want.getValue()) < 0) {
          return Demand.refuse(want.getKey(), "requested " + amounts.text(want.getKey(), want.getValue())
              + " but the device has " + amounts.text(want.getKey(), have));
        }
      }
      return new Demand(false, List.of(), null, null);
    }
    List<Share> shares = new ArrayList<>();
    for (Map.Entry<String, Quantity> cap : device.capacity().entrySet()) {
      String name = cap.getKey();
      BigDecimal have = cap.getValue().toBigDecimal();
      RequestPolicy policy = device.requestPolicies().get(name);
      BigDecimal requested = byDeviceName.get(name);
      Share share;
      if (requested == null) {
        share = policy != null
            ? new Share(name, null, policy.defaultValue().toBigDecimal(), "not requested: the request policy's default")
            : new Share(name, null, have, "not requested and no request policy: the whole capacity");
      } else {
        Rounded r = policy == null ? new Rounded(requested, null, null) : round(requested, policy, v -> amounts.text(name, v));
        if (r.violation() != null) {
          return Demand.refuse(name, "requested " + amounts.text(name, requested) + " of " + name + ": " + r.violation());
        }
        share = new Share(name, requested, r.amount(), r.rule());
      }
      if (share.consumed().compareTo(have) > 0) {
        return Demand.refuse(name, (requested == null ? "consumes " + amounts.text(name, share.consumed()) + " of " + name
            + " (" + share.rule() + ")" : "requested " + amounts.text(name, requested) + (share.asRequested() ? ""
            : ", consumes " + amounts.text(name, share.consumed()) + " (" + share.rule() + "),")) + " but the device has "
            + amounts.text(name, have));
      }
      shares.add(share);
    }
    return new Demand(true, shares, null, null);
  }

  /** An amount after the policy's rounding, the rule that changed it (null: unchanged), or why it violates the policy. */
  record Rounded(BigDecimal amount, String rule, String violation) {}

  static Rounded round(BigDecimal requested, RequestPolicy policy, java.util.function.Function<BigDecimal, String> plain) {
    if (policy.validRange().isPresent()) {
      RequestPolicy.ValidRange range = policy.validRange().get();
      BigDecimal min = range.min().toBigDecimal();
      BigDecimal amount = requested;
      String rule = null;
      if (requested.compareTo(min) < 0) {
        amount = min;
        rule = "raised to the valid range's minimum " + plain.apply(min);
      } else if (range.step().isPresent()) {
        BigDecimal step = range.step().get().toBigDecimal();
        BigDecimal steps = requested.subtract(min).divide(step, 0, RoundingMode.CEILING);
        amount = min.add(step.multiply(steps));
        if (amount.compareTo(requested) != 0) {
          rule = "rounded up to the next step of " + plain.apply(step) + " from " + plain.apply(min);
        }
      }
      if (range.max().isPresent() && amount.compareTo(range.max().get().toBigDecimal()) > 0) {
        return new Rounded(amount, rule, (rule == null ? "" : rule + ", ") + "above the request policy's maximum "
            + plain.apply(range.max().get().toBigDecimal()));
      }
      return new Rounded(amount, rule, null);
    }
    if (!policy.validValues().isEmpty()) {
      for (Quantity v : policy.validValues()) {
        BigDecimal value = v.toBigDecimal();
        if (requested.compareTo(value) <= 0) {
          return new Rounded(value, value.compareTo(requested) == 0 ? null
              : "rounded up to the next valid value " + plain.apply(value), null);
        }
      }
      return new Rounded(requested, null, "above the largest valid value "
          + plain.apply(policy.validValues().get(policy.validValues().size() - 1).toBigDecimal()));
    }
    return new Rounded(requested, null, null);
  }

  /** The device's name for a requested capacity; a name without a domain is the driver's. */
  static Optional<String> capacityKey(Device d, String name) {
    if (d.capacity().containsKey(name)) {
      return Optional.of(name);
    }
    if (!name.contains("/") && d.capacity().containsKey(Names.DRIVER + "/" + name)) {
      return Optional.of(Names.DRIVER + "/" + name);
    }
    if (name.startsWith(Names.DRIVER + "/") && d.capacity().containsKey(name.substring(Names.DRIVER.length() + 1))) {
      return Optional.of(name.substring(Names.DRIVER.length() + 1));
    }
    return Optional.empty();
  }

  static String plain(BigDecimal v) {
    return v.stripTrailingZeros().toPlainString();
  }
}
