package io.nodeatlas.match.claims;

import io.nodeatlas.match.claims.ClaimModel.Claim;
import io.nodeatlas.match.claims.ClaimModel.Documents;
import io.nodeatlas.match.claims.ClaimModel.Pod;
import io.nodeatlas.match.claims.ClaimModel.PodClaim;
import io.nodeatlas.match.claims.ClaimModel.Request;
import java.util.ArrayList;
import java.util.List;
import java.util.Optional;

/**
 * The claims a pod brings to the scheduler, together: each {@code spec.resourceClaims} entry's
 * ResourceClaim or ResourceClaimTemplate from the input, and for its extended resources the claim the
 * scheduler generates ({@link ExtendedResourceRequests}: a request per container and resource for the
 * DeviceClass that serves it by {@code spec.extendedResourceName} or the implicit
 * {@code deviceclass.resource.kubernetes.io/<class>}, KEP-5004).
 */
public final class PodClaims {

  /** The implicit extended resource name of every DeviceClass. */
  public static final String IMPLICIT_PREFIX = "deviceclass.resource.kubernetes.io/";

  /** The documents to match and the pod they came from (empty when the input has no pod). */
  public record Resolved(Documents documents, Optional<Pod> pod) {}

  private PodClaims() {}

  /** Without a pod the documents as they are; with one pod its claims alone; more than one is an error. */
  public static Resolved resolve(Documents documents) throws ClaimInputException {
    if (documents.pods().isEmpty()) {
      return new Resolved(documents, Optional.empty());
    }
    if (documents.pods().size() > 1) {
      throw new ClaimInputException("the input files hold " + documents.pods().size() + " pods; match answers for one "
          + "pod at a time");
    }
    Pod pod = documents.pods().get(0);
    List<Claim> claims = new ArrayList<>();
    for (PodClaim pc : pod.claims()) {
      String kind = pc.resourceClaimName() != null ? "ResourceClaim" : "ResourceClaimTemplate";
      String name = pc.resourceClaimName() != null ? pc.resourceClaimName() : pc.resourceClaimTemplateName();
      Claim found = documents.claims().stream().filter(c -> c.kind().equals(kind) && c.name().equals(name)
          && (c.namespace() == null || pod.namespace() == null || c.namespace().equals(pod.namespace())))
          .findFirst().orElseThrow(() -> new ClaimInputException(pod.origin() + " " + pod.displayName()
              + ": spec.resourceClaims[" + pc.name() + "] uses " + kind + " " + name + ", which is not in the input "
              + "files; add it with -f"));
      claims.add(found);
    }
    List<Request> requests = ExtendedResourceRequests.of(pod.containers(), resource -> documents.deviceClasses()
        .stream().filter(c -> resource.equals(c.extendedResourceName()) || resource.equals(IMPLICIT_PREFIX + c.name()))
        .findFirst());
    if (!requests.isEmpty()) {
      claims.add(new Claim("ResourceClaim", pod.namespace(), pod.name() + "-extended-resources", requests, List.of(),
          pod.origin()));
    }
    if (claims.isEmpty()) {
      throw new ClaimInputException(pod.origin() + " " + pod.displayName() + " asks for no devices: no resourceClaims "
          + "and no extended resource a DeviceClass of the input serves");
    }
    return new Resolved(new Documents(documents.deviceClasses(), claims, List.of(pod)), Optional.of(pod));
  }
}
