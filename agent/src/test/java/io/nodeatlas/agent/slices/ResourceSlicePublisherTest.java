package io.nodeatlas.agent.slices;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import io.fabric8.kubernetes.api.model.resource.v1.ResourceSlice;
import io.fabric8.kubernetes.client.ConfigBuilder;
import io.fabric8.kubernetes.client.KubernetesClient;
import io.fabric8.kubernetes.client.KubernetesClientBuilder;
import io.fabric8.kubernetes.client.jdkhttp.JdkHttpClientFactory;
import io.fabric8.kubernetes.client.server.mock.EnableKubernetesMockClient;
import io.fabric8.kubernetes.client.server.mock.KubernetesMockServer;
import io.nodeatlas.agent.testing.ApiObjects;
import io.nodeatlas.agent.testing.TestDevices;
import io.nodeatlas.discovery.model.Device;
import java.util.ArrayList;
import java.util.Comparator;
import java.util.List;
import java.util.concurrent.TimeUnit;
import io.fabric8.mockwebserver.http.RecordedRequest;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;

/** The publisher against fabric8's CRUD mock API server. */
@EnableKubernetesMockClient(crud = true)
class ResourceSlicePublisherTest {

  static final String DRIVER = "nodeatlas.io";
  static final String NODE = "node-a";

  KubernetesClient client;
  KubernetesMockServer server;

  ResourceSlicePublisher publisher;

  @BeforeEach
  void setUp() {
    ApiObjects.node(client, NODE);
    publisher = publisher(NODE);
  }

  /** The publisher under test for {@code node}: on fabric8's client here, on the agent's own in a subclass. */
  ResourceSlicePublisher publisher(String node) {
    return new ResourceSlicePublisher(client, DRIVER, node);
  }

  List<ResourceSlice> slices() {
    List<ResourceSlice> items = new ArrayList<>(client.resources(ResourceSlice.class).list().getItems());
    items.sort(Comparator.comparing(s -> s.getMetadata().getName()));
    return items;
  }

  @Test
  void sharedDevicesArePublishedWithTheirRequestPoliciesAndNotRewrittenWhenTheServerDropsThem() throws Exception {
    List<io.nodeatlas.discovery.model.Device> devices = List.of(TestDevices.gpu(0), TestDevices.sharedCpus(0));
    PublishResult first = publisher.sync(devices);
    assertThat(first.created()).isEqualTo(1);
    ResourceSlice stored = slices().get(0);
    var cpu = stored.getSpec().getDevices().get(0);
    assertThat(cpu.getName()).isEqualTo("cpu-numa0");
    assertThat(cpu.getAllowMultipleAllocations()).isTrue();
    assertThat(cpu.getCapacity().get("nodeatlas.io/cpu").getRequestPolicy().getDefault().toString()).isEqualTo("1");
    assertThat(stored.getSpec().getDevices().get(1).getAllowMultipleAllocations()).isNull();
    assertThat(publisher.sync(devices).updated()).as("unchanged").isZero();

    // An API server with the DRAConsumableCapacity gate off keeps the slice without those fields.
    client.resource(ResourceSlicePublisher.withoutSharing(stored)).update();
    PublishResult second = publisher.sync(devices);
    PublishResult third = publisher.sync(devices);

    assertThat(List.of(second, third)).allSatisfy(r -> {
      assertThat(r.updated() + r.created() + r.deleted()).isZero();
      assertThat(r.generation()).isEqualTo(first.generation());
    });
    assertThat(slices().get(0).getSpec().getDevices().get(0).getAllowMultipleAllocations()).isNull();
  }

