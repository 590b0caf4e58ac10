package io.nodeatlas.cli.slices;

import static io.nodeatlas.cli.testing.NodeAtlasRun.run;
import static org.assertj.core.api.Assertions.assertThat;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import io.fabric8.kubernetes.api.model.resource.v1.ResourceSlice;
import io.fabric8.kubernetes.client.utils.KubernetesSerialization;
import io.nodeatlas.cli.testing.NodeAtlasRun.Result;
import io.nodeatlas.discovery.testing.FixtureTree;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * {@code --cpu-pcie-roots} (KEP-5491 list attributes, alpha): each cpu device lists the PCIe root
 * complexes of its NUMA node as {@code resource.kubernetes.io/pcieRoot} {@code strings}, in the form every
 * PCI device's scalar {@code pcieRoot} has, and the slices stay valid by the API's rules.
 */
class ListAttributeSlicesTest {

  private static final ObjectMapper JSON = new ObjectMapper();
  private static final String PCIE_ROOT = "resource.kubernetes.io/pcieRoot";

  @TempDir Path dir;

  /**
   * Two NUMA nodes of two CPUs; host bridges pci0000:00 and pci0000:40 on node 0, pci0000:80 on node 1,
   * and pci0000:ff whose function reports no node (-1).
   */
  @BeforeEach
  void host() {
    FixtureTree t = FixtureTree.at(dir)
        .value("proc/sys/kernel/hostname", "fixture-node")
        .value("sys/devices/system/cpu/online", "0-3")
        .value("sys/devices/system/cpu/possible", "0-3")
        .value("sys/devices/system/cpu/present", "0-3")
        .value("sys/devices/system/node/online", "0-1")
        .value("sys/devices/system/node/possible", "0-1")
        .value("sys/devices/system/node/node0/cpulist", "0-1")
        .value("sys/devices/system/node/node0/distance", "10 20")
        .value("sys/devices/system/node/node1/cpulist", "2-3")
        .value("sys/devices/system/node/node1/distance", "20 10")
        .value("sys/devices/pci0000:00/0000:00:01.0/numa_node", 0)
        .value("sys/devices/pci0000:00/0000:00:02.0/numa_node", 0)
        .value("sys/devices/pci0000:40/0000:40:01.0/numa_node", 0)
        .value("sys/devices/pci0000:80/0000:80:01.0/numa_node", 1)
        .value("sys/devices/pci0000:ff/0000:ff:00.0/numa_node", -1)
        .file("proc/meminfo", "MemTotal: 1024 kB\n");
    for (int cpu = 0; cpu < 4; cpu++) {
      t.value("sys/devices/system/cpu/cpu" + cpu + "/topology/physical_package_id", cpu / 2)
          .value("sys/devices/system/cpu/cpu" + cpu + "/topology/core_id", cpu)
          .value("sys/devices/system/cpu/cpu" + cpu + "/topology/thread_siblings_list", cpu);
    }
  }

  private Map<String, JsonNode> slicesDevices(String... extra) throws Exception {
    List<String> args = new ArrayList<>(List.of("slices", "--host-root", dir.toString(), "--sources", "cpu-numa",
        "-o", "json"));
    args.addAll(List.of(extra));
    Result r = run(args.toArray(String[]::new));
    assertThat(r.status()).as(r.err()).isZero();
    assertThat(r.err()).isEmpty();
    Map<String, JsonNode> out = new HashMap<>();
    for (JsonNode slice : JSON.readTree(r.out()).path("items")) {
      SlicesCommandTest.everySliceValidates(
          List.of(new KubernetesSerialization().unmarshal(slice.toString(), ResourceSlice.class)));
      slice.path("spec").path("devices").forEach(d -> out.put(d.path("name").asText(), d));
    }
    return out;
  }

  @Test
  void cpuDevicesListTheRootsOfTheirNode() throws Exception {
    Map<String, JsonNode> d = slicesDevices("--cpu-pcie-roots");
    assertThat(d.get("cpu-numa0").path("attributes").path(PCIE_ROOT))
        .isEqualTo(JSON.readTree("{\"strings\":[\"pci0000:00\",\"pci0000:40\"]}"));
    assertThat(d.get("cpu-numa1").path("attributes").path(PCIE_ROOT))
        .isEqualTo(JSON.readTree("{\"strings\":[\"pci0000:80\"]}"));
  }

  @Test
  void coresListTheRootsOfTheirNodeToo() throws Exception {
    Map<String, JsonNode> d = slicesDevices("--cpu-pcie-roots", "--cpu-devices", "cores");
    assertThat(d.get("cpu-core-1-2").path("attributes").path(PCIE_ROOT))
        .isEqualTo(JSON.readTree("{\"strings\":[\"pci0000:80\"]}"));
  }

  @Test
  void offByDefault() throws Exception {
    assertThat(slicesDevices().values()).allSatisfy(dev -> assertThat(dev.path("attributes").has(PCIE_ROOT)).isFalse());
  }

  @Test
  void discoverShowsTheListAndASavedReportKeepsIt() throws Exception {
    Result r = run("discover", "--host-root", dir.toString(), "--sources", "cpu-numa", "--cpu-pcie-roots");
    assertThat(r.status()).as(r.err()).isZero();
    JsonNode doc = JSON.readTree(r.out());
    List<String> listed = new ArrayList<>();
    for (JsonNode dev : doc.path("devices")) {
      if (dev.path("name").asText().equals("cpu-numa0")) {
        dev.path("attributes").path(PCIE_ROOT).path("strings").forEach(v -> listed.add(v.asText()));
      }
    }
    assertThat(listed).containsExactly("pci0000:00", "pci0000:40");
    Path saved = Files.writeString(dir.resolve("saved.json"), r.out());
    Result slices = run("slices", "--discovered", saved.toString(), "-o", "json");
    assertThat(slices.status()).as(slices.err()).isZero();
    assertThat(slices.out()).contains("pci0000:40");
  }
}
