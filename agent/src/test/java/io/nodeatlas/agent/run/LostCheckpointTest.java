package io.nodeatlas.agent.run;

import static io.nodeatlas.agent.testing.Eventually.await;
import static org.assertj.core.api.Assertions.assertThat;

import io.fabric8.kubernetes.api.model.resource.v1.ResourceClaim;
import io.fabric8.kubernetes.client.KubernetesClient;
import io.fabric8.kubernetes.client.server.mock.EnableKubernetesMockClient;
import io.nodeatlas.agent.kubelet.api.dra.v1.NodePrepareResourcesResponse;
import io.nodeatlas.agent.testing.ApiObjects;
import io.nodeatlas.agent.testing.FakeKubelet;
import io.nodeatlas.agent.testing.RunningAgent;
import java.net.URI;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.List;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * Issue 12 case 7: a checkpoint deleted while claim specs of ours exist started silently with no
 * claims, so an exclusive device a running container holds could go to a second claim. Now Prepare is
 * refused until {@code --recover}, which reconciles the specs from the API server.
 */
@EnableKubernetesMockClient(crud = true)
class LostCheckpointTest {

  KubernetesClient client;

  @TempDir Path dir;

  @Test
  void aLostCheckpointRefusesPrepareUntilRecoverReconcilesTheSpecsFromTheApi() throws Exception {
    ApiObjects.node(client, "node-a");
    AgentSettings settings = new AgentSettings("nodeatlas.io", "node-a", dir.resolve("kubelet"), dir.resolve("cdi"),
        dir.resolve("state"), "127.0.0.1", -1, -1, Duration.ofSeconds(2), Duration.ofSeconds(2));
    String running = ApiObjects.allocatedClaim(client, "default", "running",
        List.of(ApiObjects.result("gpus", "nodeatlas.io", "node-a", "gpu-0"))).getMetadata().getUid();
    String deleted = ApiObjects.allocatedClaim(client, "default", "deleted",
        List.of(ApiObjects.result("gpus", "nodeatlas.io", "node-a", "gpu-1"))).getMetadata().getUid();
    List<String> ids;
    try (RunningAgent a = new RunningAgent(settings, client)) {
      NodePrepareResourcesResponse r = a.kubelet.prepare(FakeKubelet.claim("default", "running", running),
          FakeKubelet.claim("default", "deleted", deleted));
      assertThat(r.getClaimsOrThrow(running).getError()).isEmpty();
      ids = r.getClaimsOrThrow(running).getDevices(0).getCdiDeviceIdsList();
    }
    Files.delete(settings.checkpointFile());
    client.resources(ResourceClaim.class).inNamespace("default").withName("deleted").delete();
    // The scheduler, not knowing, hands gpu-0 to another claim as well (it saw nothing wrong).
    String thief = ApiObjects.allocatedClaim(client, "default", "thief",
        List.of(ApiObjects.result("gpus", "nodeatlas.io", "node-a", "gpu-0"))).getMetadata().getUid();

    try (RunningAgent b = new RunningAgent(settings, client)) {
      NodePrepareResourcesResponse r = b.kubelet.prepare(FakeKubelet.claim("default", "thief", thief));
      assertThat(r.getClaimsOrThrow(thief).getError()).contains("checkpoint", "is missing", "--recover");
      assertThat(readyz(b.agent)).contains("503", "--recover");
      // Still lost on the next start: nothing was written that would make the loss look like an empty checkpoint.
      assertThat(settings.checkpointFile()).doesNotExist();
    }

    try (RunningAgent c = new RunningAgent(settings.withRecover(true), client)) {
      // Recovery is done when the readiness check of the checkpoint passes.
      await(() -> readyzUnchecked(c.agent).contains("[+]checkpoint ok"));
      assertThat(RebootTest.checkpoint(settings).at("/claims").has(running)).isTrue();
      assertThat(RebootTest.checkpoint(settings).at("/claims").has(deleted)).isFalse();
      assertThat(settings.cdiRoot().resolve("nodeatlas.io-claim_" + deleted + ".json")).doesNotExist();
      assertThat(settings.cdiRoot().resolve("nodeatlas.io-claim_" + running + ".json")).exists();
      NodePrepareResourcesResponse again = c.kubelet.prepare(FakeKubelet.claim("default", "running", running));
      assertThat(again.getClaimsOrThrow(running).getError()).isEmpty();
      assertThat(again.getClaimsOrThrow(running).getDevices(0).getCdiDeviceIdsList()).isEqualTo(ids);
      // The device is held again, so the second claim of gpu-0 is refused instead of sharing it.
      NodePrepareResourcesResponse stolen = c.kubelet.prepare(FakeKubelet.claim("default", "thief", thief));
      assertThat(stolen.getClaimsOrThrow(thief).getError()).contains("gpu-0", "already prepared");
    }
  }

  private static String readyzUnchecked(Agent agent) {
    try {
      return readyz(agent);
    } catch (Exception e) {
      throw new AssertionError(e);
    }
  }

  private static String readyz(Agent agent) throws Exception {
    HttpResponse<String> r = HttpClient.newHttpClient().send(HttpRequest.newBuilder(
        URI.create("http://127.0.0.1:" + agent.httpPort().orElseThrow() + "/readyz?verbose")).build(),
        HttpResponse.BodyHandlers.ofString());
    return r.statusCode() + " " + r.body();
  }
}