  @Test
  void publishesOnePoolWithNodeOwnerAndTypedAttributes() throws Exception {
    PublishResult r = publisher.sync(TestDevices.gpus(3));

    assertThat(r.created()).isEqualTo(1);
    List<ResourceSlice> slices = slices();
    assertThat(slices).hasSize(1);
    ResourceSlice s = slices.get(0);
    assertThat(s.getMetadata().getName()).isEqualTo("node-a-nodeatlas.io-0");
    assertThat(s.getSpec().getDriver()).isEqualTo(DRIVER);
    assertThat(s.getSpec().getNodeName()).isEqualTo(NODE);
    assertThat(s.getSpec().getPool().getName()).isEqualTo(NODE);
    assertThat(s.getSpec().getPool().getResourceSliceCount()).isEqualTo(1);
    assertThat(s.getMetadata().getOwnerReferences()).singleElement().satisfies(o -> {
      assertThat(o.getKind()).isEqualTo("Node");
      assertThat(o.getName()).isEqualTo(NODE);
      assertThat(o.getUid()).isEqualTo(client.nodes().withName(NODE).get().getMetadata().getUid());
      assertThat(o.getController()).isTrue();
    });
    var gpu0 = s.getSpec().getDevices().get(0);
    assertThat(gpu0.getName()).isEqualTo("gpu-0");
    assertThat(gpu0.getAttributes().get("nodeatlas.io/type").getString()).isEqualTo("gpu");
    assertThat(gpu0.getAttributes().get("nodeatlas.io/driverVersion").getVersion()).isEqualTo("580.65.6");
    assertThat(gpu0.getAttributes().get("resource.kubernetes.io/numaNode").getInt()).isZero();
    assertThat(gpu0.getCapacity().get("nodeatlas.io/memory").getValue().toString()).isEqualTo("80Gi");
  }

  @Test
  void splitsMoreThan128DevicesOverSlicesOfOneGeneration() throws Exception {
    PublishResult r = publisher.sync(TestDevices.gpus(300));

    assertThat(r.slices()).isEqualTo(3);
    List<ResourceSlice> slices = slices();
    assertThat(slices).extracting(s -> s.getSpec().getDevices().size()).containsExactly(128, 128, 44);
    assertThat(slices).allSatisfy(s -> {
      assertThat(s.getSpec().getPool().getResourceSliceCount()).isEqualTo(3);
      assertThat(s.getSpec().getPool().getGeneration()).isEqualTo(r.generation());
    });
    assertThat(slices.stream().flatMap(s -> s.getSpec().getDevices().stream()).map(d -> d.getName()).distinct())
        .hasSize(300);
  }

  @Test
  void writesNothingWhenNothingChanged() throws Exception {
    PublishResult first = publisher.sync(TestDevices.gpus(130));
    String versions = slices().stream().map(s -> s.getMetadata().getResourceVersion()).toList().toString();
    while (server.takeRequest(50, TimeUnit.MILLISECONDS) != null) {
      // drop the requests of the first sync
    }

    PublishResult second = publisher.sync(TestDevices.gpus(130));
    List<String> calls = new ArrayList<>();
    for (RecordedRequest q; (q = server.takeRequest(50, TimeUnit.MILLISECONDS)) != null; ) {
      calls.add(q.getMethod() + " " + q.getPath());
    }

    assertThat(second.unchanged()).isTrue();
    assertThat(second.generation()).isEqualTo(first.generation());
    assertThat(slices().stream().map(s -> s.getMetadata().getResourceVersion()).toList().toString()).isEqualTo(versions);
    // One list call, nothing else (the Node UID is cached).
    assertThat(calls).singleElement().asString().startsWith("GET /apis/resource.k8s.io/v1/resourceslices?");
  }

  @Test
  void aChangeBumpsTheGenerationOfEverySliceAndDropsObsoleteOnes() throws Exception {
    PublishResult first = publisher.sync(TestDevices.gpus(200));
    assertThat(slices()).hasSize(2);

    List<Device> fewer = TestDevices.gpus(5);
    PublishResult second = publisher.sync(fewer);

    assertThat(second.generation()).isEqualTo(first.generation() + 1);
    assertThat(second.deleted()).isEqualTo(1);
    assertThat(slices()).singleElement().satisfies(s -> {
      assertThat(s.getSpec().getPool().getGeneration()).isEqualTo(second.generation());
      assertThat(s.getSpec().getPool().getResourceSliceCount()).isEqualTo(1);
      assertThat(s.getSpec().getDevices()).hasSize(5);
    });
  }

