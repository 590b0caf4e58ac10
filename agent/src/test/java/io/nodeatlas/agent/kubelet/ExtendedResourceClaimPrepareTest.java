package io.nodeatlas.agent.kubelet;

import static io.nodeatlas.agent.testing.ApiObjects.result;
import static io.nodeatlas.agent.testing.FakeKubelet.claim;
import static org.assertj.core.api.Assertions.assertThat;

import io.fabric8.kubernetes.api.model.resource.v1.DeviceRequestBuilder;
import io.fabric8.kubernetes.api.model.resource.v1.ResourceClaim;
import io.fabric8.kubernetes.api.model.resource.v1.ResourceClaimBuilder;
import io.fabric8.kubernetes.client.KubernetesClient;
import io.fabric8.kubernetes.client.server.mock.EnableKubernetesMockClient;
import io.nodeatlas.agent.claims.ApiClaimLookup;
import io.nodeatlas.agent.claims.Checkpoint;
import io.nodeatlas.agent.claims.ClaimPreparer;
import io.nodeatlas.agent.claims.ClaimSpecStore;
import io.nodeatlas.agent.claims.DeviceInventory;
import io.nodeatlas.agent.kubelet.api.dra.v1.NodePrepareResourceResponse;
import io.nodeatlas.agent.testing.FakeKubelet;
import io.nodeatlas.agent.testing.TestDevices;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.List;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * The claim the scheduler generates for a pod's extended resources (KEP-5004), prepared through the kubelet's
 * socket like any other: generated name, the annotation {@code resource.kubernetes.io/extended-resource-claim},
 * the pod as controlling owner, and one request per container and resource, {@code container-<i>-request-<j>}
 * (the pod asked for {@code nodeatlas.io/gpu: 2} beside {@code cpu} and {@code memory} in its first container,
 * and {@code nodeatlas.io/gpu: 1} beside {@code cpu} in its second).
 */
@EnableKubernetesMockClient(crud = true)
class ExtendedResourceClaimPrepareTest {

  static final String DRIVER = "nodeatlas.io";
  static final String NODE = "node-a";

  KubernetesClient client;
  @TempDir Path kubeletRoot;
  @TempDir Path cdiRoot;
  @TempDir Path stateDir;
  KubeletPluginServer server;
  FakeKubelet kubelet;

  @BeforeEach
  void start() throws Exception {
    DeviceInventory inventory = new DeviceInventory(NODE);
    inventory.replace(TestDevices.gpus(4));
    ClaimPreparer preparer = new ClaimPreparer(DRIVER, inventory, new ApiClaimLookup(client), new ClaimSpecStore(cdiRoot),
        Checkpoint.open(stateDir.resolve("checkpoint.json")), ClaimPreparer.Listener.NONE);
    KubeletPaths paths = new KubeletPaths(kubeletRoot, DRIVER);
    server = KubeletPluginServer.start(paths, preparer);
    kubelet = new FakeKubelet(paths.registrationSocket(), paths.draSocket());
  }

  @AfterEach
  void stop() throws Exception {
    kubelet.close();
    server.shutdown(1000);
  }

  /** The claim as the scheduler creates it and then records its allocation. */
  ResourceClaim generatedClaim() {
    ResourceClaim claim = new ResourceClaimBuilder()
        .withNewMetadata().withNamespace("ml").withName("trainer-extended-resources-x7k2p")
        .addToAnnotations("resource.kubernetes.io/extended-resource-claim", "true")
        .addNewOwnerReference().withApiVersion("v1").withKind("Pod").withName("trainer").withUid("uid-pod-trainer")
        .withController(true).withBlockOwnerDeletion(true).endOwnerReference()
        .endMetadata()
        .withNewSpec().withNewDevices().withRequests(
            new DeviceRequestBuilder().withName("container-0-request-2").withNewExactly()
                .withDeviceClassName("nodeatlas-gpu").withAllocationMode("ExactCount").withCount(2L).endExactly().build(),
            new DeviceRequestBuilder().withName("container-1-request-1").withNewExactly()
                .withDeviceClassName("nodeatlas-gpu").withAllocationMode("ExactCount").withCount(1L).endExactly().build())
        .endDevices().endSpec()
        .withNewStatus().withNewAllocation().withNewDevices().withResults(
            result("container-0-request-2", DRIVER, NODE, "gpu-0"),
            result("container-0-request-2", DRIVER, NODE, "gpu-1"),
            result("container-1-request-1", DRIVER, NODE, "gpu-2"))
        .endDevices().endAllocation().endStatus()
        .build();
    return client.resources(ResourceClaim.class).inNamespace("ml").resource(claim).create();
  }

  @Test
  void theSchedulersExtendedResourceClaimIsPreparedPerRequest() throws Exception {
    ResourceClaim created = generatedClaim();
    String uid = created.getMetadata().getUid();
    String name = created.getMetadata().getName();

    NodePrepareResourceResponse r = kubelet.prepare(claim("ml", name, uid)).getClaimsOrThrow(uid);

    assertThat(r.getError()).isEmpty();
    assertThat(r.getDevicesList()).extracting(d -> d.getDeviceName() + " " + d.getRequestNamesList())
        .containsExactly("gpu-0 [container-0-request-2]", "gpu-1 [container-0-request-2]", "gpu-2 [container-1-request-1]");
    assertThat(r.getDevicesList()).extracting(d -> List.copyOf(d.getCdiDeviceIdsList())).containsExactly(
        List.of("nodeatlas.io/claim=" + uid + "-gpu-0"), List.of("nodeatlas.io/claim=" + uid + "-gpu-1"),
        List.of("nodeatlas.io/claim=" + uid + "-gpu-2"));
    Path spec = cdiRoot.resolve("nodeatlas.io-claim_" + uid + ".json");
    assertThat(Files.readString(spec)).contains("/dev/nvidia0", "/dev/nvidia1", "/dev/nvidia2").doesNotContain("/dev/nvidia3");

    // The kubelet asks again after a restart of its own: the same answer.
    assertThat(kubelet.prepare(claim("ml", name, uid)).getClaimsOrThrow(uid)).isEqualTo(r);
    // When the pod is gone the kubelet unprepares it; the scheduler then deletes the claim.
    assertThat(kubelet.unprepare(claim("ml", name, uid)).getClaimsOrThrow(uid).getError()).isEmpty();
    assertThat(spec).doesNotExist();
  }
}
