package io.nodeatlas.cli.run;

import static org.assertj.core.api.Assertions.assertThat;
import static io.nodeatlas.agent.testing.Eventually.await;

import com.sun.jna.Library;
import com.sun.jna.Native;
import io.fabric8.kubernetes.api.model.resource.v1.DeviceTaint;
import io.fabric8.kubernetes.api.model.resource.v1.ResourceSlice;
import io.fabric8.kubernetes.client.KubernetesClient;
import io.fabric8.kubernetes.client.server.mock.EnableKubernetesMockClient;
import io.grpc.ManagedChannel;
import io.grpc.netty.shaded.io.netty.channel.EventLoopGroup;
import io.grpc.stub.StreamObserver;
import io.nodeatlas.agent.kubelet.KubeletPaths;
import io.nodeatlas.agent.kubelet.UnixSocketServers;
import io.nodeatlas.agent.kubelet.api.health.v1alpha1.DRAResourceHealthGrpc;
import io.nodeatlas.agent.kubelet.api.health.v1alpha1.DeviceHealth;
import io.nodeatlas.agent.kubelet.api.health.v1alpha1.HealthStatus;
import io.nodeatlas.agent.kubelet.api.health.v1alpha1.NodeWatchResourcesRequest;
import io.nodeatlas.agent.kubelet.api.health.v1alpha1.NodeWatchResourcesResponse;
import io.nodeatlas.agent.ops.AgentMetrics;
import io.nodeatlas.agent.run.Agent;
import io.nodeatlas.agent.run.AgentSettings;
import io.nodeatlas.agent.testing.ApiObjects;
import io.nodeatlas.discovery.health.HealthCheck;
import io.nodeatlas.discovery.host.HostContext;
import io.nodeatlas.discovery.host.HostFs;
import io.nodeatlas.discovery.host.SourceOptions;
import io.nodeatlas.discovery.spi.DiscoverySource;
import io.nodeatlas.discovery.engine.DiscoverySources;
import io.nodeatlas.discovery.engine.NodeDiscovery;
import io.nodeatlas.discovery.testing.FixtureTree;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.StandardOpenOption;
import java.time.Clock;
import java.time.Duration;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicReference;
import java.util.function.BooleanSupplier;
import java.util.stream.Collectors;
import org.junit.jupiter.api.Assumptions;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * Case 11 of issue 12 end to end: the real {@code gpu} source over the gcc-built fake NVML (its event
 * queue) and the real {@code nic-rdma} source over a sysfs tree, their health checks in the agent, the
 * ResourceSlice taints in the API server (CRUD mock) and the kubelet's health stream over the real unix
 * socket: an XID, a lost link, and recovery.
 */
@EnableKubernetesMockClient(crud = true)
class DeviceHealthEndToEndTest {

  static final Path FAKE_NVML =
      Path.of("..", "discovery-gpu", "target", "native", "libnvidia-ml.so.1").toAbsolutePath().normalize();
  static final String NIC = "sys/devices/pci0000:00/0000:00:03.0";
  static final String ETH = NIC + "/net/eth9/";

  interface LibC extends Library {
    int setenv(String name, String value, int overwrite);
  }

  KubernetesClient client;

  @TempDir Path tmp;

  /** The kubelet's end of the health stream; keeps the latest message. */
  static final class Watcher implements StreamObserver<NodeWatchResourcesResponse> {
    final AtomicReference<NodeWatchResourcesResponse> latest = new AtomicReference<>();

    @Override
    public void onNext(NodeWatchResourcesResponse value) {
      latest.set(value);
    }

    @Override
    public void onError(Throwable t) {}

    @Override
    public void onCompleted() {}

    HealthStatus health(String device) {
      NodeWatchResourcesResponse r = latest.get();
      return r == null ? null : r.getDevicesList().stream().filter(d -> d.getDevice().getDeviceName().equals(device))
          .map(DeviceHealth::getHealth).findFirst().orElse(null);
    }
  }

  private void hostTree(Path host) {
    FixtureTree.at(host)
        .value(NIC + "/vendor", "0x8086").value(NIC + "/device", "0x1521").value(NIC + "/class", "0x020000")
        .symlink("sys/bus/pci/devices/0000:00:03.0", "../../../devices/pci0000:00/0000:00:03.0")
        .value(ETH + "type", 1).value(ETH + "address", "3c:ec:ef:00:00:09").value(ETH + "mtu", 1500)
        .value(ETH + "operstate", "up").value(ETH + "carrier", 1).value(ETH + "flags", "0x1003")
        .symlink(ETH + "device", "../../../0000:00:03.0")
        .symlink("sys/class/net/eth9", "../../devices/pci0000:00/0000:00:03.0/net/eth9")
        .dir("proc").dir("dev");
  }

  private Map<String, List<DeviceTaint>> taints() {
    return client.resources(ResourceSlice.class).list().getItems().stream()
        .flatMap(s -> s.getSpec().getDevices().stream())
        .collect(Collectors.toMap(d -> d.getName(), d -> d.getTaints() == null ? List.of() : d.getTaints()));
  }

