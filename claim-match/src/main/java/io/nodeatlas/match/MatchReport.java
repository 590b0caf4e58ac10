package io.nodeatlas.match;

import io.nodeatlas.match.cel.SelectorResult;
import java.util.List;
import java.util.Map;
import java.util.SortedMap;

/**
 * The result of {@code nodeatlas match}: per DeviceClass the devices it selects, per claim request the
 * devices that satisfy it and why the others do not, and whether the whole claim can be allocated on this
 * node given the claims before it in the input (they are allocated in order, as the scheduler does, and
 * what they take is no longer available). Everything is ordered (input order for objects, device name order for devices), so the same input
 * always gives the same report.
 */
public record MatchReport(String node, List<ClassReport> classes, List<ClaimReport> claims) {

  public MatchReport {
    classes = List.copyOf(classes);
    claims = List.copyOf(claims);
  }

  /** Exit status 0 needs every request of every claim to be satisfiable here, together. */
  public boolean allSatisfiable() {
    return claims.stream().allMatch(ClaimReport::satisfiable);
  }

  /** One selector across all devices of the node. */
  public record SelectorReport(String owner, int index, String expression, int matchingDevices, int errors,
      List<String> warnings) {
    public SelectorReport {
      warnings = List.copyOf(warnings);
    }

    /** No device of this node satisfies the selector on its own. */
    public boolean neverMatches() {
      return matchingDevices == 0;
    }
  }

  public record ClassReport(String name, String origin, List<String> devices, List<SelectorReport> selectors) {
    public ClassReport {
      devices = List.copyOf(devices);
      selectors = List.copyOf(selectors);
    }
  }

  /** Why one device is not a candidate: the first selector (or capacity check) that did not pass. */
  public record Rejection(String device, String failedAt, String expression, SelectorResult.Outcome outcome,
      String detail, List<SelectorResult.Observed> observed) {
    public Rejection {
      observed = List.copyOf(observed);
    }
  }

  /**
   * What a request consumes of one capacity of a matching shared device when that is not exactly the
   * amount it asks for: the capacity's request-policy default (or the whole capacity) when the request
   * does not name it ({@code requested} null), or the amount rounded up to what the policy allows
   * (KEP-5075). {@code rule} says which.
   */
  public record CapacityConsumption(String device, String capacity, String requested, String consumed, String rule) {}

  /** One way of satisfying a request ({@code exactly}, or one {@code firstAvailable} subrequest). */
  public record AlternativeReport(String name, String deviceClassName, String allocationMode, long count,
      SortedMap<String, String> capacityRequests, List<String> devices, List<Rejection> rejected,
      List<SelectorReport> selectors, List<CapacityConsumption> consumption) {
    public AlternativeReport {
      devices = List.copyOf(devices);
      rejected = List.copyOf(rejected);
      selectors = List.copyOf(selectors);
      consumption = List.copyOf(consumption);
    }

    /** Run-time errors abort the scheduler's allocation attempt. */
    public List<Rejection> errors() {
      return rejected.stream().filter(r -> r.outcome() == SelectorResult.Outcome.ERROR).toList();
    }

    /** Enough devices for this alternative alone, ignoring other requests and constraints. */
    public boolean enoughDevices() {
      return errors().isEmpty() && (allocationMode.equals("All") ? !devices.isEmpty() : devices.size() >= count);
    }
  }

  public record RequestReport(String name, boolean firstAvailable, List<AlternativeReport> alternatives) {
    public RequestReport {
      alternatives = List.copyOf(alternatives);
    }
  }

  public record ConstraintReport(String kind, String attribute, List<String> requests) {
    public ConstraintReport {
      requests = List.copyOf(requests);
    }
  }

  /**
   * What one request of an allocated claim takes of one device: an exclusive device whole
   * ({@code capacity} null), or of a shared device an amount of one capacity ({@code consumedCapacity} of
   * the allocation result, KEP-5075), with what is {@code left} of its {@code total} after this claim and
   * the claims before it in the run.
   */
  public record Consumed(String request, String device, String capacity, String amount, String left, String total) {
    public boolean exclusive() {
      return capacity == null;
    }
  }

  /**
   * A claim's verdict. {@code allocation} is one allocation this node can give (request or
   * {@code request/subrequest} to device names), found by the same first-fit order the scheduler uses;
   * empty when {@code satisfiable} is false, and then {@code reason} says why.
   */
  public record ClaimReport(String kind, String namespace, String name, String origin, boolean satisfiable,
      String reason, Map<String, List<String>> allocation, List<RequestReport> requests,
      List<ConstraintReport> constraints, List<Consumed> consumed, List<String> reasons) {
    public ClaimReport {
      allocation = java.util.Collections.unmodifiableMap(new java.util.LinkedHashMap<>(allocation));
      requests = List.copyOf(requests);
      constraints = List.copyOf(constraints);
      consumed = List.copyOf(consumed);
      reasons = List.copyOf(reasons);
    }

    /**
     * {@code reasons}: the sentences of {@code reason}, one per blocking request, the first blocking first (the
     * fleet view shows the first alone).
     */
    public ClaimReport(String kind, String namespace, String name, String origin, boolean satisfiable, String reason,
        Map<String, List<String>> allocation, List<RequestReport> requests, List<ConstraintReport> constraints,
        List<Consumed> consumed) {
      this(kind, namespace, name, origin, satisfiable, reason, allocation, requests, constraints, consumed,
          reason == null ? List.of() : List.of(reason));
    }

    /** The first blocking reason; null when the claim fits. */
    public String firstReason() {
      return reasons.isEmpty() ? reason : reasons.get(0);
    }

    public ClaimReport(String kind, String namespace, String name, String origin, boolean satisfiable, String reason,
        Map<String, List<String>> allocation, List<RequestReport> requests, List<ConstraintReport> constraints) {
      this(kind, namespace, name, origin, satisfiable, reason, allocation, requests, constraints, List.of());
    }

    public String displayName() {
      return kind + " " + (namespace == null ? "" : namespace + "/") + name;
    }
  }
}
