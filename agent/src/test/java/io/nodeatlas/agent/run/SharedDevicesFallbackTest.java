package io.nodeatlas.agent.run;

import static io.nodeatlas.agent.testing.Eventually.await;
import static org.assertj.core.api.Assertions.assertThat;

import com.fasterxml.jackson.databind.JsonNode;
import io.fabric8.kubernetes.client.KubernetesClient;
import io.nodeatlas.agent.ops.AgentMetrics;
import io.nodeatlas.agent.testing.DroppingApiServer;
import io.nodeatlas.agent.testing.TestDevices;
import io.nodeatlas.discovery.model.Device;
import io.nodeatlas.discovery.model.Names;
import java.net.URI;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.nio.file.Path;
import java.time.Clock;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Optional;
import java.util.TreeSet;
import java.util.concurrent.CopyOnWriteArrayList;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * The agent against an API server that drops the fields of shared devices (DRAConsumableCapacity off):
 * it says so (metric, {@code /readyz} detail), discovers again for exclusive devices and publishes
 * those, so the CPUs stay allocatable.
 */
class SharedDevicesFallbackTest {

  @TempDir Path dir;

  /** Shared: one CPU device of the NUMA node; exclusive: one device per physical core, as a source would fall back. */
  static List<Device> devices(boolean shared) {
    List<Device> out = new ArrayList<>(List.of(TestDevices.gpu(0)));
    if (shared) {
      out.add(TestDevices.sharedCpus(0));
    } else {
      for (int core = 0; core < 4; core++) {
        out.add(Device.builder("cpu-core" + core, "cpu-numa").attribute(Device.TYPE, "cpu")
            .attribute(Names.NUMA_NODE, 0).capacity(Names.ours("cpu"), 2).build());
      }
    }
    return out;
  }

  @Test
  void fallsBackToExclusiveDevicesAndSaysSo() throws Exception {
    List<Boolean> asked = new CopyOnWriteArrayList<>();
    AgentSettings settings = new AgentSettings("nodeatlas.io", "node-a", dir.resolve("kubelet"), dir.resolve("cdi"),
        dir.resolve("state"), "127.0.0.1", -1, -1, Duration.ofMinutes(10), Duration.ofSeconds(2));
    try (DroppingApiServer server = new DroppingApiServer(); KubernetesClient client = server.client()) {
      Agent agent = new Agent(settings, (DeviceDiscovery) shared -> {
        asked.add(shared);
        return TestDevices.report(devices(shared));
      }, client, note -> { }, Optional.empty(), new AgentMetrics("test"), Clock.systemUTC());
      agent.start();
      Thread loop = new Thread(agent::run, "agent-loop");
      loop.start();
      try {
        await(() -> publishedDevices(server).contains("cpu-core3"));
        assertThat(publishedDevices(server)).containsExactly("cpu-core0", "cpu-core1", "cpu-core2", "cpu-core3", "gpu-0");
        assertThat(asked).startsWith(true).contains(false);
        assertThat(agent.sharedDevicesSupported()).isFalse();
        assertThat(get(agent, "/metrics")).contains("nodeatlas_shared_devices_supported 0.0");
        assertThat(get(agent, "/readyz?verbose")).contains("[+]sharedDevices ok: the API server drops "
            + "allowMultipleAllocations and requestPolicy (DRAConsumableCapacity feature gate off or a server older "
            + "than 1.36): devices are published exclusive, CPUs one device per physical core");
      } finally {
        agent.requestStop();
        loop.join(10_000);
        agent.close();
      }
    }
  }

  static TreeSet<String> publishedDevices(DroppingApiServer server) {
    TreeSet<String> names = new TreeSet<>();
    for (JsonNode slice : server.slices().values()) {
      slice.path("spec").path("devices").forEach(d -> names.add(d.path("name").asText()));
    }
    return names;
  }

  static String get(Agent agent, String path) {
    try {
      return HttpClient.newHttpClient().send(HttpRequest.newBuilder(
          URI.create("http://127.0.0.1:" + agent.httpPort().orElseThrow() + path)).build(),
          HttpResponse.BodyHandlers.ofString()).body();
    } catch (Exception e) {
      throw new AssertionError(e);
    }
  }
}
