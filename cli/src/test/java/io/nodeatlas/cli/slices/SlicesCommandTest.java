package io.nodeatlas.cli.slices;

import static io.nodeatlas.cli.testing.NodeAtlasRun.run;
import static org.assertj.core.api.Assertions.assertThat;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import io.fabric8.kubernetes.api.model.KubernetesList;
import io.fabric8.kubernetes.api.model.resource.v1.ResourceSlice;
import io.fabric8.kubernetes.client.utils.KubernetesSerialization;
import io.nodeatlas.agent.slices.SliceValidator;
import io.nodeatlas.cli.testing.NodeAtlasRun.Result;
import io.nodeatlas.cli.testing.Repo;
import io.nodeatlas.discovery.testing.FixtureTree;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * {@code nodeatlas slices}: the ResourceSlices the agent would publish, printed without an API server.
 * The golden file is the synthetic HGX node of {@code examples/nodes/hgx-01.json}; regenerate it with
 * {@code -Dnodeatlas.golden.write=true} after a deliberate change and review the diff.
 */
class SlicesCommandTest {

  static final Path ROOT = Repo.root();
  static final Path HGX = ROOT.resolve("examples/nodes/hgx-01.json");
  static final Path GOLDEN = ROOT.resolve("cli/src/test/resources/io/nodeatlas/cli/slices/hgx-01-slices.yaml");

  @TempDir Path dir;

  /** The YAML documents of the output, as the API server would decode them. */
  static List<ResourceSlice> fromYaml(String yaml) {
    KubernetesSerialization serialization = new KubernetesSerialization();
    List<ResourceSlice> out = new ArrayList<>();
    for (String doc : yaml.split("(?m)^---\\n")) {
      if (!doc.isBlank()) {
        out.add(serialization.unmarshal(doc, ResourceSlice.class));
      }
    }
    return out;
  }

  static void everySliceValidates(List<ResourceSlice> slices) {
    assertThat(slices).isNotEmpty().allSatisfy(s -> {
      assertThat(s.getApiVersion()).isEqualTo("resource.k8s.io/v1");
      assertThat(s.getKind()).isEqualTo("ResourceSlice");
      assertThat(SliceValidator.sliceProblems(s)).as(s.getMetadata().getName()).isEmpty();
    });
  }

  @Test
  void theSyntheticNodesSlicesAreTheGoldenOnes() throws Exception {
    Result r = run("slices", "--discovered", HGX.toString());
    assertThat(r.status()).as(r.err()).isZero();
    assertThat(r.err()).isEmpty();
    if (Boolean.getBoolean("nodeatlas.golden.write")) {
      Files.writeString(GOLDEN, r.out());
    }
    assertThat(r.out()).as("regenerate with -Dnodeatlas.golden.write=true").isEqualTo(Files.readString(GOLDEN));
  }

  @Test
  void everyPrintedObjectPassesTheValidatorInBothFormats() throws Exception {
    Result yaml = run("slices", "--discovered", HGX.toString(), "-o", "yaml");
    List<ResourceSlice> slices = fromYaml(yaml.out());
    everySliceValidates(slices);
    assertThat(slices).singleElement().satisfies(s -> {
      assertThat(s.getMetadata().getName()).isEqualTo("hgx-01-nodeatlas.io-0");
      assertThat(s.getSpec().getNodeName()).isEqualTo("hgx-01");
      assertThat(s.getSpec().getPool().getName()).isEqualTo("hgx-01");
      assertThat(s.getSpec().getPool().getGeneration()).isEqualTo(1L);
      assertThat(s.getSpec().getPool().getResourceSliceCount()).isEqualTo(1L);
      assertThat(s.getSpec().getDevices()).hasSize(19);
      var cpu = s.getSpec().getDevices().stream().filter(d -> d.getName().equals("cpu-numa0")).findFirst().orElseThrow();
      assertThat(cpu.getAllowMultipleAllocations()).isTrue();
      assertThat(cpu.getCapacity().get("nodeatlas.io/cpu").getRequestPolicy().getValidRange().getMax().toString())
          .isEqualTo("64");
      assertThat(cpu.getAttributes().get("nodeatlas.io/vendor").getString()).isEqualTo("intel");
    });

    Result json = run("slices", "--discovered", HGX.toString(), "-o", "json", "--node-name", "gpu-node-7",
        "--driver-name", "gpu.example.com");
    KubernetesList list = new KubernetesSerialization().unmarshal(json.out(), KubernetesList.class);
    List<ResourceSlice> items = list.getItems().stream().map(ResourceSlice.class::cast).toList();
    everySliceValidates(items);
    assertThat(items.get(0).getMetadata().getName()).isEqualTo("gpu-node-7-gpu.example.com-0");
    assertThat(items.get(0).getSpec().getDriver()).isEqualTo("gpu.example.com");
    assertThat(items.get(0).getMetadata().getLabels()).containsEntry("nodeatlas.io/node", "gpu-node-7");
    JsonNode tree = new ObjectMapper().readTree(json.out());
    assertThat(tree.path("kind").asText()).isEqualTo("List");
  }

