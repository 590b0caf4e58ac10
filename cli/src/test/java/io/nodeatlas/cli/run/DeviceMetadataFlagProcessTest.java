package io.nodeatlas.cli.run;

import static org.assertj.core.api.Assertions.assertThat;

import io.fabric8.kubernetes.api.model.resource.v1.ResourceSlice;
import io.nodeatlas.agent.kubelet.KubeletPaths;
import io.nodeatlas.agent.kubelet.api.dra.v1.NodePrepareResourceResponse;
import io.nodeatlas.agent.testing.ApiObjects;
import io.nodeatlas.agent.testing.FakeKubelet;
import io.nodeatlas.agent.testing.TestDevices;
import io.nodeatlas.cli.testing.AgentProcesses;
import io.nodeatlas.discovery.report.NodeReportCodec;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * {@code --device-metadata} and its env twin reach the agent through {@code nodeatlas run} (KEP-5304):
 * by default a prepared claim's answer names its metadata CDI device, which the claim's spec defines, and the files
 * exist; {@code --device-metadata=false} (and {@code NODEATLAS_DEVICE_METADATA=false}) prepare the same
 * kind of claim without either.
 */
class DeviceMetadataFlagProcessTest {

  @TempDir Path dir;

  @Test
  void metadataIsWrittenByDefaultAndNotWhenTheFlagOrItsEnvTwinTurnsItOff() throws Exception {
    try (AgentProcesses agents = new AgentProcesses(dir)) {
      ApiObjects.node(agents.client(), "node-a");
      Path report = Files.writeString(dir.resolve("report.json"),
          new NodeReportCodec().toJson(TestDevices.report(TestDevices.gpus(3))));
      KubeletPaths paths = new KubeletPaths(agents.kubeletRoot(), "nodeatlas.io");

      Map<String, String> noEnv = new HashMap<>();
      noEnv.put("NODEATLAS_DEVICE_METADATA", null);
      NodePrepareResourceResponse on = prepareOnce(agents, paths, "on", "gpu-0", noEnv, "--replay-report", report.toString());
      assertThat(on.getError()).as(agents.log("on")).isEmpty();
      String onUid = uid(agents, "on-gpu-0");
      assertThat(on.getDevices(0).getCdiDeviceIdsList()).as("the default answer names the metadata device")
          .contains("nodeatlas.io/claim=" + onUid + "-metadata_gpus");
      assertThat(Files.readString(dir.resolve("cdi/nodeatlas.io-claim_" + onUid + ".json"))).as("the claim's one spec mounts it")
          .contains(onUid + "-metadata_gpus");
      assertThat(dir.resolve("cdi/nodeatlas.io_metadata_" + onUid + ".json")).doesNotExist();
      assertThat(agents.stateDir().resolve("device-metadata").resolve(onUid)).isDirectory();

      NodePrepareResourceResponse off = prepareOnce(agents, paths, "off", "gpu-1", noEnv,
          "--replay-report", report.toString(), "--device-metadata=false");
      assertThat(off.getError()).as(agents.log("off")).isEmpty();
      assertThat(off.getDevices(0).getCdiDeviceIdsList()).as(agents.log("off")).isNotEmpty()
          .noneMatch(id -> id.contains("metadata"));
      String offUid = uid(agents, "off-gpu-1");
      assertThat(dir.resolve("cdi/nodeatlas.io_metadata_" + offUid + ".json")).doesNotExist();
      assertThat(agents.stateDir().resolve("device-metadata").resolve(offUid)).doesNotExist();

      NodePrepareResourceResponse env = prepareOnce(agents, paths, "env", "gpu-2",
          Map.of("NODEATLAS_DEVICE_METADATA", "false"), "--replay-report", report.toString());
      assertThat(env.getError()).as(agents.log("env")).isEmpty();
      assertThat(env.getDevices(0).getCdiDeviceIdsList()).as(agents.log("env")).noneMatch(id -> id.contains("metadata"));
      assertThat(dir.resolve("cdi/nodeatlas.io_metadata_" + uid(agents, "env-gpu-2") + ".json")).doesNotExist();
    }
  }

  /** Starts agent {@code name}, prepares a new claim for {@code device} over its socket, stops it with SIGTERM. */
  private NodePrepareResourceResponse prepareOnce(AgentProcesses agents, KubeletPaths paths, String name, String device,
      Map<String, String> env, String... args) throws Exception {
    String claim = name + "-" + device;
    String uid = ApiObjects.allocatedClaim(agents.client(), "default", claim,
        List.of(ApiObjects.result("gpus", "nodeatlas.io", "node-a", device))).getMetadata().getUid();
    Process p = agents.start(name, env, args);
    agents.await("agent " + name + " serves and publishes", () -> Files.exists(paths.draSocket())
        && agents.log(name).contains("serving the kubelet")
        && !agents.client().resources(ResourceSlice.class).list().getItems().isEmpty(), name);
    NodePrepareResourceResponse r;
    try (FakeKubelet kubelet = new FakeKubelet(paths.registrationSocket(), paths.draSocket())) {
      r = kubelet.prepare(FakeKubelet.claim("default", claim, uid)).getClaimsOrThrow(uid);
    }
    p.destroy();
    assertThat(p.waitFor(AgentProcesses.WAIT.toSeconds(), TimeUnit.SECONDS)).as(agents.log(name)).isTrue();
    return r;
  }

  private static String uid(AgentProcesses agents, String claim) {
    return agents.client().resources(io.fabric8.kubernetes.api.model.resource.v1.ResourceClaim.class)
        .inNamespace("default").withName(claim).get().getMetadata().getUid();
  }
}
