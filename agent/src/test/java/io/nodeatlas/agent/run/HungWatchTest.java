package io.nodeatlas.agent.run;

import static io.nodeatlas.agent.testing.Eventually.await;
import static org.assertj.core.api.Assertions.assertThat;

import io.fabric8.kubernetes.api.model.resource.v1.ResourceSlice;
import io.fabric8.kubernetes.client.KubernetesClient;
import io.fabric8.kubernetes.client.server.mock.EnableKubernetesMockClient;
import io.nodeatlas.agent.kubelet.KubeletPaths;
import io.nodeatlas.agent.kubelet.api.dra.v1.NodePrepareResourcesResponse;
import io.nodeatlas.agent.ops.AgentMetrics;
import io.nodeatlas.agent.testing.ApiObjects;
import io.nodeatlas.agent.testing.FakeKubelet;
import io.nodeatlas.agent.testing.HangingWatchFront;
import io.nodeatlas.agent.testing.TestDevices;
import java.net.URI;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.nio.file.Path;
import java.time.Clock;
import java.time.Duration;
import java.util.List;
import java.util.Optional;
import java.util.concurrent.atomic.AtomicInteger;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * Issue 12 case 2: an API server that accepts the ResourceSlice watch and never answers. Before, the
 * main loop blocked in the watch forever: no discovery, no slices, every Prepare failed with "device …
 * no longer exists", and /healthz counted the loop's age from the epoch.
 */
@EnableKubernetesMockClient(https = false, crud = true)
class HungWatchTest {

  KubernetesClient client;

  @TempDir Path dir;

  @Test
  void aWatchThatNeverAnswersIsAbandonedAndReplacedWhileDiscoveryPublishingAndPrepareGoOn() throws Exception {
    ApiObjects.node(client, "node-a");
    AtomicInteger discoveries = new AtomicInteger();
    try (HangingWatchFront front = new HangingWatchFront(client); KubernetesClient agentClient = front.client()) {
      // A short resync, so the test sees the abandoned watch replaced within its bound.
      AgentSettings settings = new AgentSettings("nodeatlas.io", "node-a", dir.resolve("kubelet"), dir.resolve("cdi"),
          dir.resolve("state"), "127.0.0.1", -1, -1, Duration.ofSeconds(2), Duration.ofSeconds(2));
      Agent agent = new Agent(settings, () -> {
        discoveries.incrementAndGet();
        return TestDevices.report(TestDevices.gpus(2));
      }, agentClient, s -> { }, Optional.empty(), new AgentMetrics("test"), Clock.systemUTC());
      agent.start();
      // The loop has not run yet: liveness counts from the agent's start, not from 1970.
      assertThat(get(agent, "/healthz?verbose")).isEqualTo("200 [+]loop ok");
      Thread loop = new Thread(agent::run, "agent-loop");
      loop.start();
      KubeletPaths paths = new KubeletPaths(settings.kubeletRoot(), "nodeatlas.io");
      try (FakeKubelet kubelet = new FakeKubelet(paths.registrationSocket(), paths.draSocket())) {
        await(() -> client.resources(ResourceSlice.class).list().getItems().size() == 1);
        // The first watch hangs; it is abandoned and another one is opened (which hangs as well).
        await(() -> front.watches() >= 2);
        int seen = discoveries.get();
        await(() -> discoveries.get() > seen + 1);
        assertThat(get(agent, "/healthz?verbose")).isEqualTo("200 [+]loop ok");

        // The kubelet wipes the slices; without a working watch the periodic resync brings them back.
        client.resources(ResourceSlice.class).delete();
        await(() -> client.resources(ResourceSlice.class).list().getItems().size() == 1);

        String uid = ApiObjects.allocatedClaim(client, "default", "train",
            List.of(ApiObjects.result("gpus", "nodeatlas.io", "node-a", "gpu-1"))).getMetadata().getUid();
        NodePrepareResourcesResponse r = kubelet.prepare(FakeKubelet.claim("default", "train", uid));
        assertThat(r.getClaimsOrThrow(uid).getError()).isEmpty();
        assertThat(r.getClaimsOrThrow(uid).getDevices(0).getCdiDeviceIds(0)).isEqualTo("nodeatlas.io/claim=" + uid + "-gpu-1");
      } finally {
        agent.requestStop();
        loop.join(20_000);
        agent.close();
      }
      assertThat(loop.isAlive()).as("the loop stops although watches still hang").isFalse();
    }
  }

  /** Status code and the first line of the body. */
  private static String get(Agent agent, String path) throws Exception {
    HttpResponse<String> r = HttpClient.newHttpClient().send(HttpRequest.newBuilder(
        URI.create("http://127.0.0.1:" + agent.httpPort().orElseThrow() + path)).timeout(Duration.ofSeconds(30)).build(),
        HttpResponse.BodyHandlers.ofString());
    return r.statusCode() + " " + r.body().lines().findFirst().orElse("");
  }
}
