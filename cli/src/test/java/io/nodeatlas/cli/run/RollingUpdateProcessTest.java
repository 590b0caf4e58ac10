package io.nodeatlas.cli.run;

import static org.assertj.core.api.Assertions.assertThat;

import io.fabric8.kubernetes.api.model.resource.v1.ResourceSlice;
import io.fabric8.kubernetes.client.KubernetesClient;
import io.nodeatlas.agent.claims.Checkpoint;
import io.nodeatlas.agent.kubelet.KubeletPaths;
import io.nodeatlas.agent.kubelet.api.dra.v1.NodePrepareResourcesResponse;
import io.nodeatlas.agent.testing.ApiObjects;
import io.nodeatlas.agent.testing.FakeKubelet;
import io.nodeatlas.agent.testing.TestDevices;
import io.nodeatlas.cli.testing.AgentProcesses;
import io.nodeatlas.discovery.report.NodeReportCodec;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.concurrent.TimeUnit;
import java.util.function.BooleanSupplier;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * A DaemonSet rolling update ({@code maxSurge: 1}) as real agent processes on one state directory, as
 * the kubelet expects it (kubernetes PR 129832, kubeletplugin {@code RollingUpdate}): each serves sockets
 * named by its pod UID, the new one registers beside the old one and both serve; a new one killed with
 * {@code kill -9} leaves the old one serving and publishing; SIGTERM removes only the stopped one's sockets.
 */
class RollingUpdateProcessTest {

  static final Duration WAIT = AgentProcesses.WAIT;

  @TempDir Path dir;

  private AgentProcesses agents;

  @AfterEach
  void stop() {
    if (agents != null) {
      agents.close();
    }
  }

