package io.nodeatlas.agent.health;

import static org.assertj.core.api.Assertions.assertThat;
import static io.nodeatlas.agent.testing.Eventually.await;

import io.fabric8.kubernetes.api.model.resource.v1.DeviceTaint;
import io.fabric8.kubernetes.api.model.resource.v1.ResourceSlice;
import io.fabric8.kubernetes.client.KubernetesClient;
import io.fabric8.kubernetes.client.server.mock.EnableKubernetesMockClient;
import io.grpc.ManagedChannel;
import io.grpc.stub.StreamObserver;
import io.grpc.netty.shaded.io.netty.channel.EventLoopGroup;
import io.nodeatlas.agent.kubelet.KubeletPaths;
import io.nodeatlas.agent.kubelet.UnixSocketServers;
import io.nodeatlas.agent.kubelet.api.health.v1.DRAResourceHealthGrpc;
import io.nodeatlas.agent.kubelet.api.health.v1.NodeWatchResourcesRequest;
import io.nodeatlas.agent.kubelet.api.health.v1.NodeWatchResourcesResponse;
import io.nodeatlas.agent.kubelet.api.registration.InfoRequest;
import io.nodeatlas.agent.ops.AgentMetrics;
import io.nodeatlas.agent.run.Agent;
import io.nodeatlas.agent.run.AgentSettings;
import io.nodeatlas.agent.slices.ResourceSlicePublisher;
import io.nodeatlas.agent.testing.ApiObjects;
import io.nodeatlas.agent.testing.FakeKubelet;
import io.nodeatlas.agent.testing.TestDevices;
import io.nodeatlas.discovery.health.DeviceProblem;
import io.nodeatlas.discovery.health.HealthCheck;
import io.nodeatlas.discovery.model.Device;
import java.nio.file.Path;
import java.time.Clock;
import java.time.Duration;
import java.time.Instant;
import java.time.ZoneOffset;
import java.util.List;
import java.util.Map;
import java.util.Objects;
import java.util.Optional;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicReference;
import java.util.function.BooleanSupplier;
import java.util.stream.Collectors;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * Case 11 of issue 12, agent side: a device health problem reaches its ResourceSlice as a KEP-5055 taint
 * (API played by the CRUD mock) and the kubelet's {@code NodeWatchResources} stream over the real unix
 * socket, and both recover with the device. The check is the test's own (the real ones live in the
 * sources; their tests drive them through the fake NVML and sysfs fixture files).
 */
@EnableKubernetesMockClient(crud = true)
class DeviceHealthTest {

  KubernetesClient client;

  @TempDir Path dir;

  /** A health check whose answer the test sets, as a source's would change with the hardware. */
  static final class SettableCheck implements HealthCheck {
    final AtomicReference<List<DeviceProblem>> answer = new AtomicReference<>(List.of());
    volatile boolean closed;

    @Override
    public List<DeviceProblem> check(List<Device> devices) {
      return answer.get();
    }

    @Override
    public void close() {
      closed = true;
    }
  }

  /** One device's entry of a health message, as either API version states it. */
  record Entry(String pool, String device, String health, long lastUpdated, long timeout, String message) {}

  static List<Entry> entries(NodeWatchResourcesResponse r) {
    return r.getDevicesList().stream().map(d -> new Entry(d.getDevice().getPoolName(), d.getDevice().getDeviceName(),
        d.getHealth().name(), d.getLastUpdatedTime(), d.getHealthCheckTimeoutSeconds(), d.getMessage())).toList();
  }

  static List<Entry> entries(io.nodeatlas.agent.kubelet.api.health.v1alpha1.NodeWatchResourcesResponse r) {
    return r.getDevicesList().stream().map(d -> new Entry(d.getDevice().getPoolName(), d.getDevice().getDeviceName(),
        d.getHealth().name(), d.getLastUpdatedTime(), d.getHealthCheckTimeoutSeconds(), d.getMessage())).toList();
  }

  /** The kubelet's side of the health stream of one API version: the latest message kept, as entries. */
  static final class Watcher<M> implements StreamObserver<M> {
    final java.util.function.Function<M, List<Entry>> read;
    final AtomicReference<List<Entry>> latest = new AtomicReference<>();
    volatile boolean completed;

    Watcher(java.util.function.Function<M, List<Entry>> read) {
      this.read = read;
    }

    @Override
    public void onNext(M value) {
      latest.set(read.apply(value));
    }

    @Override
    public void onError(Throwable t) {
      completed = true;
    }

    @Override
    public void onCompleted() {
      completed = true;
    }

