package io.nodeatlas.agent.kubelet;

import static io.nodeatlas.agent.testing.FakeKubelet.claim;
import static org.assertj.core.api.Assertions.assertThat;

import io.nodeatlas.agent.kubelet.api.dra.v1.NodePrepareResourcesResponse;
import io.nodeatlas.agent.testing.AgentMain;
import io.nodeatlas.agent.testing.ClaimApiServer;
import io.nodeatlas.agent.testing.FakeKubelet;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.List;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * Issue 12 case 3: an API server answering a 50 MiB claim (far above the 3 MiB the API server accepts
 * for one object) to an agent process with a 48 MiB heap that exits on OutOfMemoryError, as the
 * production JVM options make it. The claim is refused with a message of its own; the other claims of
 * the call and of later calls are prepared, and the process lives on.
 */
class OversizedClaimTest {

  @Test
  void aClaimLargerThanTheApiServerStoresIsRefusedAloneAndTheAgentLivesOn(@TempDir Path work) throws Exception {
    try (ClaimApiServer api = new ClaimApiServer()) {
      api.claim("huge", new ClaimApiServer.Huge("uid-huge", 50L << 20));
      api.claim("a", new ClaimApiServer.Answer("uid-a", List.of("gpu-0"), 0));
      // Large but within the API server's limit: still prepared.
      api.claim("b", new ClaimApiServer.Answer("uid-b", List.of("gpu-1", "gpu-2"), 1_400_000));
      api.claim("c", new ClaimApiServer.Answer("uid-c", List.of("gpu-3"), 0));
      Path kubeletRoot = work.resolve("kubelet");
      Process agent = new ProcessBuilder(Path.of(System.getProperty("java.home"), "bin", "java").toString(),
          "-Xmx48m", "-XX:+UseSerialGC", "-XX:+ExitOnOutOfMemoryError", "-XX:TieredStopAtLevel=1",
          "-cp", System.getProperty("java.class.path"), AgentMain.class.getName(),
          api.kubeconfig(work.resolve("kubeconfig")).toString(), kubeletRoot.toString(), work.resolve("cdi").toString(),
          work.resolve("state").toString(), "8")
          .redirectErrorStream(true).redirectOutput(work.resolve("agent.log").toFile()).start();
      try {
        KubeletPaths paths = new KubeletPaths(kubeletRoot, "nodeatlas.io");
        awaitSocket(agent, paths.registrationSocket(), work.resolve("agent.log"));
        // Devices are known once published: the agent's first slice write.
        assertThat(api.awaitSlice(120)).as("the agent published its devices; log:\n%s",
            Files.readString(work.resolve("agent.log"))).isTrue();
        try (FakeKubelet kubelet = new FakeKubelet(paths.registrationSocket(), paths.draSocket())) {
          NodePrepareResourcesResponse first = kubelet.prepare(claim("default", "huge", "uid-huge"),
              claim("default", "a", "uid-a"), claim("default", "b", "uid-b"));
          assertThat(first.getClaimsOrThrow("uid-huge").getError())
              .contains("ResourceClaim default/huge", "larger than 3145728 bytes");
          assertThat(first.getClaimsOrThrow("uid-a").getError()).isEmpty();
          assertThat(first.getClaimsOrThrow("uid-a").getDevicesCount()).isEqualTo(1);
          assertThat(first.getClaimsOrThrow("uid-b").getError()).isEmpty();
          assertThat(first.getClaimsOrThrow("uid-b").getDevicesCount()).isEqualTo(2);

          // Again, beside a new claim: the huge claim is refused every time, nothing accumulates.
          for (int i = 0; i < 3; i++) {
            assertThat(kubelet.prepare(claim("default", "huge", "uid-huge")).getClaimsOrThrow("uid-huge").getError())
                .contains("larger than");
          }
          NodePrepareResourcesResponse later = kubelet.prepare(claim("default", "c", "uid-c"));
          assertThat(later.getClaimsOrThrow("uid-c").getError()).isEmpty();
          assertThat(agent.isAlive()).as("agent process alive; log: " + work.resolve("agent.log")).isTrue();
        }
      } finally {
        agent.destroy();
        agent.waitFor(30, TimeUnit.SECONDS);
      }
    }
  }

  /** Waits for the agent's registration socket: the event, bounded generously for a loaded machine. */
  static void awaitSocket(Process agent, Path socket, Path log) throws Exception {
    long deadline = System.nanoTime() + TimeUnit.SECONDS.toNanos(120);
    while (!Files.exists(socket)) {
      if (!agent.isAlive() || System.nanoTime() > deadline) {
        throw new AssertionError("agent did not serve; log:\n" + Files.readString(log));
      }
      try {
        // Polls the socket, and notices at once when the process ends instead.
        agent.onExit().get(50, TimeUnit.MILLISECONDS);
      } catch (java.util.concurrent.TimeoutException stillRunning) {
        // not yet
      }
    }
  }
}
