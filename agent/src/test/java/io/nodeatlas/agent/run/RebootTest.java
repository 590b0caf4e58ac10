package io.nodeatlas.agent.run;

import static io.nodeatlas.agent.testing.Eventually.await;
import static org.assertj.core.api.Assertions.assertThat;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import io.fabric8.kubernetes.api.model.resource.v1.ResourceClaim;
import io.fabric8.kubernetes.client.KubernetesClient;
import io.fabric8.kubernetes.client.server.mock.EnableKubernetesMockClient;
import io.nodeatlas.agent.claims.Checkpoint;
import io.nodeatlas.agent.kubelet.api.dra.v1.NodePrepareResourcesResponse;
import io.nodeatlas.agent.testing.ApiObjects;
import io.nodeatlas.agent.testing.FakeKubelet;
import io.nodeatlas.agent.testing.RunningAgent;
import io.nodeatlas.discovery.host.HostFs;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.List;
import java.util.stream.Stream;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * Issue 12 case 8: {@code /var/run/cdi} is tmpfs, so a reboot empties it while the checkpoint survives.
 * A reboot is simulated by a new boot ID under the procfs root and an emptied CDI dir; the kubelet's
 * Prepare after it must get ids whose spec exists, and claims it never asks for again must go.
 */
@EnableKubernetesMockClient(crud = true)
class RebootTest {

  private static final ObjectMapper JSON = new ObjectMapper();

  KubernetesClient client;

  @TempDir Path dir;

  @Test
  void afterARebootPrepareRecreatesTheSpecWithTheSameIdsAndClaimsGoneFromTheApiAreDropped() throws Exception {
    ApiObjects.node(client, "node-a");
    Path proc = Files.createDirectories(dir.resolve("host/proc/sys/kernel/random"));
    Files.writeString(proc.resolve("boot_id"), "0b7e2d36-6a4b-4a55-9d2f-111111111111\n");
    HostFs host = HostFs.of(dir.resolve("host"));
    AgentSettings settings = new AgentSettings("nodeatlas.io", "node-a", dir.resolve("kubelet"), dir.resolve("cdi"),
        dir.resolve("state"), "127.0.0.1", 0, -1, Duration.ofSeconds(2), Duration.ofSeconds(2)).withHost(host);
    String kept = ApiObjects.allocatedClaim(client, "default", "kept",
        List.of(ApiObjects.result("gpus", "nodeatlas.io", "node-a", "gpu-0"))).getMetadata().getUid();
    String gone = ApiObjects.allocatedClaim(client, "default", "gone",
        List.of(ApiObjects.result("gpus", "nodeatlas.io", "node-a", "gpu-1"))).getMetadata().getUid();

    List<String> idsBefore;
    try (RunningAgent a = new RunningAgent(settings, client)) {
      NodePrepareResourcesResponse r = a.kubelet.prepare(FakeKubelet.claim("default", "kept", kept),
          FakeKubelet.claim("default", "gone", gone));
      assertThat(r.getClaimsOrThrow(kept).getError()).isEmpty();
      assertThat(r.getClaimsOrThrow(gone).getError()).isEmpty();
      idsBefore = r.getClaimsOrThrow(kept).getDevices(0).getCdiDeviceIdsList();
    }
    assertThat(checkpoint(settings).at("/boot/id").asText()).isEqualTo("0b7e2d36-6a4b-4a55-9d2f-111111111111");

    // The reboot: a new boot ID, the tmpfs CDI dir empty, and one claim deleted while the node was down.
    Files.writeString(proc.resolve("boot_id"), "0b7e2d36-6a4b-4a55-9d2f-222222222222\n");
    try (Stream<Path> files = Files.list(settings.cdiRoot())) {
      for (Path f : files.toList()) {
        Files.delete(f);
      }
    }
    client.resources(ResourceClaim.class).inNamespace("default").withName("gone").delete();

    try (RunningAgent b = new RunningAgent(settings, client)) {
      JsonNode cp = checkpoint(settings);
      assertThat(cp.at("/boot/id").asText()).isEqualTo("0b7e2d36-6a4b-4a55-9d2f-222222222222");

      // The kubelet prepares the claim of a pod that is still there: same ids, and the spec exists again first.
      NodePrepareResourcesResponse r = b.kubelet.prepare(FakeKubelet.claim("default", "kept", kept));
      assertThat(r.getClaimsOrThrow(kept).getError()).isEmpty();
      assertThat(r.getClaimsOrThrow(kept).getDevices(0).getCdiDeviceIdsList()).isEqualTo(idsBefore);
      Path spec = settings.cdiRoot().resolve("nodeatlas.io-claim_" + kept + ".json");
      assertThat(spec).exists();
      assertThat(JSON.readTree(spec.toFile()).at("/devices/0/name").asText()).isEqualTo(kept + "-gpu-0");

      // The claim the API server no longer has is dropped: out of the checkpoint, its device free again.
      await(() -> !checkpoint(settings).at("/claims").has(gone));
      JsonNode after = checkpoint(settings);
      assertThat(after.at("/claims").has(kept)).isTrue();
      assertThat(after.at("/boot/unconfirmed").size()).isZero();
      assertThat(settings.cdiRoot().resolve("nodeatlas.io-claim_" + gone + ".json")).doesNotExist();
    }
  }

  static JsonNode checkpoint(AgentSettings settings) {
    try {
      return JSON.readTree(Checkpoint.document(settings.checkpointFile()));
    } catch (java.io.IOException | io.nodeatlas.agent.claims.CorruptCheckpointException e) {
      throw new AssertionError(e);
    }
  }
}