    Optional<Entry> device(String name) {
      List<Entry> r = latest.get();
      return r == null ? Optional.empty() : r.stream().filter(d -> d.device().equals(name)).findFirst();
    }

    String health(String name) {
      return device(name).map(Entry::health).orElse(null);
    }
  }

  private Map<String, List<DeviceTaint>> taintsInSlices() {
    return client.resources(ResourceSlice.class).list().getItems().stream()
        .flatMap(s -> s.getSpec().getDevices().stream())
        .collect(Collectors.toMap(d -> d.getName(), d -> d.getTaints() == null ? List.of() : d.getTaints()));
  }

  private boolean taint(String device, String value, String effect) {
    List<DeviceTaint> t = taintsInSlices().getOrDefault(device, List.of());
    return t.size() == 1 && t.get(0).getKey().equals("nodeatlas.io/unhealthy") && t.get(0).getValue().equals(value)
        && t.get(0).getEffect().equals(effect);
  }

  @Test
  void anUnhealthyDeviceIsTaintedAndStreamedThenRecovers() throws Exception {
    ApiObjects.node(client, "node-a");
    AgentSettings settings = new AgentSettings("nodeatlas.io", "node-a", dir.resolve("kubelet"), dir.resolve("cdi"),
        dir.resolve("state"), "127.0.0.1", 0, -1, Duration.ofMinutes(10), Duration.ofSeconds(2));
    SettableCheck check = new SettableCheck();
    Clock clock = Clock.fixed(Instant.parse("2026-11-23T12:00:00Z"), ZoneOffset.UTC);
    // One scheduled poll at start; the test drives the others (the scheduler's interval is an hour).
    Agent agent = new Agent(settings, () -> TestDevices.report(TestDevices.gpus(3)), client, n -> {}, Optional.empty(),
        new AgentMetrics("test"), clock).options(o -> o.withHealthChecks(List.of(check), Duration.ofHours(1)));
    agent.start();
    Thread loop = new Thread(agent::run, "agent-loop");
    loop.start();
    KubeletPaths paths = new KubeletPaths(settings.kubeletRoot(), "nodeatlas.io");
    EventLoopGroup group = UnixSocketServers.newEventLoopGroup(1);
    ManagedChannel channel = UnixSocketServers.channel(paths.draSocket(), group);
    // The 1.37 kubelet's client (v1) and an older kubelet's (v1alpha1), each over the real DRA socket.
    Watcher<NodeWatchResourcesResponse> watcher = new Watcher<>(DeviceHealthTest::entries);
    Watcher<io.nodeatlas.agent.kubelet.api.health.v1alpha1.NodeWatchResourcesResponse> alpha =
        new Watcher<>(DeviceHealthTest::entries);
    try (FakeKubelet kubelet = new FakeKubelet(paths.registrationSocket(), paths.draSocket())) {
      // Advertised after the DRAPlugin versions, v1 first, and served on the DRA socket.
      assertThat(kubelet.registration().getInfo(InfoRequest.getDefaultInstance()).getSupportedVersionsList())
          .containsExactly("v1.DRAPlugin", "v1beta1.DRAPlugin", "v1.DRAResourceHealth", "v1alpha1.DRAResourceHealth");
      DRAResourceHealthGrpc.newStub(channel).nodeWatchResources(NodeWatchResourcesRequest.getDefaultInstance(), watcher);
      io.nodeatlas.agent.kubelet.api.health.v1alpha1.DRAResourceHealthGrpc.newStub(channel).nodeWatchResources(
          io.nodeatlas.agent.kubelet.api.health.v1alpha1.NodeWatchResourcesRequest.getDefaultInstance(), alpha);
      await(() -> taintsInSlices().size() == 3);
      HealthMonitorDriver drive = new HealthMonitorDriver(agent);
      drive.poll();
      await(() -> "HEALTHY".equals(watcher.health("gpu-2")));
      assertThat(watcher.latest.get()).hasSize(3)
          .allSatisfy(d -> {
            assertThat(d.pool()).isEqualTo("node-a");
            assertThat(d.timeout()).isPositive();
          });
      await(() -> watcher.latest.get().equals(alpha.latest.get()));
      assertThat(taintsInSlices().values()).allSatisfy(t -> assertThat(t).isEmpty());

      check.answer.set(List.of(new DeviceProblem("gpu-1", "xid-48", false, "GPU reported critical XID 48")));
      drive.poll();
      await(() -> taint("gpu-1", "xid-48", "NoSchedule"));
      await(() -> "UNHEALTHY".equals(watcher.health("gpu-1")));
      assertThat(watcher.device("gpu-1").orElseThrow().message()).contains("xid-48").contains("XID 48");
      assertThat(watcher.device("gpu-1").orElseThrow().lastUpdated()).isEqualTo(clock.instant().getEpochSecond());
      assertThat(watcher.device("gpu-1").orElseThrow().timeout()).isPositive();
      // The v1alpha1 stream says the same.
      await(() -> watcher.latest.get().equals(alpha.latest.get()));
      assertThat(taintsInSlices().get("gpu-0")).isEmpty();

      // A message at the problem's own bound still fits the kubelet's 1024 characters once the reason leads it.
      check.answer.set(List.of(new DeviceProblem("gpu-1", "xid-48", false, "x".repeat(DeviceProblem.MAX_MESSAGE))));
      drive.poll();
      await(() -> watcher.device("gpu-1").map(Entry::message).orElse("").endsWith("..."));
      assertThat(watcher.device("gpu-1").orElseThrow().message()).hasSize(1024).startsWith("xid-48: xxx");

      // Lost: NoExecute, pods using it are evicted.
      check.answer.set(List.of(new DeviceProblem("gpu-1", "gpu-lost", true, "GPU is lost")));
      drive.poll();
      await(() -> taint("gpu-1", "gpu-lost", "NoExecute"));

      // A problem for a device the agent does not publish is ignored.
      check.answer.set(List.of(new DeviceProblem("gpu-9", "xid-48", false, "")));
      drive.poll();
      await(() -> taintsInSlices().values().stream().allMatch(List::isEmpty));
      await(() -> "HEALTHY".equals(watcher.health("gpu-1")));
      assertThat(watcher.latest.get()).extracting(Entry::device).containsExactly("gpu-0", "gpu-1", "gpu-2");
      await(() -> "HEALTHY".equals(alpha.health("gpu-1")));
    } finally {
      agent.requestStop();
      loop.join(10_000);
      agent.close();
      channel.shutdownNow().awaitTermination(2, TimeUnit.SECONDS);
      group.shutdownGracefully(0, 1, TimeUnit.SECONDS).await(2, TimeUnit.SECONDS);
    }
    assertThat(check.closed).isTrue();
    await(() -> watcher.completed && alpha.completed);
  }

