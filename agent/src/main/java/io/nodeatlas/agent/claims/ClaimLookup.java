package io.nodeatlas.agent.claims;

import java.util.List;

/**
 * Reads a claim's allocation from the API server. Implementations check that the stored claim has
 * the UID the kubelet named (else it was replaced) and that it is allocated, as the upstream helper
 * does before it calls a driver (the kubelet plugin helper of {@code k8s.io/dynamic-resource-allocation}).
 */
public interface ClaimLookup {

  /**
   * All allocation results of the claim (for every driver).
   *
   * @throws ClaimLookupException when the claim is missing, replaced, not allocated, or the API
   *     server cannot be reached; the message is what the kubelet shows.
   */
  List<AllocatedDevice> allocation(ClaimRef claim) throws ClaimLookupException;

  /**
   * As {@link #allocation(ClaimRef)}, giving up when {@code budget} is over: a lookup that talks to
   * the API server bounds every wait by it, so the call's answer reaches the kubelet before its deadline.
   */
  default List<AllocatedDevice> allocation(ClaimRef claim, CallBudget budget) throws ClaimLookupException {
    return allocation(claim);
  }

  /**
   * As {@link #allocation(ClaimRef, CallBudget)}, with the pod's name for a template-generated claim
   * where the lookup reads it (the API server's answer); without it, none.
   */
  default AllocatedClaim allocatedClaim(ClaimRef claim, CallBudget budget) throws ClaimLookupException {
    return new AllocatedClaim(allocation(claim, budget), "");
  }

  /** The lookup of a node without an API server: every claim fails with a clear reason. */
  static ClaimLookup unavailable(String reason) {
    return claim -> {
      throw new ClaimLookupException("cannot read claim " + claim + ": " + reason);
    };
  }
}
