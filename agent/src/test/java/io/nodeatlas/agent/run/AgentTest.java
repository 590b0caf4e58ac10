package io.nodeatlas.agent.run;

import static org.assertj.core.api.Assertions.assertThat;
import static io.nodeatlas.agent.testing.Eventually.await;

import io.fabric8.kubernetes.api.model.resource.v1.ResourceSlice;
import io.fabric8.kubernetes.client.KubernetesClient;
import io.fabric8.kubernetes.client.server.mock.EnableKubernetesMockClient;
import io.nodeatlas.agent.kubelet.KubeletPaths;
import io.nodeatlas.agent.kubelet.api.registration.RegistrationStatus;
import io.nodeatlas.agent.ops.AgentMetrics;
import io.nodeatlas.agent.ops.Notifier;
import io.nodeatlas.agent.testing.ApiObjects;
import io.nodeatlas.agent.testing.FakeKubelet;
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
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.function.BooleanSupplier;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/** The whole agent in cluster mode, with the API server played by the CRUD mock and the kubelet by {@link FakeKubelet}. */
@EnableKubernetesMockClient(crud = true)
class AgentTest {

  KubernetesClient client;

  @TempDir Path dir;

  @Test
  void publishesBecomesReadyAfterRegistrationRecreatesWipedSlicesAndCleansUp() throws Exception {
    ApiObjects.node(client, "node-a");
    AgentSettings settings = new AgentSettings("nodeatlas.io", "node-a", dir.resolve("kubelet"), dir.resolve("cdi"),
        dir.resolve("state"), "127.0.0.1", -1, 0, Duration.ofMinutes(10), Duration.ofSeconds(2));
    List<String> notes = new CopyOnWriteArrayList<>();
    Notifier notifier = notes::add;
    Agent agent = new Agent(settings, () -> TestDevices.report(TestDevices.gpus(3)), client, notifier,
        Optional.empty(), new AgentMetrics("test"), Clock.systemUTC());
    agent.start();
    Thread loop = new Thread(agent::run, "agent-loop");
    loop.start();
    KubeletPaths paths = new KubeletPaths(settings.kubeletRoot(), "nodeatlas.io");
    try (FakeKubelet kubelet = new FakeKubelet(paths.registrationSocket(), paths.draSocket())) {
      await(() -> client.resources(ResourceSlice.class).list().getItems().size() == 1);
      await(() -> notes.stream().anyMatch(n -> n.startsWith("READY=1")));
      assertThat(readyz(agent)).isEqualTo(503);
      // A Kubernetes gRPC probe dials TCP; it sees the same status as the DRA socket's health service.
      assertThat(grpcHealth(agent)).isEqualTo(io.grpc.health.v1.HealthCheckResponse.ServingStatus.NOT_SERVING);

      kubelet.registration().notifyRegistrationStatus(RegistrationStatus.newBuilder().setPluginRegistered(true).build());
      agent.requestPublish();
      await(() -> readyz(agent) == 200);
      await(() -> grpcHealth(agent) == io.grpc.health.v1.HealthCheckResponse.ServingStatus.SERVING);

      // The kubelet wipes the node's slices when it restarts; the watch brings them back.
      client.resources(ResourceSlice.class).delete();
      await(() -> client.resources(ResourceSlice.class).list().getItems().size() == 1);
    } finally {
      agent.requestStop();
      loop.join(10_000);
      agent.close();
    }
    assertThat(notes).last().asString().startsWith("STOPPING=1");
    assertThat(paths.registrationSocket()).doesNotExist();
    assertThat(paths.draSocket()).doesNotExist();
  }

  static int readyz(Agent agent) {
    try {
      return HttpClient.newHttpClient().send(HttpRequest.newBuilder(
          URI.create("http://127.0.0.1:" + agent.httpPort().orElseThrow() + "/readyz")).build(),
          HttpResponse.BodyHandlers.discarding()).statusCode();
    } catch (Exception e) {
      throw new AssertionError(e);
    }
  }

  private static io.grpc.health.v1.HealthCheckResponse.ServingStatus grpcHealth(Agent agent) {
    io.grpc.ManagedChannel channel = io.grpc.netty.shaded.io.grpc.netty.NettyChannelBuilder
        .forAddress("127.0.0.1", agent.healthcheckPort().orElseThrow()).usePlaintext().build();
    try {
      return io.grpc.health.v1.HealthGrpc.newBlockingStub(channel).withDeadlineAfter(5, java.util.concurrent.TimeUnit.SECONDS)
          .check(io.grpc.health.v1.HealthCheckRequest.getDefaultInstance()).getStatus();
    } finally {
      channel.shutdownNow();
    }
  }
}