  @Test
  void anH200InMigPartitionsPublishesItsCountersInASliceOfTheirOwn() {
    Result r = run("slices", "--discovered", ROOT.resolve("examples/nodes/h200-mig.json").toString(), "-o", "yaml");
    assertThat(r.status()).as(r.err()).isZero();
    List<ResourceSlice> slices = fromYaml(r.out());
    everySliceValidates(slices);
    assertThat(slices).hasSize(2);
    assertThat(slices.get(0).getSpec().getDevices()).hasSize(26)
        .allSatisfy(d -> assertThat(d.getConsumesCounters()).singleElement()
            .satisfies(c -> assertThat(c.getCounterSet()).isEqualTo("gpu-0")));
    assertThat(slices.get(1).getMetadata().getName()).isEqualTo("h200-mig-nodeatlas.io-1");
    assertThat(slices.get(1).getSpec().getDevices()).isNullOrEmpty();
    assertThat(slices.get(1).getSpec().getSharedCounters()).singleElement().satisfies(set -> {
      assertThat(set.getName()).isEqualTo("gpu-0");
      assertThat(set.getCounters()).hasSize(13).containsKeys("memory-slice-0", "memory-slice-7", "compute-slices");
    });
    assertThat(slices).allSatisfy(s -> assertThat(s.getSpec().getPool().getResourceSliceCount()).isEqualTo(2L));
  }

  @Test
  void withoutSharedDevicesTheSlicesAreThoseOfTheFallback() {
    Result r = run("slices", "--discovered", HGX.toString(), "--without-shared-devices");
    assertThat(r.status()).isZero();
    assertThat(r.out()).doesNotContain("allowMultipleAllocations").doesNotContain("requestPolicy");
    everySliceValidates(fromYaml(r.out()));
  }

  @Test
  void thisHostFromAFixtureTreeWithTheNodeNameFromItsHostName() {
    FixtureTree.at(dir)
        .value("proc/sys/kernel/hostname", "Fixture-Node")
        .value("proc/sys/kernel/osrelease", "6.8.0-test")
        .value("sys/devices/system/cpu/online", "0-3")
        .value("sys/devices/system/cpu/possible", "0-3")
        .value("sys/devices/system/cpu/present", "0-3")
        .value("sys/devices/system/node/online", "0")
        .value("sys/devices/system/node/possible", "0")
        .value("sys/devices/system/node/node0/cpulist", "0-3")
        .value("sys/devices/system/node/node0/distance", "10")
        .file("proc/meminfo", "MemTotal: 1024 kB\n");
    for (int cpu = 0; cpu < 4; cpu++) {
      FixtureTree.at(dir)
          .value("sys/devices/system/cpu/cpu" + cpu + "/topology/physical_package_id", 0)
          .value("sys/devices/system/cpu/cpu" + cpu + "/topology/core_id", cpu / 2)
          .value("sys/devices/system/cpu/cpu" + cpu + "/topology/thread_siblings_list", (cpu / 2 * 2) + "-" + (cpu / 2 * 2 + 1));
    }
    Result r = run("slices", "--host-root", dir.toString(), "--sources", "cpu-numa");
    assertThat(r.status()).as(r.err()).isZero();
    List<ResourceSlice> slices = fromYaml(r.out());
    everySliceValidates(slices);
    assertThat(slices.get(0).getSpec().getNodeName()).as("the kubelet's node name: the host name in lower case")
        .isEqualTo("fixture-node");
    assertThat(slices.get(0).getSpec().getDevices()).extracting(d -> d.getAttributes().get("nodeatlas.io/type").getString())
        .contains("cpu");
  }

  @Test
  void badNamesAndFormatsAreBadUsage() {
    Result badNode = run("slices", "--discovered", HGX.toString(), "--node-name", "Not_A_Node");
    assertThat(badNode.status()).isEqualTo(2);
    assertThat(badNode.err()).contains("--node-name \"Not_A_Node\" is not a valid Kubernetes node name");
    Result badDriver = run("slices", "--discovered", HGX.toString(), "--driver-name", "-x-");
    assertThat(badDriver.status()).isEqualTo(2);
    assertThat(badDriver.err()).contains("--driver-name");
    Result badFormat = run("slices", "--discovered", HGX.toString(), "-o", "table");
    assertThat(badFormat.status()).isEqualTo(2);
    assertThat(badFormat.err()).contains("--format must be yaml or json");
    Result missing = run("slices", "--discovered", dir.resolve("nope.json").toString());
    assertThat(missing.status()).isEqualTo(2);
    assertThat(missing.err()).contains("--discovered").contains("no such file");
  }
}
