package io.nodeatlas.agent.claims;

import io.fabric8.kubernetes.api.model.resource.v1.AllocationResult;
import io.fabric8.kubernetes.api.model.resource.v1.DeviceRequestAllocationResult;
import io.fabric8.kubernetes.api.model.resource.v1.ResourceClaim;
import io.fabric8.kubernetes.api.model.resource.v1.ResourceClaimList;
import io.fabric8.kubernetes.client.dsl.MixedOperation;
import io.fabric8.kubernetes.client.dsl.Resource;
import io.fabric8.kubernetes.client.KubernetesClient;
import io.fabric8.kubernetes.client.KubernetesClientException;
import java.util.ArrayList;
import java.util.List;

/** Reads claims as {@code resource.k8s.io/v1} ResourceClaims through fabric8. */
public final class ApiClaimLookup implements ClaimLookup {

  /** Built once: fabric8 operation objects are immutable and safe to share between threads. */
  private final MixedOperation<ResourceClaim, ResourceClaimList, Resource<ResourceClaim>> claims;

  public ApiClaimLookup(KubernetesClient client) {
    this.claims = client.resources(ResourceClaim.class, ResourceClaimList.class);
  }

  @Override
  public List<AllocatedDevice> allocation(ClaimRef ref) throws ClaimLookupException {
    ResourceClaim claim;
    try {
      claim = claims.inNamespace(ref.namespace()).withName(ref.name()).get();
    } catch (KubernetesClientException e) {
      throw new ClaimLookupException("cannot read ResourceClaim " + ref.namespace() + "/" + ref.name()
          + " from the API server: " + describe(e));
    }
    if (claim == null) {
      throw new ClaimLookupException("ResourceClaim " + ref.namespace() + "/" + ref.name() + " does not exist");
    }
    String uid = claim.getMetadata() == null ? null : claim.getMetadata().getUid();
    if (!ref.uid().equals(uid)) {
      throw new ClaimLookupException("ResourceClaim " + ref.namespace() + "/" + ref.name() + " got replaced: the kubelet "
          + "asked for UID " + ref.uid() + ", the API server has UID " + uid);
    }
    AllocationResult allocation = claim.getStatus() == null ? null : claim.getStatus().getAllocation();
    if (allocation == null || allocation.getDevices() == null) {
      throw new ClaimLookupException("ResourceClaim " + ref.namespace() + "/" + ref.name() + " is not allocated");
    }
    List<AllocatedDevice> out = new ArrayList<>();
    List<DeviceRequestAllocationResult> results = allocation.getDevices().getResults();
    if (results != null) {
      for (DeviceRequestAllocationResult r : results) {
        // shareID and consumedCapacity (KEP-5075) are passed on as text; SharePlanner checks them per claim.
        java.util.Map<String, String> consumed = new java.util.TreeMap<>();
        if (r.getConsumedCapacity() != null) {
          r.getConsumedCapacity().forEach((k, q) -> consumed.put(nullToEmpty(k), q == null ? "" : q.toString()));
        }
        out.add(new AllocatedDevice(nullToEmpty(r.getRequest()), nullToEmpty(r.getDriver()), nullToEmpty(r.getPool()),
            nullToEmpty(r.getDevice()), Boolean.TRUE.equals(r.getAdminAccess()), nullToEmpty(r.getShareID()), consumed));
      }
    }
    return out;
  }

  private static String describe(KubernetesClientException e) {
    return io.nodeatlas.agent.ops.ApiErrors.describe(e);
  }

  private static String nullToEmpty(String s) {
    return s == null ? "" : s;
  }
}
