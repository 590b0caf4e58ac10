package io.nodeatlas.cli.run;

import static org.assertj.core.api.Assertions.assertThat;

import io.fabric8.kubernetes.client.KubernetesClient;
import io.nodeatlas.agent.kubelet.KubeletPaths;
import io.nodeatlas.agent.testing.ApiObjects;
import io.nodeatlas.agent.testing.FakeKubelet;
import io.nodeatlas.cli.testing.AgentProcesses;
import java.net.URI;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.List;
import java.util.Map;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Assumptions;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * Issue 34: MPS control daemons watched while the agent runs, across a DaemonSet rolling update, with
 * {@code nodeatlas run} as real processes, the kubelet's gRPC and discovery-gpu's stand-in daemon. The old pod's
 * agent starts the daemon; the new pod's agent starts beside it, leaves the running daemon alone and takes the state
 * directory when the old one hands it over; when the old pod is deleted (its agent and its daemon killed together, as
 * the kubelet kills the pod's cgroup) the new agent notices within its check interval and starts the daemon again in
 * the same directories, exactly once, logs it and counts it in {@code nodeatlas_device_upkeep_actions_total}.
 */
class MpsWatchProcessTest {

  @TempDir Path dir;

  private AgentProcesses agents;

  @AfterEach
  void stop() {
    if (agents != null) {
      agents.close();
    }
  }

  @Test
  void theNewPodsAgentTakesOverTheDaemonWhenTheOldPodGoes() throws Exception {
    Assumptions.assumeTrue(Files.isRegularFile(MigPrepareEndToEndTest.FAKE_NVML), "the fake NVML is not built");
    agents = new AgentProcesses(dir);
    KubernetesClient client = agents.client();
    ApiObjects.node(client, "node-a");
    String uid = MpsRestartProcessTest.mpsClaim(client, "shared", "gpu-0-mig-3g-71gb-0");
    MpsRestartProcessTest.MpsNode node = MpsRestartProcessTest.MpsNode.in(dir);
    Path host = node.host();
    Path conf = node.nvmlConfig();
    Path control = node.control();
    KubeletPaths oldPaths = new KubeletPaths(agents.kubeletRoot(), "nodeatlas.io", "0ld-pod");
    KubeletPaths newPaths = new KubeletPaths(agents.kubeletRoot(), "nodeatlas.io", "n3w-pod");

    Process old = start("old", "0ld-pod", conf, host, control, 0);
    agents.await("the old agent publishes the partitions",
        () -> MpsRestartProcessTest.published(client).contains("gpu-0-mig-3g-71gb-0"), "old");
    try (FakeKubelet kubelet = new FakeKubelet(oldPaths.registrationSocket(), oldPaths.draSocket())) {
      assertThat(kubelet.prepare(FakeKubelet.claim("default", "shared", uid)).getClaimsOrThrow(uid).getError())
          .as(agents.log("old")).isEmpty();
    }
    Path daemonDir = MigPrepareEndToEndTest.onlyDaemonDir(agents.stateDir());
    Path pipe = daemonDir.resolve("pipe");
    long first = MpsRestartProcessTest.daemonPid(pipe);
    assertThat(MpsRestartProcessTest.daemons(pipe)).containsExactly(first);
    assertThat(Files.readString(daemonDir.resolve("shm/fake-mps-daemon")))
        .as("the daemon's /dev/shm is its directory, which the claim's containers get").startsWith(first + " ");

    int port;
    try (java.net.ServerSocket s = new java.net.ServerSocket(0)) {
      port = s.getLocalPort();
    }
    start("new", "n3w-pod", conf, host, control, port);
    agents.await("the new agent holds the state directory",
        () -> agents.log("new").contains("holding the state directory"), "new");
    try (FakeKubelet kubelet = new FakeKubelet(newPaths.registrationSocket(), newPaths.draSocket())) {
      agents.await("the new agent serves the prepared claim", () -> {
        try {
          return kubelet.prepare(FakeKubelet.claim("default", "shared", uid)).getClaimsOrThrow(uid).getError().isEmpty();
        } catch (io.grpc.StatusRuntimeException e) {
          return false;
        }
      }, "new");
    }
    assertThat(MpsRestartProcessTest.daemons(pipe)).as("the old pod's daemon still serves; none beside it")
        .containsExactly(first);

    // The old pod is deleted: the kubelet kills its containers' processes, the daemon the old agent started among them.
    old.destroyForcibly();
    assertThat(old.waitFor(AgentProcesses.WAIT.toSeconds(), TimeUnit.SECONDS)).isTrue();
    ProcessHandle gone = ProcessHandle.of(first).orElseThrow();
    gone.destroyForcibly();
    gone.onExit().get(60, TimeUnit.SECONDS);

    agents.await("the new agent starts the daemon again", () -> MpsRestartProcessTest.daemons(pipe).size() == 1, "new");
    long again = MpsRestartProcessTest.daemons(pipe).get(0);
    assertThat(again).isNotEqualTo(first);
    assertThat(MpsRestartProcessTest.daemonPid(pipe)).isEqualTo(again);
    agents.await("the restart is logged", () -> agents.log("new").contains("had died while held by"), "new");
    HttpClient http = HttpClient.newHttpClient();
    agents.await("the restart is counted", () -> metrics(http, port)
        .contains("nodeatlas_device_upkeep_actions_total{action=\"gpu_mps_daemon_restarted\"} 1.0"), "new");
    assertThat(Files.readAllLines(daemonDir.resolve("log/control.log"))).as("started twice, with the claim's defaults")
        .containsExactly("started for " + MigPrepareEndToEndTest.GPU, "set_default_active_thread_percentage 25",
            "started for " + MigPrepareEndToEndTest.GPU, "set_default_active_thread_percentage 25");
    assertThat(Files.readString(daemonDir.resolve("shm/fake-mps-daemon"))).startsWith(again + " ");

    try (FakeKubelet kubelet = new FakeKubelet(newPaths.registrationSocket(), newPaths.draSocket())) {
      assertThat(kubelet.unprepare(FakeKubelet.claim("default", "shared", uid)).getClaimsOrThrow(uid).getError()).isEmpty();
    }
    assertThat(daemonDir).doesNotExist();
    agents.await("the daemon ends with Unprepare", () -> MpsRestartProcessTest.daemons(pipe).isEmpty(), "new");
    assertThat(MpsRestartProcessTest.daemons(pipe)).as("and the watch starts none").isEmpty();
  }

  private static String metrics(HttpClient http, int port) {
    try {
      return http.send(HttpRequest.newBuilder(URI.create("http://127.0.0.1:" + port + "/metrics")).build(),
          HttpResponse.BodyHandlers.ofString()).body();
    } catch (java.io.IOException e) {
      return e.toString();
    } catch (InterruptedException e) {
      Thread.currentThread().interrupt();
      return e.toString();
    }
  }

  private Process start(String name, String podUid, Path nvmlConfig, Path host, Path control, int httpPort)
      throws Exception {
    return agents.start(name, Map.of("FAKE_NVML_CONFIG", nvmlConfig.toString(), "NODEATLAS_ROLLING_UPDATE_UID", podUid),
        "--host-root", host.toString(), "--sources", "gpu", "--nvml-library", MigPrepareEndToEndTest.FAKE_NVML.toString(),
        "--gpu-mig-partitions", "--gpu-mps-control", control.toString(), "--gpu-mps-shm-size", "0",
        "--http-port", Integer.toString(httpPort));
  }
}
