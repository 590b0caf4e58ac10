package io.nodeatlas.cli.run;

import static org.assertj.core.api.Assertions.assertThat;

import com.sun.jna.Native;
import io.fabric8.kubernetes.api.model.resource.v1.ResourceClaim;
import io.fabric8.kubernetes.api.model.resource.v1.ResourceClaimBuilder;
import io.fabric8.kubernetes.api.model.resource.v1.ResourceSlice;
import io.fabric8.kubernetes.client.KubernetesClient;
import io.nodeatlas.agent.kubelet.KubeletPaths;
import io.nodeatlas.agent.testing.ApiObjects;
import io.nodeatlas.agent.testing.FakeKubelet;
import io.nodeatlas.cli.testing.AgentProcesses;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.StandardCopyOption;
import java.util.List;
import java.util.Map;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Assumptions;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * Issue 34: the MPS control daemon of a prepared claim across agent restarts, with {@code nodeatlas run} as
 * its own process and the daemon played by discovery-gpu's stand-in (a real background process with the
 * PID file the real daemon keeps). Killed with SIGKILL alone, the agent leaves the daemon running and the
 * restarted agent leaves it alone; killed together with the daemon (systemd's control-group kill, a
 * container restart, a reboot), the restarted agent starts it again in the same directories with the
 * claim's defaults before it serves. Each time exactly one daemon serves the claim.
 */
class MpsRestartProcessTest {

  static final String MPS = "{\"apiVersion\":\"gpu.nodeatlas.io/v1alpha1\",\"kind\":\"GpuConfig\",\"sharing\":"
      + "{\"strategy\":\"MPS\",\"mpsConfig\":{\"defaultActiveThreadPercentage\":25}}}";

  @TempDir Path dir;

  private AgentProcesses agents;

  @AfterEach
  void stop() {
    if (agents != null) {
      agents.close();
    }
  }

  @Test
  void theDaemonOfALiveClaimIsBackAfterTheAgentIsKilledWithItAndNeverDoubled() throws Exception {
    Assumptions.assumeTrue(Files.isRegularFile(MigPrepareEndToEndTest.FAKE_NVML), "the fake NVML is not built");
    agents = new AgentProcesses(dir);
    KubernetesClient client = agents.client();
    ApiObjects.node(client, "node-a");
    String uid = mpsClaim(client, "shared", "gpu-0-mig-3g-71gb-0");
    MpsNode node = MpsNode.in(dir);
    Path host = node.host();
    Path conf = node.nvmlConfig();
    Path control = node.control();
    KubeletPaths paths = new KubeletPaths(agents.kubeletRoot(), "nodeatlas.io");

    Process first = start("first", conf, host, control);
    agents.await("the first agent publishes the partitions", () -> published(client).contains("gpu-0-mig-3g-71gb-0"), "first");
    try (FakeKubelet kubelet = new FakeKubelet(paths.registrationSocket(), paths.draSocket())) {
      assertThat(kubelet.prepare(FakeKubelet.claim("default", "shared", uid)).getClaimsOrThrow(uid).getError())
          .as(agents.log("first")).isEmpty();
    }
    // The MIG device's one daemon directory (per device, not per claim).
    Path pipe = MigPrepareEndToEndTest.onlyDaemonDir(agents.stateDir()).resolve("pipe");
    Path controlLog = pipe.resolveSibling("log").resolve("control.log");
    long daemon = daemonPid(pipe);
    assertThat(daemons(pipe)).containsExactly(daemon);

    // SIGKILL to the agent alone: its daemon lives on, and the restarted agent leaves it alone.
    kill(first);
    Process second = start("second", conf, host, control);
    awaitServing(paths, uid, "second");
    assertThat(daemons(pipe)).as("the running daemon is kept, none started beside it").containsExactly(daemon);

    // SIGKILL to the agent and its daemon (a container restart, a reboot): the restarted agent starts it again.
    kill(second);
    ProcessHandle gone = ProcessHandle.of(daemon).orElseThrow();
    gone.destroyForcibly();
    gone.onExit().get(60, TimeUnit.SECONDS);
    assertThat(daemons(pipe)).isEmpty();
    start("third", conf, host, control);
    awaitServing(paths, uid, "third");
    long again = daemonPid(pipe);
    assertThat(again).isNotEqualTo(daemon);
    assertThat(daemons(pipe)).as("exactly one daemon, in the claim's recorded directories").containsExactly(again);
    assertThat(Files.readAllLines(controlLog)).as("started twice, each time with the claim's defaults").containsExactly(
        "started for " + MigPrepareEndToEndTest.GPU, "set_default_active_thread_percentage 25",
        "started for " + MigPrepareEndToEndTest.GPU, "set_default_active_thread_percentage 25");
    assertThat(agents.log("third")).contains("started again");
    assertThat(MigPrepareEndToEndTest.instances(MigPrepareEndToEndTest.P_3G)).as("the claim's MIG instance, re-found")
        .containsExactly("0:4#1");

    try (FakeKubelet kubelet = new FakeKubelet(paths.registrationSocket(), paths.draSocket())) {
      assertThat(kubelet.unprepare(FakeKubelet.claim("default", "shared", uid)).getClaimsOrThrow(uid).getError()).isEmpty();
    }
    assertThat(pipe.getParent()).doesNotExist();
    agents.await("the daemon ends with Unprepare", () -> daemons(pipe).isEmpty(), "third");
    assertThat(MigPrepareEndToEndTest.instances(MigPrepareEndToEndTest.P_3G)).isEmpty();
  }

