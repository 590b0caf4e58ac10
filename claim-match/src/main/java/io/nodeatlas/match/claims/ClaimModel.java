package io.nodeatlas.match.claims;

import java.math.BigDecimal;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.SortedMap;

/**
 * The parts of {@code resource.k8s.io/v1} DeviceClass, ResourceClaim and ResourceClaimTemplate that decide
 * which devices a claim can get ({@code resource.k8s.io/v1} {@code DeviceClaim}). Records only; {@link ClaimDocumentParser} builds them.
 */
public final class ClaimModel {

  private ClaimModel() {}

  /** Where an object came from, for messages: {@code claims.yaml#2 ResourceClaim default/gpu}. */
  public record Origin(String file, int document) {
    @Override
    public String toString() {
      return file + "#" + document;
    }
  }

  /**
   * A DeviceClass; {@code extendedResourceName} (KEP-5004, may be null) is the extended resource a pod can
   * ask for to get one device of this class per unit.
   */
  public record DeviceClass(String name, List<String> selectors, Origin origin, String extendedResourceName) {
    public DeviceClass {
      selectors = List.copyOf(selectors);
    }

    public DeviceClass(String name, List<String> selectors, Origin origin) {
      this(name, selectors, origin, null);
    }
  }

  /**
   * What a Pod asks of DRA ({@code core/v1} {@code PodSpec}): its {@code resourceClaims} (by ResourceClaim
   * or ResourceClaimTemplate name), the extended resources its containers request (summed over the
   * containers, the largest init container counted as the scheduler does) and where it may run
   * ({@code requiredNodeAffinity} null when the pod has none).
   */
  public record Pod(String namespace, String name, List<PodClaim> claims, java.util.SortedMap<String, Long> extendedResources,
      String nodeName, Map<String, String> nodeSelector, NodeSelectorTerms requiredNodeAffinity, List<Toleration> tolerations,
      Origin origin) {
    public Pod {
      claims = List.copyOf(claims);
      tolerations = List.copyOf(tolerations);
      extendedResources = java.util.Collections.unmodifiableSortedMap(new java.util.TreeMap<>(extendedResources));
      nodeSelector = Map.copyOf(nodeSelector);
    }

    public String displayName() {
      return "Pod " + (namespace == null ? "" : namespace + "/") + name;
    }
  }

  /** One entry of {@code spec.resourceClaims}: exactly one of the two names is set. */
  public record PodClaim(String name, String resourceClaimName, String resourceClaimTemplateName) {}

  public enum AllocationMode {
    EXACT_COUNT("ExactCount"),
    ALL("All");

    private final String apiName;

    AllocationMode(String apiName) {
      this.apiName = apiName;
    }

    public String apiName() {
      return apiName;
    }
  }

  /**
   * One way to satisfy a request: {@code exactly}, or one {@code firstAvailable} entry (then {@code name}
   * is the subrequest's name). Capacity requests are exact decimal amounts keyed by qualified name.
   */
  public record DeviceSelection(
      String name,
      String deviceClassName,
      List<String> selectors,
      AllocationMode allocationMode,
      long count,
      SortedMap<String, BigDecimal> capacityRequests,
      List<Toleration> tolerations) {
    public DeviceSelection {
      selectors = List.copyOf(selectors);
      capacityRequests = java.util.Collections.unmodifiableSortedMap(new java.util.TreeMap<>(capacityRequests));
      tolerations = List.copyOf(tolerations);
    }

    /** A selection that tolerates no device taint. */
    public DeviceSelection(String name, String deviceClassName, List<String> selectors, AllocationMode allocationMode,
        long count, SortedMap<String, BigDecimal> capacityRequests) {
      this(name, deviceClassName, selectors, allocationMode, count, capacityRequests, List.of());
    }
  }

  /**
   * A {@code resource.k8s.io/v1} {@code DeviceToleration} (KEP-5055): {@code Exists} matches any value of
   * {@code key} (any key when empty), {@code Equal} the one {@code value}; an empty {@code effect} matches
   * every effect.
   */
  public record Toleration(String key, String operator, String value, String effect) {
    /** Whether this toleration tolerates a taint of {@code key}, {@code value} and {@code effect}. */
    public boolean tolerates(String taintKey, String taintValue, String taintEffect) {
      if (effect != null && !effect.isEmpty() && !effect.equals(taintEffect)) {
        return false;
      }
      if (key == null || key.isEmpty()) {
        return "Exists".equals(operator);
      }
      if (!key.equals(taintKey)) {
        return false;
      }
      return "Exists".equals(operator) || java.util.Objects.equals(value == null ? "" : value,
          taintValue == null ? "" : taintValue);
    }
  }

  /** A request: either one {@code exactly} alternative, or up to 8 {@code firstAvailable} alternatives tried in order. */
  public record Request(String name, List<DeviceSelection> alternatives, boolean firstAvailable) {
    public Request {
      alternatives = List.copyOf(alternatives);
    }
  }

  public enum ConstraintKind {
    MATCH_ATTRIBUTE("matchAttribute"),
    DISTINCT_ATTRIBUTE("distinctAttribute");

    private final String apiName;

    ConstraintKind(String apiName) {
      this.apiName = apiName;
    }

    public String apiName() {
      return apiName;
    }
  }

  /** A claim constraint; an empty {@code requests} list means all requests of the claim. */
  public record Constraint(List<String> requests, ConstraintKind kind, String attribute) {
    public Constraint {
      requests = List.copyOf(requests);
    }
  }

  /** A ResourceClaim, or the claim a ResourceClaimTemplate would create. */
  public record Claim(String kind, String namespace, String name, List<Request> requests,
      List<Constraint> constraints, Origin origin) {
    public Claim {
      requests = List.copyOf(requests);
      constraints = List.copyOf(constraints);
    }

    public String displayName() {
      return kind + " " + (namespace == null ? "" : namespace + "/") + name;
    }

    public Optional<Request> request(String requestName) {
      return requests.stream().filter(r -> r.name().equals(requestName)).findFirst();
    }
  }

  /** Everything read from the input files, in input order. */
  public record Documents(List<DeviceClass> deviceClasses, List<Claim> claims, List<Pod> pods) {
    public Documents {
      deviceClasses = List.copyOf(deviceClasses);
      claims = List.copyOf(claims);
      pods = List.copyOf(pods);
    }

    public Documents(List<DeviceClass> deviceClasses, List<Claim> claims) {
      this(deviceClasses, claims, List.of());
    }

    public Map<String, DeviceClass> classesByName() {
      Map<String, DeviceClass> out = new java.util.TreeMap<>();
      deviceClasses.forEach(c -> out.put(c.name(), c));
      return out;
    }
  }
}
