package io.nodeatlas.cli.run;

import static org.assertj.core.api.Assertions.assertThat;

import com.sun.jna.Native;
import io.fabric8.kubernetes.api.model.resource.v1.ResourceSlice;
import io.fabric8.kubernetes.client.KubernetesClient;
import io.nodeatlas.agent.kubelet.KubeletPaths;
import io.nodeatlas.agent.testing.ApiObjects;
import io.nodeatlas.agent.testing.FakeKubelet;
import io.nodeatlas.cli.testing.AgentProcesses;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.List;
import java.util.Map;
import java.util.concurrent.TimeUnit;
import java.util.function.BooleanSupplier;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Assumptions;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * Issue 34: a real kill -9 between creating a MIG instance and recording the claim. {@code nodeatlas run}
 * runs as its own process over the fake NVML, which kills it with SIGKILL right after
 * {@code nvmlGpuInstanceCreateComputeInstance} succeeded ({@code mig.kill_after}); the instance outlives the
 * process ({@code mig.state}), as the driver's would. The restarted agent destroys it before serving, and
 * the kubelet's repeated Prepare creates exactly one.
 */
class MigKillProcessTest {

  @TempDir Path dir;

  private AgentProcesses agents;

  @AfterEach
  void stop() {
    if (agents != null) {
      agents.close();
    }
  }

  @Test
  void killedAfterCreatingTheInstanceTheRestartedAgentLeavesNoOrphan() throws Exception {
    Assumptions.assumeTrue(Files.isRegularFile(MigPrepareEndToEndTest.FAKE_NVML), "the fake NVML is not built");
    agents = new AgentProcesses(dir);
    KubernetesClient client = agents.client();
    ApiObjects.node(client, "node-a");
    String uid = ApiObjects.allocatedClaim(client, "default", "train",
        List.of(ApiObjects.result("mig", "nodeatlas.io", "node-a", "gpu-0-mig-1g-18gb-2"))).getMetadata().getUid();
    Path host = dir.resolve("host");
    MigPrepareEndToEndTest.hostTree(host);
    String conf = MigPrepareEndToEndTest.fakeConfig(dir.resolve("mig-state"));
    Path killing = Files.writeString(dir.resolve("killing.conf"), conf + "mig.kill_after=nvmlGpuInstanceCreateComputeInstance\n");
    Path normal = Files.writeString(dir.resolve("fake-nvml.conf"), conf);
    assertThat(Native.load("c", MigPrepareEndToEndTest.LibC.class).setenv("FAKE_NVML_CONFIG", normal.toString(), 1)).isZero();
    KubeletPaths paths = new KubeletPaths(agents.kubeletRoot(), "nodeatlas.io");

    Process first = start("first", killing, host);
    await("the first agent publishes the partitions", () -> published(client).contains("gpu-0-mig-1g-18gb-2"), "first");
    try (FakeKubelet kubelet = new FakeKubelet(paths.registrationSocket(), paths.draSocket())) {
      try {
        kubelet.prepare(FakeKubelet.claim("default", "train", uid));
      } catch (io.grpc.StatusRuntimeException e) {
        // The agent died under the call.
      }
    }
    assertThat(first.waitFor(60, TimeUnit.SECONDS)).as(log("first")).isTrue();
    assertThat(first.exitValue()).as("killed by SIGKILL").isEqualTo(128 + 9);
    assertThat(MigPrepareEndToEndTest.instances(MigPrepareEndToEndTest.P_1G)).as("the orphan").hasSize(1)
        .allSatisfy(i -> assertThat(i).startsWith("2:1#"));
    assertThat(new String(io.nodeatlas.agent.claims.Checkpoint.document(dir.resolve("state/checkpoint.json")), java.nio.charset.StandardCharsets.UTF_8)).doesNotContain(uid);

    start("second", normal, host);
    // Before it serves, the restarted agent destroys the instance no recorded claim holds.
    await("the restarted agent destroys the orphan", () -> noInstances(), "second");
    try (FakeKubelet kubelet = new FakeKubelet(paths.registrationSocket(), paths.draSocket())) {
      // The kubelet asks again until the restarted agent serves (its socket is bound after the clean-up).
      await("the restarted agent prepares the claim", () -> {
        try {
          return kubelet.prepare(FakeKubelet.claim("default", "train", uid)).getClaimsOrThrow(uid).getError().isEmpty();
        } catch (io.grpc.StatusRuntimeException e) {
          return false;
        }
      }, "second");
      assertThat(MigPrepareEndToEndTest.instances(MigPrepareEndToEndTest.P_1G)).hasSize(1);
      assertThat(kubelet.unprepare(FakeKubelet.claim("default", "train", uid)).getClaimsOrThrow(uid).getError()).isEmpty();
      assertThat(MigPrepareEndToEndTest.instances(MigPrepareEndToEndTest.P_1G)).isEmpty();
    }
  }

  private static boolean noInstances() {
    try {
      return MigPrepareEndToEndTest.instances(MigPrepareEndToEndTest.P_1G).isEmpty();
    } catch (Exception e) {
      return false;
    }
  }

  private static List<String> published(KubernetesClient client) {
    return client.resources(ResourceSlice.class).list().getItems().stream()
        .flatMap(s -> s.getSpec().getDevices() == null ? java.util.stream.Stream.empty() : s.getSpec().getDevices().stream())
        .map(d -> d.getName()).toList();
  }

  private Process start(String name, Path nvmlConfig, Path host) throws Exception {
    return agents.start(name, Map.of("FAKE_NVML_CONFIG", nvmlConfig.toString()), "--host-root", host.toString(),
        "--sources", "gpu", "--nvml-library", MigPrepareEndToEndTest.FAKE_NVML.toString(), "--gpu-mig-partitions");
  }

  private void await(String what, BooleanSupplier condition, String logName) throws InterruptedException {
    agents.await(what, condition, logName);
  }

  private String log(String name) {
    return agents.log(name);
  }
}
