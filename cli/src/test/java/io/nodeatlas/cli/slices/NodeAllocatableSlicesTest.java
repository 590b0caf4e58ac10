package io.nodeatlas.cli.slices;

import static io.nodeatlas.cli.testing.NodeAtlasRun.run;
import static org.assertj.core.api.Assertions.assertThat;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import io.fabric8.kubernetes.api.model.resource.v1.ResourceSlice;
import io.nodeatlas.cli.testing.NodeAtlasRun.Result;
import io.nodeatlas.discovery.testing.FixtureTree;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * {@code --node-allocatable-resources} (KEP-5517, alpha): the cpu and hugepages devices that
 * {@code slices} and {@code discover} print carry {@code nodeAllocatableResources} mappings in the shape
 * of {@code resource.k8s.io/v1} 1.37, which pass the API's rules; off by default.
 */
class NodeAllocatableSlicesTest {

  private static final ObjectMapper JSON = new ObjectMapper();

  @TempDir Path dir;

  /** One NUMA node of two 2-thread cores, with four 2 MiB pages. */
  @BeforeEach
  void host() {
    FixtureTree t = FixtureTree.at(dir)
        .value("proc/sys/kernel/hostname", "fixture-node")
        .value("sys/devices/system/cpu/online", "0-3")
        .value("sys/devices/system/cpu/possible", "0-3")
        .value("sys/devices/system/cpu/present", "0-3")
        .value("sys/devices/system/node/online", "0")
        .value("sys/devices/system/node/possible", "0")
        .value("sys/devices/system/node/node0/cpulist", "0-3")
        .value("sys/devices/system/node/node0/distance", "10")
        .value("sys/devices/system/node/node0/hugepages/hugepages-2048kB/nr_hugepages", 4)
        .value("sys/devices/system/node/node0/hugepages/hugepages-2048kB/free_hugepages", 4)
        .value("sys/devices/system/node/node0/hugepages/hugepages-2048kB/surplus_hugepages", 0)
        .file("proc/meminfo", "MemTotal: 1024 kB\n");
    for (int cpu = 0; cpu < 4; cpu++) {
      t.value("sys/devices/system/cpu/cpu" + cpu + "/topology/physical_package_id", 0)
          .value("sys/devices/system/cpu/cpu" + cpu + "/topology/core_id", cpu / 2)
          .value("sys/devices/system/cpu/cpu" + cpu + "/topology/thread_siblings_list", (cpu / 2 * 2) + "-" + (cpu / 2 * 2 + 1));
    }
  }

  /** The printed devices by name, as the JSON the API server would receive. */
  private Map<String, JsonNode> devices(String... extra) throws Exception {
    List<String> all = new java.util.ArrayList<>(
        List.of("slices", "--host-root", dir.toString(), "--sources", "cpu-numa", "-o", "json"));
    all.addAll(List.of(extra));
    Result r = run(all.toArray(String[]::new));
    assertThat(r.status()).as(r.err()).isZero();
    assertThat(r.err()).isEmpty();
    Map<String, JsonNode> out = new HashMap<>();
    for (JsonNode slice : JSON.readTree(r.out()).path("items")) {
      ResourceSlice typed = new io.fabric8.kubernetes.client.utils.KubernetesSerialization()
          .unmarshal(slice.toString(), ResourceSlice.class);
      SlicesCommandTest.everySliceValidates(List.of(typed));
      slice.path("spec").path("devices").forEach(d -> out.put(d.path("name").asText(), d));
    }
    return out;
  }

  @Test
  void sharedCpuAndHugepagesDevicesMapWhatAClaimConsumes() throws Exception {
    Map<String, JsonNode> d = devices("--node-allocatable-resources");
    assertThat(d.get("cpu-numa0").path("nodeAllocatableResources"))
        .isEqualTo(JSON.readTree("{\"cpu\":{\"mapping\":{\"capacityKey\":\"nodeatlas.io/cpu\",\"capacityMultiplier\":\"1\"}}}"));
    assertThat(d.get("hugepages-2mi-numa0").path("nodeAllocatableResources")).isEqualTo(JSON.readTree(
        "{\"hugepages-2Mi\":{\"mapping\":{\"capacityKey\":\"nodeatlas.io/memory\",\"capacityMultiplier\":\"1\"}}}"));
    // The 1.36 field is not written beside it.
    assertThat(d.get("cpu-numa0").has("nodeAllocatableResourceMappings")).isFalse();
  }

  @Test
  void aCoreTakenWholeCountsAsItsThreads() throws Exception {
    Map<String, JsonNode> d = devices("--node-allocatable-resources", "--cpu-devices", "cores");
    assertThat(d.get("cpu-core-0-0").path("nodeAllocatableResources"))
        .isEqualTo(JSON.readTree("{\"cpu\":{\"mapping\":{\"deviceMultiplier\":\"2\"}}}"));
  }

  @Test
  void offByDefault() throws Exception {
    assertThat(devices().values()).allSatisfy(dev -> assertThat(dev.has("nodeAllocatableResources")).isFalse());
  }

  @Test
  void discoverShowsTheMappingsAndASavedReportKeepsThem() throws Exception {
    Result r = run("discover", "--host-root", dir.toString(), "--sources", "cpu-numa", "--node-allocatable-resources");
    assertThat(r.status()).as(r.err()).isZero();
    JsonNode doc = JSON.readTree(r.out());
    JsonNode cpu = null;
    for (JsonNode dev : doc.path("devices")) {
      if (dev.path("name").asText().equals("cpu-numa0")) {
        cpu = dev;
      }
    }
    assertThat(cpu).isNotNull();
    assertThat(cpu.path("nodeAllocatableResources").path("cpu").path("mapping").path("capacityKey").asText())
        .isEqualTo("nodeatlas.io/cpu");
    Path saved = Files.writeString(dir.resolve("saved.json"), r.out());
    Result slices = run("slices", "--discovered", saved.toString(), "-o", "json");
    assertThat(slices.status()).as(slices.err()).isZero();
    assertThat(slices.out()).contains("\"nodeAllocatableResources\"").contains("\"hugepages-2Mi\"");
  }
}
