package io.nodeatlas.cdi;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import io.nodeatlas.cdi.spec.CdiVersion;
import io.nodeatlas.cdi.spec.SpecFormat;
import io.nodeatlas.discovery.model.Device;
import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.Collections;
import java.util.List;
import java.util.Map;
import java.util.Random;
import java.util.TreeMap;
import java.util.stream.Collectors;
import org.junit.jupiter.api.Test;

/**
 * The specs generated for the synthetic node, compared byte for byte with golden files under
 * src/test/resources/io/nodeatlas/cdi/golden. Run with {@code -Dnodeatlas.updateGoldens=true} to
 * rewrite them after an intended change (and review the diff).
 */
class CdiSpecGeneratorGoldenTest {

  private static final Path GOLDEN = Path.of("src/test/resources/io/nodeatlas/cdi/golden");

  @Test
  void jsonSpecsOfTheSyntheticNodeMatchTheGoldenFiles() throws IOException {
    CdiSpecGenerator.Result result = CdiSpecGenerator.builder().build().generate(SyntheticNode.devices());
    assertThat(result.specs()).extracting(CdiSpecFile::fileName).containsExactly(
        "nodeatlas.io-gpu.json", "nodeatlas.io-hugepages.json", "nodeatlas.io-nic.json",
        "nodeatlas.io-rdma.json", "nodeatlas.io-vf.json");
    assertGolden(result.specs());
  }

  @Test
  void yamlSpecsQuoteEveryStringAndMatchTheGoldenFiles() throws IOException {
    CdiSpecGenerator.Result result =
        CdiSpecGenerator.builder().format(SpecFormat.YAML).build().generate(SyntheticNode.devices());
    List<CdiSpecFile> hugepages = result.specs().stream().filter(f -> f.fileName().contains("hugepages")).toList();
    assertThat(hugepages).extracting(CdiSpecFile::fileName).containsExactly("nodeatlas.io-hugepages.yaml");
    assertGolden(hugepages);
    String text = new CdiSpecWriter().renderText(hugepages.get(0));
    assertThat(text).contains("cdiVersion: \"0.4.0\"").contains("- \"pagesize=2M\"");
  }

  @Test
  void eachSpecDeclaresTheMinimumVersionItsContentNeeds() {
    Map<String, String> versions = CdiSpecGenerator.builder().build().generate(SyntheticNode.devices()).specs().stream()
        .collect(Collectors.toMap(f -> f.spec().kind(), f -> f.spec().cdiVersion(), (a, b) -> a, TreeMap::new));
    assertThat(versions).containsExactly(
        Map.entry("nodeatlas.io/gpu", "0.3.0"),        // fully specified nodes, bind mounts: baseline
        Map.entry("nodeatlas.io/hugepages", "0.4.0"),  // mount type hugetlbfs
        Map.entry("nodeatlas.io/nic", "1.1.0"),        // netDevices
        Map.entry("nodeatlas.io/rdma", "0.3.0"),
        Map.entry("nodeatlas.io/vf", "1.1.0"));
  }

  @Test
  void outputIsByteStableWhateverTheInputOrder() {
    CdiSpecGenerator generator = CdiSpecGenerator.builder().build();
    CdiSpecWriter writer = new CdiSpecWriter();
    List<String> first = generator.generate(SyntheticNode.devices()).specs().stream().map(writer::renderText).toList();
    List<Device> shuffled = new ArrayList<>(SyntheticNode.devices());
    Collections.shuffle(shuffled, new Random(42));
    List<String> second = generator.generate(shuffled).specs().stream().map(writer::renderText).toList();
    assertThat(second).isEqualTo(first);
  }

  @Test
  void theAllDeviceOfTheGpuClassUnitesEveryGpuOnce() {
    CdiSpecFile gpu = CdiSpecGenerator.builder().build().generate(SyntheticNode.devices()).specs().get(0);
    var all = gpu.spec().device("all").orElseThrow().containerEdits();
    assertThat(all.deviceNodes()).extracting(n -> n.path()).containsExactly(
        "/dev/nvidia0", "/dev/nvidiactl", "/dev/nvidia-uvm", "/dev/nvidia1", "/dev/nvidia2", "/dev/nvidia3",
        "/dev/nvidia4", "/dev/nvidia5", "/dev/nvidia6", "/dev/nvidia7");
    assertThat(all.mounts()).hasSize(3);
    assertThat(gpu.qualifiedDeviceNames()).startsWith("nodeatlas.io/gpu=all", "nodeatlas.io/gpu=gpu-0");
  }