  @Test
  void bothServeUntilTheOldOneStopsAndANewOneThatDiesLeavesTheOldOneServing() throws Exception {
    agents = new AgentProcesses(dir);
    KubernetesClient client = agents.client();
    ApiObjects.node(client, "node-a");
    String uid = ApiObjects.allocatedClaim(client, "default", "train",
        List.of(ApiObjects.result("gpus", "nodeatlas.io", "node-a", "gpu-1"))).getMetadata().getUid();
    String second = ApiObjects.allocatedClaim(client, "default", "second",
        List.of(ApiObjects.result("gpus", "nodeatlas.io", "node-a", "gpu-1"))).getMetadata().getUid();
    Path report = Files.writeString(dir.resolve("report.json"), new NodeReportCodec().toJson(TestDevices.report(TestDevices.gpus(2))));
    Path kubeletRoot = agents.kubeletRoot();
    KubeletPaths oldPaths = new KubeletPaths(kubeletRoot, "nodeatlas.io", "0ld-pod");
    KubeletPaths newPaths = new KubeletPaths(kubeletRoot, "nodeatlas.io", "n3w-pod");

    // The update turns the checkpoint's journal on: the old version (--checkpoint-journal=false) rewrites the
    // whole file, the new one (env NODEATLAS_CHECKPOINT_JOURNAL=true) appends to a journal, and each reads
    // what the other wrote.
    Process old = start("old", "0ld-pod", report, false);
    await("the old instance serves its pod-UID sockets", () -> Files.exists(oldPaths.draSocket())
        && !client.resources(ResourceSlice.class).list().getItems().isEmpty(), "old");
    assertThat(oldPaths.registrationSocket().getFileName().toString()).isEqualTo("nodeatlas.io-0ld-pod-reg.sock");
    assertThat(oldPaths.draSocket()).isEqualTo(kubeletRoot.resolve("plugins/nodeatlas.io/dra-0ld-pod.sock"));
    List<String> ids;
    try (FakeKubelet kubelet = new FakeKubelet(oldPaths.registrationSocket(), oldPaths.draSocket())) {
      NodePrepareResourcesResponse r = kubelet.prepare(FakeKubelet.claim("default", "train", uid));
      assertThat(r.getClaimsOrThrow(uid).getError()).as(log("old")).isEmpty();
      ids = r.getClaimsOrThrow(uid).getDevices(0).getCdiDeviceIdsList();
    }

    // The new pod starts beside the old one (maxSurge: 1) and publishing moves to it; both keep serving.
    Process neu = start("new", "n3w-pod", report, true);
    await("the new instance serves and publishes", () -> Files.exists(newPaths.draSocket())
        && log("new").contains("holding the state directory"), "new");
    assertThat(log("old")).contains("handed over publishing, still serving the kubelet");
    assertThat(log("old")).contains("journal=off");
    assertThat(log("new")).contains("journal=on");
    assertThat(oldPaths.registrationSocket()).as("the old instance stays registered").exists();
    try (FakeKubelet kubelet = new FakeKubelet(newPaths.registrationSocket(), newPaths.draSocket())) {
      // The claim the old instance prepared is known to the new one: same ids, and its device stays taken.
      NodePrepareResourcesResponse again = kubelet.prepare(FakeKubelet.claim("default", "train", uid));
      assertThat(again.getClaimsOrThrow(uid).getError()).as(log("new")).isEmpty();
      assertThat(again.getClaimsOrThrow(uid).getDevices(0).getCdiDeviceIdsList()).isEqualTo(ids);
      NodePrepareResourcesResponse taken = kubelet.prepare(FakeKubelet.claim("default", "second", second));
      assertThat(taken.getClaimsOrThrow(second).getError()).contains("gpu-1", "already prepared");
    }

    // The new version crashes: the old pod, still running, serves and publishes again.
    neu.destroyForcibly();
    assertThat(neu.waitFor(WAIT.toSeconds(), TimeUnit.SECONDS)).isTrue();
    await("the old instance took the state directory back",
        () -> log("old").split("holding the state directory", -1).length == 3, "old");
    try (FakeKubelet kubelet = new FakeKubelet(oldPaths.registrationSocket(), oldPaths.draSocket())) {
      assertThat(kubelet.unprepare(FakeKubelet.claim("default", "train", uid)).getClaimsOrThrow(uid).getError())
          .as(log("old")).isEmpty();
      assertThat(kubelet.prepare(FakeKubelet.claim("default", "second", second)).getClaimsOrThrow(second).getError())
          .as(log("old")).isEmpty();
    }
    client.resources(ResourceSlice.class).delete();
    await("the old instance publishes again", () -> !client.resources(ResourceSlice.class).list().getItems().isEmpty(), "old");

    // The pod restarts its container (same UID: it replaces its own stale sockets) and takes over again;
    // then the DaemonSet controller deletes the old pod: SIGTERM, exit 0, only the old pod's sockets go.
    Process again = start("again", "n3w-pod", report, true);
    await("the restarted new instance publishes", () -> log("again").contains("holding the state directory"), "again");
    old.destroy();
    assertThat(old.waitFor(WAIT.toSeconds(), TimeUnit.SECONDS)).as(log("old")).isTrue();
    assertThat(old.exitValue()).as(log("old")).isZero();
    assertThat(oldPaths.registrationSocket()).doesNotExist();
    assertThat(oldPaths.draSocket()).doesNotExist();
    assertThat(newPaths.registrationSocket()).exists();
    assertThat(newPaths.draSocket()).exists();
    try (FakeKubelet kubelet = new FakeKubelet(newPaths.registrationSocket(), newPaths.draSocket())) {
      assertThat(kubelet.unprepare(FakeKubelet.claim("default", "second", second)).getClaimsOrThrow(second).getError())
          .as(log("again")).isEmpty();
    }
    assertThat(new String(Checkpoint.document(dir.resolve("state/checkpoint.json")), StandardCharsets.UTF_8)).doesNotContain(second);
    try (java.util.stream.Stream<Path> files = Files.list(dir.resolve("state"))) {
      assertThat(files.map(f -> f.getFileName().toString())).as("the new version's journal")
          .anyMatch(n -> n.startsWith("checkpoint.json.journal-"));
    }

    again.destroy();
    assertThat(again.waitFor(WAIT.toSeconds(), TimeUnit.SECONDS)).as(log("again")).isTrue();
    assertThat(again.exitValue()).as(log("again")).isZero();
    for (String lock : List.of("agent.lock", "serialize.lock")) {
      assertThat(Files.getPosixFilePermissions(dir.resolve("state").resolve(lock)))
          .containsExactlyInAnyOrder(java.nio.file.attribute.PosixFilePermission.OWNER_READ,
              java.nio.file.attribute.PosixFilePermission.OWNER_WRITE);
    }
  }

  private Process start(String name, String podUid, Path report, boolean journal) throws Exception {
    Map<String, String> env = new HashMap<>();
    env.put("NODEATLAS_ROLLING_UPDATE_UID", podUid);
    env.put("NODEATLAS_CHECKPOINT_JOURNAL", journal ? "true" : null);
    return journal ? agents.start(name, env, "--replay-report", report.toString())
        : agents.start(name, env, "--replay-report", report.toString(), "--checkpoint-journal=false");
  }

  private void await(String what, BooleanSupplier condition, String logName) throws InterruptedException {
    agents.await(what, condition, logName);
  }

  private String log(String name) {
    return agents.log(name);
  }
}