  @Test
  void recreatesSlicesDeletedByOthers() throws Exception {
    publisher.sync(TestDevices.gpus(200));
    // What the kubelet does when it starts: delete every slice of the node.
    client.resources(ResourceSlice.class).delete();
    assertThat(slices()).isEmpty();

    PublishResult r = publisher.sync(TestDevices.gpus(200));

    assertThat(r.created()).isEqualTo(2);
    assertThat(slices()).hasSize(2).allSatisfy(s ->
        assertThat(s.getSpec().getPool().getGeneration()).isEqualTo(r.generation()));
  }

  @Test
  void anEmptyNodePublishesAnEmptyPool() throws Exception {
    publisher.sync(List.of());

    assertThat(slices()).singleElement().satisfies(s -> {
      assertThat(s.getSpec().getDevices()).isEmpty();
      assertThat(s.getSpec().getPool().getResourceSliceCount()).isEqualTo(1);
    });
  }

  @Test
  void leavesOtherNodesAndDriversAlone() throws Exception {
    ApiObjects.node(client, "node-b");
    publisher("node-b").sync(TestDevices.gpus(2));

    publisher.sync(TestDevices.gpus(1));
    publisher.sync(List.of());

    assertThat(slices()).extracting(s -> s.getSpec().getNodeName()).containsExactlyInAnyOrder("node-a", "node-b");
    assertThat(slices().stream().filter(s -> s.getSpec().getNodeName().equals("node-b")).findFirst().orElseThrow()
        .getSpec().getDevices()).hasSize(2);
  }

  @Test
  void apiFailuresAreReportedAndTheNextSyncRecovers() throws Exception {
    server.expect().get().withPath("/api/v1/nodes/node-a").andReturn(500, "etcd is down").once();
    // No client-side retries, so the failure reaches the publisher (the agent retries with its own backoff).
    try (KubernetesClient noRetry = new KubernetesClientBuilder()
        .withConfig(new ConfigBuilder(client.getConfiguration()).withRequestRetryBackoffLimit(0).build())
        .withHttpClientFactory(new JdkHttpClientFactory()).build()) {
      ResourceSlicePublisher p = new ResourceSlicePublisher(noRetry, DRIVER, NODE);

      assertThatThrownBy(() -> p.sync(TestDevices.gpus(2)))
          .isInstanceOf(PublishException.class).hasMessageContaining("500");
      assertThat(slices()).isEmpty();

      PublishResult r = p.sync(TestDevices.gpus(2));
      assertThat(r.created()).isEqualTo(1);
    }
  }

  @Test
  void anUnreachableApiServerIsAPublishException() {
    try (KubernetesClient unreachable = new KubernetesClientBuilder()
        .withConfig(new ConfigBuilder().withMasterUrl("https://127.0.0.1:1").withRequestRetryBackoffLimit(0)
            .withConnectionTimeout(500).build())
        .withHttpClientFactory(new JdkHttpClientFactory()).build()) {
      assertThatThrownBy(() -> new ResourceSlicePublisher(unreachable, DRIVER, NODE).sync(TestDevices.gpus(1)))
          .isInstanceOf(PublishException.class).hasMessageContaining("publishing ResourceSlices failed");
    }
  }

  @Test
  void aMissingNodeIsReportedNotGuessed() {
    ResourceSlicePublisher ghost = publisher("no-such-node");

    assertThatThrownBy(() -> ghost.sync(TestDevices.gpus(1))).hasMessageContaining("Node no-such-node does not exist");
  }

  @Test
  void longNodeNamesStillGiveValidNamesAndLabels() {
    String longNode = "n".repeat(70) + "." + "x".repeat(180);
    ResourceSlicePublisher p = publisher(longNode);

    assertThat(p.sliceName(12)).hasSizeLessThanOrEqualTo(253).endsWith("-12");
    assertThat(io.nodeatlas.discovery.model.Names.isDnsSubdomain(p.sliceName(12))).isTrue();
    assertThat(p.nodeLabelValue()).hasSizeLessThanOrEqualTo(63).startsWith("sha256-");
  }
}