  @Test
  void classesOfExclusiveDevicesWithDeviceNodesGetAnAllDeviceOthersDoNot() {
    Map<String, Boolean> hasAll = CdiSpecGenerator.builder().build().generate(SyntheticNode.devices()).specs().stream()
        .collect(Collectors.toMap(f -> f.spec().kind(), f -> f.spec().device("all").isPresent(), (a, b) -> a, TreeMap::new));
    assertThat(hasAll).containsExactly(
        Map.entry("nodeatlas.io/gpu", true),         // exclusive, device nodes
        Map.entry("nodeatlas.io/hugepages", false),  // mounts only, no device node
        Map.entry("nodeatlas.io/nic", false),        // netDevices: an interface is in one namespace at a time
        Map.entry("nodeatlas.io/rdma", true),        // exclusive, uverbs/umad/rdma_cm nodes
        Map.entry("nodeatlas.io/vf", false));
    var rdmaAll = CdiSpecGenerator.builder().build().generate(SyntheticNode.devices()).specs().get(3)
        .spec().device("all").orElseThrow().containerEdits();
    assertThat(rdmaAll.deviceNodes()).extracting(n -> n.path()).containsExactly("/dev/infiniband/uverbs0",
        "/dev/infiniband/rdma_cm", "/dev/infiniband/uverbs1", "/dev/infiniband/umad1", "/dev/infiniband/uverbs11",
        "/dev/infiniband/uverbs2", "/dev/infiniband/uverbs3");
  }

  @Test
  void oneSharedDeviceTakesTheAllDeviceAwayFromItsClass() {
    List<Device> gpus = SyntheticNode.devices().stream().filter(d -> d.name().startsWith("gpu-")).toList();
    Device first = gpus.get(0);
    Device shared = new Device(first.name(), first.source(), first.attributes(), first.capacity(), new TreeMap<>(), true,
        first.containerEdits());
    List<Device> mixed = new ArrayList<>(gpus);
    mixed.set(0, shared);
    CdiSpecFile spec = CdiSpecGenerator.builder().build().generate(mixed).specs().get(0);
    assertThat(spec.spec().device("all")).isEmpty();
    assertThat(spec.spec().devices()).hasSize(gpus.size());
    assertThat(CdiSpecGenerator.offersAllDevice(first)).isTrue();
    assertThat(CdiSpecGenerator.offersAllDevice(shared)).isFalse();
  }

  @Test
  void devicesWithoutEditsGetNoCdiDevice() {
    CdiSpecGenerator.Result result = CdiSpecGenerator.builder().build().generate(SyntheticNode.devices());
    assertThat(result.skipped()).extracting(CdiSpecGenerator.Skipped::device)
        .containsExactly("nic-eno1", "numa-0", "numa-1");
    assertThat(result.specs()).noneMatch(f -> f.spec().kind().endsWith("/numa"));
  }

  @Test
  void aRequestedVersionMayRaiseButNeverLowerTheMinimum() {
    List<Device> gpusAndRdma = SyntheticNode.devices().stream()
        .filter(d -> d.name().startsWith("gpu-") || d.name().startsWith("rdma-")).toList();
    var raised = CdiSpecGenerator.builder().cdiVersion(CdiVersion.V0_5_0).build().generate(gpusAndRdma);
    assertThat(raised.specs()).extracting(f -> f.spec().cdiVersion()).containsExactly("0.5.0", "0.5.0");
    assertThatThrownBy(() -> CdiSpecGenerator.builder().cdiVersion(CdiVersion.V0_3_0).build()
        .generate(SyntheticNode.devices()))
        .isInstanceOf(IllegalArgumentException.class)
        .hasMessage("cdiVersion 0.3.0 is too old for nodeatlas.io/hugepages: its content needs 0.4.0 "
            + "(device hugepages-1gi-numa0: type of mount /dev/hugepages-1Gi)");
  }

  @Test
  void everyGeneratedSpecIsValid() {
    CdiValidator validator = new CdiValidator();
    for (SpecFormat format : SpecFormat.values()) {
      for (CdiSpecFile f : CdiSpecGenerator.builder().format(format).build().generate(SyntheticNode.devices()).specs()) {
        assertThat(validator.validate(f.spec(), f.fileName())).as(f.fileName()).isEmpty();
      }
    }
  }

  private static void assertGolden(List<CdiSpecFile> specs) throws IOException {
    CdiSpecWriter writer = new CdiSpecWriter();
    boolean update = Boolean.getBoolean("nodeatlas.updateGoldens");
    for (CdiSpecFile f : specs) {
      String actual = writer.renderText(f);
      Path golden = GOLDEN.resolve(f.fileName());
      if (update) {
        Files.createDirectories(GOLDEN);
        Files.writeString(golden, actual, StandardCharsets.UTF_8);
      }
      assertThat(golden).as("golden file %s (run with -Dnodeatlas.updateGoldens=true to create it)", golden).exists();
      assertThat(actual).as(f.fileName()).isEqualTo(Files.readString(golden, StandardCharsets.UTF_8));
    }
  }
}