  private Process start(String name, Path nvmlConfig, Path host, Path control) throws Exception {
    return agents.start(name, Map.of("FAKE_NVML_CONFIG", nvmlConfig.toString()), "--host-root", host.toString(),
        "--sources", "gpu", "--nvml-library", MigPrepareEndToEndTest.FAKE_NVML.toString(), "--gpu-mig-partitions",
        "--gpu-mps-control", control.toString(), "--gpu-mps-shm-size", "0");
  }

  /** The kubelet's repeated Prepare answers once the restarted agent serves (after its start-time work). */
  private void awaitServing(KubeletPaths paths, String uid, String name) throws Exception {
    try (FakeKubelet kubelet = new FakeKubelet(paths.registrationSocket(), paths.draSocket())) {
      agents.await("the restarted agent serves the prepared claim", () -> {
        try {
          return kubelet.prepare(FakeKubelet.claim("default", "shared", uid)).getClaimsOrThrow(uid).getError().isEmpty();
        } catch (io.grpc.StatusRuntimeException e) {
          return false;
        }
      }, name);
    }
  }

  private static void kill(Process agent) throws InterruptedException {
    agent.destroyForcibly();
    assertThat(agent.waitFor(AgentProcesses.WAIT.toSeconds(), TimeUnit.SECONDS)).isTrue();
    assertThat(agent.exitValue()).as("killed by SIGKILL").isEqualTo(128 + 9);
  }

  /**
   * A node of one MIG-mode GPU under the fake NVML, its config also set in this JVM (which reads the fake's
   * instances, MigPrepareEndToEndTest.instances), and the stand-in MPS control binary in a directory of its own.
   */
  record MpsNode(Path host, Path nvmlConfig, Path control) {
    static MpsNode in(Path dir) throws Exception {
      Path host = dir.resolve("host");
      MigPrepareEndToEndTest.hostTree(host);
      Path conf = Files.writeString(dir.resolve("fake-nvml.conf"), MigPrepareEndToEndTest.fakeConfig(dir.resolve("mig-state")));
      assertThat(Native.load("c", MigPrepareEndToEndTest.LibC.class).setenv("FAKE_NVML_CONFIG", conf.toString(), 1)).isZero();
      Path control = Files.copy(MigPrepareEndToEndTest.TOOLS.resolve("fake-nvidia-cuda-mps-control"),
          Files.createDirectories(dir.resolve("tools")).resolve("fake-nvidia-cuda-mps-control"), StandardCopyOption.COPY_ATTRIBUTES);
      return new MpsNode(host, conf, control);
    }
  }

  static long daemonPid(Path pipe) throws Exception {
    return Long.parseLong(Files.readString(pipe.resolve("nvidia-cuda-mps-control.pid")).strip());
  }

  /**
   * The live stand-in daemons serving {@code pipe} ({@code fake-nvidia-cuda-mps-control --daemon <pipe>}):
   * not the daemon's own fork for its {@code sleep}, which carries the same arguments until it execs.
   */
  static List<Long> daemons(Path pipe) {
    List<Long> serving = ProcessHandle.allProcesses().filter(ProcessHandle::isAlive)
        .filter(h -> h.info().arguments().map(a -> List.of(a).contains("--daemon") && List.of(a).contains(pipe.toString()))
            .orElse(false))
        .map(ProcessHandle::pid).toList();
    return serving.stream().filter(pid -> ProcessHandle.of(pid).flatMap(ProcessHandle::parent)
        .map(parent -> !serving.contains(parent.pid())).orElse(true)).toList();
  }

  /** A claim allocated {@code device} with the MPS configuration for our driver. */
  static String mpsClaim(KubernetesClient client, String name, String device) throws Exception {
    Object params = new com.fasterxml.jackson.databind.ObjectMapper().readValue(MPS, Object.class);
    ResourceClaim claim = new ResourceClaimBuilder()
        .withNewMetadata().withNamespace("default").withName(name).endMetadata()
        .withNewSpec().endSpec()
        .withNewStatus().withNewAllocation().withNewDevices()
        .withResults(ApiObjects.result("gpu", "nodeatlas.io", "node-a", device))
        .addNewConfig().withSource("FromClaim").withRequests("gpu")
        .withNewOpaque().withDriver("nodeatlas.io").withParameters(params).endOpaque().endConfig()
        .endDevices().endAllocation().endStatus().build();
    return client.resources(ResourceClaim.class).inNamespace("default").resource(claim).create().getMetadata().getUid();
  }

  static List<String> published(KubernetesClient client) {
    return client.resources(ResourceSlice.class).list().getItems().stream()
        .flatMap(s -> s.getSpec().getDevices() == null ? java.util.stream.Stream.empty() : s.getSpec().getDevices().stream())
        .map(d -> d.getName()).toList();
  }
}
