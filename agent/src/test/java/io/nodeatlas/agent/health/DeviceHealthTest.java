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
import io.nodeatlas.agent.kubelet.api.health.v1alpha1.DRAResourceHealthGrpc;
import io.nodeatlas.agent.kubelet.api.health.v1alpha1.DeviceHealth;
import io.nodeatlas.agent.kubelet.api.health.v1alpha1.HealthStatus;
import io.nodeatlas.agent.kubelet.api.health.v1alpha1.NodeWatchResourcesRequest;
import io.nodeatlas.agent.kubelet.api.health.v1alpha1.NodeWatchResourcesResponse;
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

  /** The kubelet's side of the health stream: every message received, the latest kept. */
  static final class Watcher implements StreamObserver<NodeWatchResourcesResponse> {
    final AtomicReference<NodeWatchResourcesResponse> latest = new AtomicReference<>();
    volatile boolean completed;

    @Override
    public void onNext(NodeWatchResourcesResponse value) {
      latest.set(value);
    }

    @Override
    public void onError(Throwable t) {
      completed = true;
    }

    @Override
    public void onCompleted() {
      completed = true;
    }

    Optional<DeviceHealth> device(String name) {
      NodeWatchResourcesResponse r = latest.get();
      return r == null ? Optional.empty()
          : r.getDevicesList().stream().filter(d -> d.getDevice().getDeviceName().equals(name)).findFirst();
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
        new AgentMetrics("test"), clock).healthChecks(List.of(check), Duration.ofHours(1));
    agent.start();
    Thread loop = new Thread(agent::run, "agent-loop");
    loop.start();
    KubeletPaths paths = new KubeletPaths(settings.kubeletRoot(), "nodeatlas.io");
    EventLoopGroup group = UnixSocketServers.newEventLoopGroup(1);
    ManagedChannel channel = UnixSocketServers.channel(paths.draSocket(), group);
    Watcher watcher = new Watcher();
    try (FakeKubelet kubelet = new FakeKubelet(paths.registrationSocket(), paths.draSocket())) {
      // Advertised after the DRAPlugin versions, and served on the DRA socket.
      assertThat(kubelet.registration().getInfo(InfoRequest.getDefaultInstance()).getSupportedVersionsList())
          .containsExactly("v1.DRAPlugin", "v1beta1.DRAPlugin", "v1alpha1.DRAResourceHealth");
      DRAResourceHealthGrpc.newStub(channel).nodeWatchResources(NodeWatchResourcesRequest.getDefaultInstance(), watcher);
      await(() -> taintsInSlices().size() == 3);
      HealthMonitorDriver drive = new HealthMonitorDriver(agent);
      drive.poll();
      await(() -> watcher.device("gpu-2").map(DeviceHealth::getHealth).orElse(null) == HealthStatus.HEALTHY);
      assertThat(watcher.latest.get().getDevicesList()).hasSize(3)
          .allSatisfy(d -> {
            assertThat(d.getDevice().getPoolName()).isEqualTo("node-a");
            assertThat(d.getHealthCheckTimeoutSeconds()).isPositive();
          });
      assertThat(taintsInSlices().values()).allSatisfy(t -> assertThat(t).isEmpty());

      check.answer.set(List.of(new DeviceProblem("gpu-1", "xid-48", false, "GPU reported critical XID 48")));
      drive.poll();
      await(() -> taint("gpu-1", "xid-48", "NoSchedule"));
      await(() -> watcher.device("gpu-1").map(DeviceHealth::getHealth).orElse(null) == HealthStatus.UNHEALTHY);
      assertThat(watcher.device("gpu-1").orElseThrow().getMessage()).contains("xid-48").contains("XID 48");
      assertThat(watcher.device("gpu-1").orElseThrow().getLastUpdatedTime()).isEqualTo(clock.instant().getEpochSecond());
      assertThat(taintsInSlices().get("gpu-0")).isEmpty();

      // Lost: NoExecute, pods using it are evicted.
      check.answer.set(List.of(new DeviceProblem("gpu-1", "gpu-lost", true, "GPU is lost")));
      drive.poll();
      await(() -> taint("gpu-1", "gpu-lost", "NoExecute"));

      // A problem for a device the agent does not publish is ignored.
      check.answer.set(List.of(new DeviceProblem("gpu-9", "xid-48", false, "")));
      drive.poll();
      await(() -> taintsInSlices().values().stream().allMatch(List::isEmpty));
      await(() -> watcher.device("gpu-1").map(DeviceHealth::getHealth).orElse(null) == HealthStatus.HEALTHY);
      assertThat(watcher.latest.get().getDevicesList()).extracting(d -> d.getDevice().getDeviceName())
          .containsExactly("gpu-0", "gpu-1", "gpu-2");
    } finally {
      agent.requestStop();
      loop.join(10_000);
      agent.close();
      channel.shutdownNow().awaitTermination(2, TimeUnit.SECONDS);
      group.shutdownGracefully(0, 1, TimeUnit.SECONDS).await(2, TimeUnit.SECONDS);
    }
    assertThat(check.closed).isTrue();
    await(() -> watcher.completed);
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