  private boolean tainted(String device, String value, String effect) {
    List<DeviceTaint> t = taints().getOrDefault(device, List.of());
    return t.size() == 1 && t.get(0).getKey().equals("nodeatlas.io/unhealthy") && value.equals(t.get(0).getValue())
        && effect.equals(t.get(0).getEffect());
  }

  @Test
  void anXidAndALostLinkReachTheSliceAndTheStreamAndRecover() throws Exception {
    Assumptions.assumeTrue(Files.isRegularFile(FAKE_NVML), () -> FAKE_NVML + " is not built (discovery-gpu test-compile)");
    Path host = tmp.resolve("host");
    hostTree(host);
    Path events = Files.createFile(tmp.resolve("nvml-events"));
    Path config = Files.writeString(tmp.resolve("fake-nvml.conf"), String.join("\n",
        "driver.version=550.54.15", "cuda.driver.version=12040", "device.count=1",
        "device.0.name=NVIDIA H100 80GB HBM3", "device.0.uuid=GPU-6c6f1d3e-1b6e-4b5f-9c1e-5b8a4f0e2a11",
        "device.0.minor=0", "device.0.pci.busid=00000000:18:00.0", "device.0.memory.total=85520809984", ""));
    LibC libc = Native.load("c", LibC.class);
    assertThat(libc.setenv("FAKE_NVML_CONFIG", config.toString(), 1)).isZero();
    assertThat(libc.setenv("FAKE_NVML_EVENTS", events.toString(), 1)).isZero();

    List<DiscoverySource> sources = DiscoverySources.load(getClass().getClassLoader()).select("gpu,nic-rdma");
    HostContext ctx = new HostContext(HostFs.of(host),
        new SourceOptions(Map.of("gpu.nvmlLibrary", FAKE_NVML.toString())), Clock.systemUTC());
    List<HealthCheck> checks = sources.stream().map(s -> s.healthCheck(ctx)).flatMap(Optional::stream).toList();
    assertThat(checks).hasSize(2);

    ApiObjects.node(client, "node-e2e");
    AgentSettings settings = new AgentSettings("nodeatlas.io", "node-e2e", tmp.resolve("kubelet"), tmp.resolve("cdi"),
        tmp.resolve("state"), "127.0.0.1", 0, -1, Duration.ofMinutes(10), Duration.ofSeconds(2));
    // The scheduled poll runs once at start; the test polls when it has changed the hardware.
    Agent agent = new Agent(settings, () -> NodeDiscovery.run(sources, ctx), client, n -> {}, Optional.empty(),
        new AgentMetrics("test"), Clock.systemUTC()).options(o -> o.withHealthChecks(checks, Duration.ofHours(1)));
    agent.start();
    Thread loop = new Thread(agent::run, "agent-loop");
    loop.start();
    KubeletPaths paths = new KubeletPaths(settings.kubeletRoot(), "nodeatlas.io");
    EventLoopGroup group = UnixSocketServers.newEventLoopGroup(1);
    ManagedChannel channel = UnixSocketServers.channel(paths.draSocket(), group);
    Watcher watcher = new Watcher();
    try {
      DRAResourceHealthGrpc.newStub(channel).nodeWatchResources(NodeWatchResourcesRequest.getDefaultInstance(), watcher);
      await(() -> taints().keySet().containsAll(List.of("gpu-0", "nic-0000-00-03-0")));
      agent.health().orElseThrow().poll();
      await(() -> watcher.health("gpu-0") == HealthStatus.HEALTHY && watcher.health("nic-0000-00-03-0") == HealthStatus.HEALTHY);
      assertThat(taints().values()).allSatisfy(t -> assertThat(t).isEmpty());

      // NVML reports a double-bit ECC error (XID 48); the NIC loses its carrier.
      Files.writeString(events, "0 xid 48\n", StandardOpenOption.APPEND);
      FixtureTree.at(host).value(ETH + "carrier", 0).value(ETH + "operstate", "down");
      agent.health().orElseThrow().poll();
      await(() -> tainted("gpu-0", "xid-48", "NoSchedule") && tainted("nic-0000-00-03-0", "link-down", "NoSchedule"));
      await(() -> watcher.health("gpu-0") == HealthStatus.UNHEALTHY && watcher.health("nic-0000-00-03-0") == HealthStatus.UNHEALTHY);

      // The GPU falls off and is reset; the link comes back.
      Files.writeString(events, "0 lost\n", StandardOpenOption.APPEND);
      agent.health().orElseThrow().poll();
      await(() -> tainted("gpu-0", "gpu-lost", "NoExecute"));
      Files.writeString(events, "0 back\n", StandardOpenOption.APPEND);
      FixtureTree.at(host).value(ETH + "carrier", 1).value(ETH + "operstate", "up");
      agent.health().orElseThrow().poll();
      await(() -> taints().values().stream().allMatch(List::isEmpty));
      await(() -> watcher.health("gpu-0") == HealthStatus.HEALTHY && watcher.health("nic-0000-00-03-0") == HealthStatus.HEALTHY);
    } finally {
      agent.requestStop();
      loop.join(10_000);
      agent.close();
      channel.shutdownNow().awaitTermination(2, TimeUnit.SECONDS);
      group.shutdownGracefully(0, 1, TimeUnit.SECONDS).await(2, TimeUnit.SECONDS);
    }
  }
}
