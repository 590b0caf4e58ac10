package io.nodeatlas.agent.testing;

import io.fabric8.kubernetes.api.model.Node;
import io.fabric8.kubernetes.api.model.NodeBuilder;
import io.fabric8.kubernetes.api.model.resource.v1.DeviceRequestAllocationResult;
import io.fabric8.kubernetes.api.model.resource.v1.DeviceRequestAllocationResultBuilder;
import io.fabric8.kubernetes.api.model.resource.v1.ResourceClaim;
import io.fabric8.kubernetes.api.model.resource.v1.ResourceClaimBuilder;
import io.fabric8.kubernetes.client.KubernetesClient;
import java.util.List;

/** Objects the API server would hold: Nodes and allocated ResourceClaims, stored in the CRUD mock. */
public final class ApiObjects {

  private ApiObjects() {}

  public static Node node(KubernetesClient client, String name) {
    return client.nodes().resource(new NodeBuilder().withNewMetadata().withName(name).withUid("uid-node-" + name)
        .endMetadata().build()).create();
  }

  public static DeviceRequestAllocationResult result(String request, String driver, String pool, String device) {
    return new DeviceRequestAllocationResultBuilder().withRequest(request).withDriver(driver).withPool(pool)
        .withDevice(device).build();
  }

  /**
   * A result for a share of a device that allows multiple allocations, as the scheduler writes it
   * (KEP-5075: {@code shareID} and {@code consumedCapacity}); null leaves a field out.
   */
  public static DeviceRequestAllocationResult shareResult(String request, String driver, String pool, String device,
      String shareId, java.util.Map<String, String> consumed) {
    DeviceRequestAllocationResultBuilder b = new DeviceRequestAllocationResultBuilder().withRequest(request).withDriver(driver)
        .withPool(pool).withDevice(device).withShareID(shareId);
    if (consumed != null) {
      java.util.Map<String, io.fabric8.kubernetes.api.model.Quantity> q = new java.util.TreeMap<>();
      consumed.forEach((k, v) -> q.put(k, new io.fabric8.kubernetes.api.model.Quantity(v)));
      b.withConsumedCapacity(q);
    }
    return b.build();
  }

  /** An allocated claim with the given results; the API server assigns the UID. */
  public static ResourceClaim allocatedClaim(KubernetesClient client, String namespace, String name,
      List<DeviceRequestAllocationResult> results) {
    ResourceClaim claim = new ResourceClaimBuilder()
        .withNewMetadata().withNamespace(namespace).withName(name).endMetadata()
        .withNewSpec().endSpec()
        .withNewStatus().withNewAllocation().withNewDevices().withResults(results).endDevices().endAllocation().endStatus()
        .build();
    return client.resources(ResourceClaim.class).inNamespace(namespace).resource(claim).create();
  }

  /** A claim that exists but was not allocated yet. */
  public static ResourceClaim pendingClaim(KubernetesClient client, String namespace, String name) {
    ResourceClaim claim = new ResourceClaimBuilder()
        .withNewMetadata().withNamespace(namespace).withName(name).endMetadata()
        .withNewSpec().endSpec().build();
    return client.resources(ResourceClaim.class).inNamespace(namespace).resource(claim).create();
  }
}
