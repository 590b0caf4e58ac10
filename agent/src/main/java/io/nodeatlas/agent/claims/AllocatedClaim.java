package io.nodeatlas.agent.claims;

import java.util.List;

/**
 * What Prepare reads of a claim from the API server: its allocation results (for every driver) and,
 * for a claim made from a ResourceClaimTemplate, the pod's name for it ({@code pod.spec.resourceClaims[].name}),
 * which the ResourceClaim controller stores in the annotation {@link #POD_CLAIM_NAME_ANNOTATION} (k8s.io/api
 * {@code resource/v1} {@code PodResourceClaimAnnotation}); empty for a claim the pod names directly.
 */
public record AllocatedClaim(List<AllocatedDevice> results, String podClaimName) {

  /** The annotation a template-generated claim carries (set by kube-controller-manager's ResourceClaim controller). */
  public static final String POD_CLAIM_NAME_ANNOTATION = "resource.kubernetes.io/pod-claim-name";

  public AllocatedClaim {
    results = List.copyOf(results);
    podClaimName = podClaimName == null ? "" : podClaimName;
  }
}
