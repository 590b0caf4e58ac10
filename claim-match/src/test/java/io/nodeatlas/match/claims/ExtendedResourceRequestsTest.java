package io.nodeatlas.match.claims;

import static org.assertj.core.api.Assertions.assertThat;

import io.nodeatlas.match.claims.ClaimModel.Claim;
import io.nodeatlas.match.claims.ClaimModel.DeviceSelection;
import io.nodeatlas.match.claims.ClaimModel.Request;
import java.util.List;
import org.junit.jupiter.api.Test;

/**
 * The claim the scheduler generates for a pod's extended resources (KEP-5004, {@code createRequestsAndMappings}
 * of the scheduler's dynamicresources plugin): request names, counts and classes, as a user of
 * {@code nodeatlas match -f pod.yaml} sees them.
 */
class ExtendedResourceRequestsTest {

  private static final String CLASSES = """
      apiVersion: resource.k8s.io/v1
      kind: DeviceClass
      metadata: {name: nodeatlas-gpu}
      spec:
        extendedResourceName: nodeatlas.io/gpu
        selectors: [{cel: {expression: 'device.attributes["nodeatlas.io"].type == "gpu"'}}]
      ---
      apiVersion: resource.k8s.io/v1
      kind: DeviceClass
      metadata: {name: nodeatlas-rdma}
      spec:
        extendedResourceName: nodeatlas.io/rdma
        selectors: [{cel: {expression: 'device.attributes["nodeatlas.io"].type == "rdma"'}}]
      ---
      apiVersion: resource.k8s.io/v1
      kind: DeviceClass
      metadata: {name: nodeatlas-mig}
      spec:
        selectors: [{cel: {expression: 'device.attributes["nodeatlas.io"].type == "mig"'}}]
      ---
      """;

  private static Claim generated(String podSpec) throws Exception {
    ClaimModel.Documents docs = new ClaimDocumentParser().parse("pod.yaml", CLASSES + """
        apiVersion: v1
        kind: Pod
        metadata: {name: trainer, namespace: ml}
        spec:
        """ + podSpec.indent(2));
    List<Claim> claims = PodClaims.resolve(docs).documents().claims();
    assertThat(claims).hasSize(1);
    return claims.get(0);
  }

  private static String describe(Request r) {
    DeviceSelection s = r.alternatives().get(0);
    return r.name() + " " + s.count() + " " + s.deviceClassName();
  }

  @Test
  void oneRequestPerContainerAndResourceNumberedAsTheScheduler() throws Exception {
    Claim c = generated("""
        containers:
        - name: a
          image: x
          resources: {limits: {nodeatlas.io/gpu: 2, cpu: "4", memory: 8Gi, nodeatlas.io/rdma: 1}}
        - name: b
          image: x
          resources: {requests: {deviceclass.resource.kubernetes.io/nodeatlas-mig: 1}, limits: {nodeatlas.io/gpu: 1}}
        - name: c
          image: x
          resources: {limits: {example.com/dongle: 1}}
        """);
    assertThat(c.name()).isEqualTo("trainer-extended-resources");
    assertThat(c.namespace()).isEqualTo("ml");
    // a's requests, sorted: cpu, memory, nodeatlas.io/gpu (2), nodeatlas.io/rdma (3); b's: deviceclass... (0),
    // nodeatlas.io/gpu (1); c's dongle has no DeviceClass: a device plugin's resource, left out.
    assertThat(c.requests()).extracting(ExtendedResourceRequestsTest::describe).containsExactly(
        "container-0-request-2 2 nodeatlas-gpu",
        "container-0-request-3 1 nodeatlas-rdma",
        "container-1-request-0 1 nodeatlas-mig",
        "container-1-request-1 1 nodeatlas-gpu");
  }

  @Test
  void initContainersBorrowTheLongLivedRequestsAndOnlyTheLargestRemains() throws Exception {
    Claim c = generated("""
        initContainers:
        - {name: fetch, image: x, resources: {limits: {nodeatlas.io/gpu: 3}}}
        - {name: warm, image: x, resources: {limits: {nodeatlas.io/gpu: 4}}}
        - {name: proxy, image: x, restartPolicy: Always, resources: {limits: {nodeatlas.io/gpu: 1}}}
        containers:
        - {name: main, image: x, resources: {limits: {nodeatlas.io/gpu: 1}}}
        """);
    // proxy (index 2, a sidecar) and main (index 3) hold one GPU each; fetch needs 3 - 2 more, warm 4 - 2:
    // warm's request is the larger and covers fetch, which runs before it.
    assertThat(c.requests()).extracting(ExtendedResourceRequestsTest::describe).containsExactly(
        "container-1-request-0 2 nodeatlas-gpu",
        "container-2-request-0 1 nodeatlas-gpu",
        "container-3-request-0 1 nodeatlas-gpu");
  }

  @Test
  void anInitContainerTheLongLivedOnesCoverAsksForNothing() throws Exception {
    Claim c = generated("""
        initContainers:
        - {name: fetch, image: x, resources: {limits: {nodeatlas.io/gpu: 1}}}
        containers:
        - {name: main, image: x, resources: {limits: {nodeatlas.io/gpu: 2}}}
        """);
    assertThat(c.requests()).extracting(ExtendedResourceRequestsTest::describe)
        .containsExactly("container-1-request-0 2 nodeatlas-gpu");
  }
}