  @Test
  void aTaintSplitsTheSlicesAtSixtyFourDevicesAndTheServersTimeAddedIsKept() throws Exception {
    ApiObjects.node(client, "node-b");
    ResourceSlicePublisher publisher = new ResourceSlicePublisher(client, "nodeatlas.io", "node-b");
    List<Device> devices = TestDevices.gpus(100);
    publisher.sync(devices);
    assertThat(client.resources(ResourceSlice.class).list().getItems()).hasSize(1);

    Map<String, List<DeviceTaint>> taints = Map.of("gpu-7", List.of(new io.fabric8.kubernetes.api.model.resource.v1
        .DeviceTaintBuilder().withKey(DeviceHealthMonitor.TAINT_KEY).withValue("link-down").withEffect("NoSchedule").build()));
    publisher.sync(devices, taints);
    List<ResourceSlice> slices = client.resources(ResourceSlice.class).list().getItems();
    assertThat(slices).hasSize(2).allSatisfy(s -> {
      assertThat(s.getSpec().getDevices()).hasSizeLessThanOrEqualTo(64);
      assertThat(s.getSpec().getPool().getResourceSliceCount()).isEqualTo(2L);
    });
    assertThat(slices.stream().mapToInt(s -> s.getSpec().getDevices().size()).sum()).isEqualTo(100);

    // The API server stamps timeAdded; the next sync keeps it and writes nothing.
    ResourceSlice withGpu7 = slices.stream().filter(s -> s.getSpec().getDevices().stream()
        .anyMatch(d -> d.getName().equals("gpu-7"))).findFirst().orElseThrow();
    withGpu7.getSpec().getDevices().stream().filter(d -> d.getName().equals("gpu-7")).findFirst().orElseThrow()
        .getTaints().get(0).setTimeAdded("2026-11-23T12:00:00Z");
    client.resource(withGpu7).update();
    assertThat(publisher.sync(devices, taints).unchanged()).isTrue();

    // Recovery: back to one slice of 100.
    publisher.sync(devices, Map.of());
    assertThat(client.resources(ResourceSlice.class).list().getItems()).singleElement()
        .satisfies(s -> assertThat(s.getSpec().getDevices()).hasSize(100).allSatisfy(d -> assertThat(d.getTaints()).isNullOrEmpty()));
  }

  /** Polls the agent's monitor directly: the injected scheduler's next run is an hour away. */
  record HealthMonitorDriver(Agent agent) {
    void poll() {
      agent.health().orElseThrow().poll();
    }
  }
}
