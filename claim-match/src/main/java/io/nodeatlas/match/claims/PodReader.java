package io.nodeatlas.match.claims;

import com.fasterxml.jackson.databind.JsonNode;
import io.nodeatlas.discovery.model.Names;
import io.nodeatlas.discovery.model.Quantity;
import io.nodeatlas.match.claims.ClaimModel.Origin;
import io.nodeatlas.match.claims.ClaimModel.Pod;
import io.nodeatlas.match.claims.ClaimModel.PodClaim;
import java.math.BigDecimal;
import java.util.ArrayList;
import java.util.HashSet;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.TreeMap;

/**
 * The parts of a {@code core/v1} Pod that decide where its devices come from: {@code spec.resourceClaims},
 * the extended resources of its containers (requests, or limits where requests leave them out; the sum of
 * the app containers or the largest init container, whichever is more, as the scheduler computes a pod's
 * request), {@code spec.nodeName}, {@code spec.nodeSelector}, the required node affinity and
 * {@code spec.tolerations}.
 */
final class PodReader {

  /** Resource names that are not extended resources: the kubelet's own and those of its domain. */
  private static final Set<String> NATIVE = Set.of("cpu", "memory", "ephemeral-storage", "storage");

  private PodReader() {}

  static Pod pod(JsonNode doc, Origin origin) throws ClaimInputException {
    String name = doc.path("metadata").path("name").asText("");
    String namespace = doc.path("metadata").hasNonNull("namespace") ? doc.path("metadata").path("namespace").asText() : null;
    String where = origin + " Pod " + (namespace == null ? "" : namespace + "/") + name;
    if (name.isEmpty()) {
      throw new ClaimInputException(origin + ": Pod without metadata.name");
    }
    JsonNode spec = doc.path("spec");
    List<PodClaim> claims = new ArrayList<>();
    Set<String> names = new HashSet<>();
    for (JsonNode c : spec.path("resourceClaims")) {
      String n = c.path("name").asText("");
      String claim = c.hasNonNull("resourceClaimName") ? c.get("resourceClaimName").asText() : null;
      String template = c.hasNonNull("resourceClaimTemplateName") ? c.get("resourceClaimTemplateName").asText() : null;
      if (!Names.isDnsLabel(n) || !names.add(n)) {
        throw new ClaimInputException(where + ": spec.resourceClaims: \"" + n + "\" is not a unique DNS label");
      }
      if ((claim == null) == (template == null)) {
        throw new ClaimInputException(where + ": spec.resourceClaims[" + n + "]: exactly one of resourceClaimName "
            + "and resourceClaimTemplateName must be set");
      }
      claims.add(new PodClaim(n, claim, template));
    }
    Map<String, Long> apps = extended(spec.path("containers"), where, false);
    Map<String, Long> inits = extended(spec.path("initContainers"), where, true);
    TreeMap<String, Long> resources = new TreeMap<>(apps);
    inits.forEach((k, v) -> resources.merge(k, v, Math::max));
    Map<String, String> selector = new LinkedHashMap<>();
    spec.path("nodeSelector").properties().forEach(e -> selector.put(e.getKey(), e.getValue().asText()));
    String nodeName = spec.hasNonNull("nodeName") ? spec.get("nodeName").asText() : null;
    List<ClaimModel.Toleration> tolerations = new ArrayList<>();
    for (JsonNode t : spec.path("tolerations")) {
      tolerations.add(new ClaimModel.Toleration(t.path("key").asText(""), t.path("operator").asText("Equal"),
          t.path("value").asText(""), t.path("effect").asText("")));
    }
    NodeSelectorTerms affinity = null;
    JsonNode required = spec.path("affinity").path("nodeAffinity").path("requiredDuringSchedulingIgnoredDuringExecution");
    if (!required.isMissingNode() && !required.isNull()) {
      try {
        affinity = NodeSelectorTerms.parse(required);
      } catch (IllegalArgumentException e) {
        throw new ClaimInputException(where + ": spec.affinity.nodeAffinity.requiredDuringSchedulingIgnoredDuringExecution: "
            + e.getMessage());
      }
    }
    return new Pod(namespace, name, claims, resources, nodeName, selector, affinity, tolerations, origin);
  }

  /** Extended resources of {@code containers}: summed, or with {@code max} the largest of each. */
  private static Map<String, Long> extended(JsonNode containers, String where, boolean max) throws ClaimInputException {
    Map<String, Long> out = new TreeMap<>();
    for (JsonNode c : containers) {
      Map<String, JsonNode> asked = new TreeMap<>();
      c.path("resources").path("limits").properties().forEach(e -> asked.put(e.getKey(), e.getValue()));
      c.path("resources").path("requests").properties().forEach(e -> asked.put(e.getKey(), e.getValue()));
      for (Map.Entry<String, JsonNode> e : asked.entrySet()) {
        String resource = e.getKey();
        if (NATIVE.contains(resource) || resource.startsWith("hugepages-") || resource.startsWith("kubernetes.io/")
            || !resource.contains("/")) {
          continue;
        }
        BigDecimal amount;
        try {
          amount = Quantity.parse(e.getValue().asText()).toBigDecimal();
        } catch (IllegalArgumentException ex) {
          throw new ClaimInputException(where + ": resources of container " + c.path("name").asText("") + ": " + resource
              + ": " + ex.getMessage());
        }
        if (amount.signum() < 0 || amount.stripTrailingZeros().scale() > 0 || amount.compareTo(BigDecimal.valueOf(128)) > 0) {
          throw new ClaimInputException(where + ": extended resource " + resource + ": " + e.getValue().asText()
              + " is not a whole number of devices from 0 to 128");
        }
        long n = amount.longValueExact();
        out.merge(resource, n, max ? Math::max : Long::sum);
      }
    }
    return out;
  }
}
