package io.nodeatlas.agent.kubelet;

import static io.nodeatlas.agent.testing.FakeKubelet.claim;
import static org.assertj.core.api.Assertions.assertThat;

import io.fabric8.kubernetes.client.ConfigBuilder;
import io.fabric8.kubernetes.client.KubernetesClient;
import io.fabric8.kubernetes.client.KubernetesClientBuilder;
import io.fabric8.kubernetes.client.jdkhttp.JdkHttpClientFactory;
import io.nodeatlas.agent.claims.ApiClaimLookup;
import io.nodeatlas.agent.claims.Checkpoint;
import io.nodeatlas.agent.claims.ClaimPreparer;
import io.nodeatlas.agent.claims.ClaimSpecStore;
import io.nodeatlas.agent.claims.DeviceInventory;
import io.nodeatlas.agent.kubelet.api.dra.v1.Claim;
import io.nodeatlas.agent.kubelet.api.dra.v1.NodePrepareResourceResponse;
import io.nodeatlas.agent.kubelet.api.dra.v1.NodePrepareResourcesRequest;
import io.nodeatlas.agent.kubelet.api.dra.v1.NodePrepareResourcesResponse;
import io.nodeatlas.agent.kubelet.api.registration.InfoRequest;
import io.nodeatlas.agent.testing.ClaimApiServer;
import io.nodeatlas.agent.testing.Eventually;
import io.nodeatlas.agent.testing.FakeKubelet;
import io.nodeatlas.agent.testing.TestDevices;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.TimeUnit;
import java.util.stream.Stream;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * Issue 12 case 6 over the real sockets: an API server of the test's own that accepts every claim GET
 * and never answers it. The agent runs with its production limits (5 s a try, 2 tries, the call's
 * budget from the kubelet's deadline); the kubelet's view is what counts: the answer arrives before
 * its deadline, every claim has its own answer, and a claim prepared earlier keeps its devices.
 */
class ClaimDeadlinesTest {

  /** Claims stuck on the API server in one call: more than a call works on at once. */
  private static final int HUNG = 2 * ClaimPreparer.CALL_PARALLELISM + 1;

  @TempDir Path kubeletRoot;
  @TempDir Path cdiRoot;
  @TempDir Path stateDir;

  ClaimApiServer api;
  KubernetesClient client;
  KubeletPluginServer server;
  FakeKubelet kubelet;

  @BeforeEach
  void start() throws Exception {
    api = new ClaimApiServer();
    api.claim("ready", new ClaimApiServer.Answer("uid-ready", List.of("gpu-0", "gpu-1"), 0));
    for (int i = 0; i < HUNG; i++) {
      api.claim("hung-" + i, new ClaimApiServer.Hang());
    }
    client = new KubernetesClientBuilder().withConfig(new ConfigBuilder().withMasterUrl(api.url()).build())
        .withHttpClientFactory(new JdkHttpClientFactory()).build();
    DeviceInventory inventory = new DeviceInventory("node-a");
    inventory.replace(TestDevices.gpus(4));
    ClaimPreparer preparer = new ClaimPreparer("nodeatlas.io", inventory, new ApiClaimLookup(client),
        new ClaimSpecStore(cdiRoot), Checkpoint.open(stateDir.resolve("checkpoint.json")), ClaimPreparer.Listener.NONE);
    KubeletPaths paths = new KubeletPaths(kubeletRoot, "nodeatlas.io");
    server = KubeletPluginServer.start(paths, preparer);
    kubelet = new FakeKubelet(paths.registrationSocket(), paths.draSocket());
  }

  @AfterEach
  void stop() throws Exception {
    kubelet.close();
    server.shutdown(1000);
    client.close();
    api.close();
  }

  private NodePrepareResourcesRequest readyAndHung() {
    List<Claim> claims = new ArrayList<>();
    for (int i = 0; i < HUNG; i++) {
      claims.add(claim("default", "hung-" + i, "uid-hung-" + i));
    }
    claims.add(claim("default", "ready", "uid-ready"));
    return NodePrepareResourcesRequest.newBuilder().addAllClaims(claims).build();
  }

  @Test
  void aHungApiServerCostsEachClaimItsOwnErrorAndTheCallEndsWellWithinTheKubeletsDeadline() throws Exception {
    assertThat(kubelet.prepare(claim("default", "ready", "uid-ready")).getClaimsOrThrow("uid-ready").getDevicesCount())
        .isEqualTo(2);

    long start = System.nanoTime();
    // FakeKubelet sets the kubelet's own 45 s deadline on the call.
    NodePrepareResourcesResponse answer = kubelet.v1().nodePrepareResources(readyAndHung());
    long seconds = TimeUnit.NANOSECONDS.toSeconds(System.nanoTime() - start);

    // Generous bound: the budget is 20 s; 40 s still leaves the kubelet's 45 s unreached.
    assertThat(seconds).as("seconds until the kubelet got its answer").isLessThan(40);
    assertThat(answer.getClaimsCount()).isEqualTo(HUNG + 1);
    NodePrepareResourceResponse ready = answer.getClaimsOrThrow("uid-ready");
    assertThat(ready.getError()).isEmpty();
    assertThat(ready.getDevicesList()).extracting(d -> d.getDeviceName()).containsExactly("gpu-0", "gpu-1");
    for (int i = 0; i < HUNG; i++) {
      String name = "hung-" + i;
      assertThat(answer.getClaimsOrThrow("uid-" + name).getError()).as(name).isNotEmpty()
          .satisfiesAnyOf(e -> assertThat(e).contains("cannot read ResourceClaim default/" + name),
              e -> assertThat(e).contains("in time"));
    }
    assertNothingWrittenForHungClaims();
  }

  @Test
  void theCallersShorterDeadlineIsKeptWithAnAnswerForEveryClaim() throws Exception {
    assertThat(kubelet.prepare(claim("default", "ready", "uid-ready")).getClaimsOrThrow("uid-ready").getError()).isEmpty();

    // A caller with a 4 s deadline: without the budget the call would end in DEADLINE_EXCEEDED and the
    // ready claim's answer would be lost with the others.
    NodePrepareResourcesResponse answer = kubelet.v1().withDeadlineAfter(4, TimeUnit.SECONDS)
        .nodePrepareResources(readyAndHung());

    assertThat(answer.getClaimsOrThrow("uid-ready").getDevicesCount()).isEqualTo(2);
    for (int i = 0; i < HUNG; i++) {
      assertThat(answer.getClaimsOrThrow("uid-hung-" + i).getError()).as("hung-" + i).isNotEmpty();
    }
    assertNothingWrittenForHungClaims();
  }

  @Test
  void whileACallWaitsOnAHungApiServerTheKubeletsOtherCallsAreAnswered() throws Exception {
    int before = api.claimRequests();
    // A call stuck on the API server, with a 3 s deadline so that it ends soon.
    CompletableFuture<NodePrepareResourcesResponse> stuck = CompletableFuture.supplyAsync(() ->
        kubelet.v1().withDeadlineAfter(3, TimeUnit.SECONDS).nodePrepareResources(NodePrepareResourcesRequest.newBuilder()
            .addClaims(claim("default", "hung-0", "uid-hung-0")).build()));
    Eventually.await("the stuck call reached the API server", () -> api.claimRequests() > before);

    // The plugin's calls are served on threads of their own: one waiting on the API server holds up no other.
    NodePrepareResourceResponse ready = kubelet.prepare(claim("default", "ready", "uid-ready")).getClaimsOrThrow("uid-ready");
    assertThat(ready.getError()).isEmpty();
    assertThat(ready.getDevicesList()).extracting(d -> d.getDeviceName()).containsExactly("gpu-0", "gpu-1");
    assertThat(kubelet.unprepare(claim("default", "ready", "uid-ready")).getClaimsOrThrow("uid-ready").getError()).isEmpty();
    assertThat(kubelet.registration().getInfo(InfoRequest.getDefaultInstance()).getName()).isEqualTo("nodeatlas.io");

    assertThat(stuck.get(60, TimeUnit.SECONDS).getClaimsOrThrow("uid-hung-0").getError()).isNotEmpty();
  }

  private void assertNothingWrittenForHungClaims() throws Exception {
    try (Stream<Path> files = Files.list(cdiRoot)) {
      assertThat(files.map(p -> p.getFileName().toString())).containsExactly("nodeatlas.io-claim_uid-ready.json");
    }
    assertThat(Checkpoint.open(stateDir.resolve("checkpoint.json")).all()).extracting(c -> c.claim().uid())
        .containsExactly("uid-ready");
  }
}
