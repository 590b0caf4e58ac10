package io.nodeatlas.match.cel;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import io.nodeatlas.discovery.model.Device;
import io.nodeatlas.discovery.model.Names;
import io.nodeatlas.match.NodeFixtures;
import io.nodeatlas.match.cel.SelectorResult.Outcome;
import java.util.List;
import java.util.Map;
import java.util.TreeMap;
import java.util.stream.Collectors;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.CsvSource;
import org.junit.jupiter.params.provider.ValueSource;

/** The DRA CEL environment against the devices of the synthetic HGX node (the synthetic HGX-like node). */
class DraCelEnvironmentTest {

  private static final DraCelEnvironment ENV = new DraCelEnvironment();
  private static final List<Device> NODE = NodeFixtures.hgxNode();
  private static final List<String> GPUS = List.of("gpu-0", "gpu-1", "gpu-2", "gpu-3", "gpu-4", "gpu-5", "gpu-6", "gpu-7");

  /** Device name → outcome of the selector on it. */
  private static Map<String, SelectorResult> evaluate(String expression) throws SelectorCompileException {
    CompiledSelector selector = ENV.compile(expression);
    Map<String, SelectorResult> out = new TreeMap<>();
    for (Device d : NODE) {
      out.put(d.name(), selector.evaluate(DeviceVariable.of(d, Names.DRIVER)));
    }
    return out;
  }

  private static List<String> matching(String expression) throws SelectorCompileException {
    return evaluate(expression).entrySet().stream().filter(e -> e.getValue().matched()).map(Map.Entry::getKey)
        .collect(Collectors.toList());
  }

  private static SelectorResult on(String device, String expression) throws SelectorCompileException {
    return evaluate(expression).get(device);
  }

  /** A constant expression, evaluated on one device. */
  private static SelectorResult constant(String expression) throws SelectorCompileException {
    return on("gpu-0", expression);
  }

  @Test
  void driverAndTypeSelectDeviceKinds() throws Exception {
    assertThat(matching("device.driver == \"nodeatlas.io\"")).hasSize(NODE.size()).hasSize(33);
    assertThat(matching("device.attributes[\"nodeatlas.io\"].type == \"gpu\"")).isEqualTo(GPUS);
    assertThat(matching("device.attributes[\"nodeatlas.io\"].type == \"rdma\" && !device.attributes[\"nodeatlas.io\"].isSriovVf"))
        .containsExactly("rdma-mlx5-0", "rdma-mlx5-1", "rdma-mlx5-2");
    assertThat(matching("device.attributes[\"nodeatlas.io\"].type == \"hugepages\"")).hasSize(4);
  }

  @Test
  void selectorExamplesOfTheApiDocumentation() throws Exception {
    // The DRA CEL environment (KEP-4381), with our driver's domain.
    assertThat(matching("device.attributes[\"resource.kubernetes.io\"].numaNode == 0"))
        .contains("gpu-0", "gpu-3", "rdma-mlx5-0", "rdma-mlx5-1", "cpu-numa0", "hugepages-2mi-numa0")
        .doesNotContain("gpu-4", "rdma-mlx5-2", "cpu-numa1");
    assertThat(matching("device.driver == 'nodeatlas.io' && device.attributes['nodeatlas.io'].type == 'gpu'")).isEqualTo(GPUS);
    assertThat(matching("device.attributes[\"nodeatlas.io\"].type == \"gpu\" && "
        + "device.attributes[\"nodeatlas.io\"].driverVersion.isGreaterThan(semver(\"550.0.0\"))")).isEqualTo(GPUS);
    assertThat(matching("cel.bind(g, device.attributes[\"nodeatlas.io\"], g.type == \"gpu\" && g.architecture == \"hopper\")"))
        .isEqualTo(GPUS);
    // The capacity example reads a capacity only GPUs and hugepages have: the others fail at run time.
    Map<String, SelectorResult> memory = evaluate("device.capacity[\"nodeatlas.io\"].memory.compareTo(quantity(\"40Gi\")) >= 0");
    assertThat(memory.entrySet().stream().filter(e -> e.getValue().matched()).map(Map.Entry::getKey)).isEqualTo(GPUS);
    assertThat(memory.get("hugepages-1gi-numa0").outcome()).isEqualTo(Outcome.NO_MATCH);
    assertThat(memory.get("rdma-mlx5-0").outcome()).isEqualTo(Outcome.ERROR);
    assertThat(memory.get("rdma-mlx5-0").error()).contains("memory");
  }

  @Test
  void standardTopologyAttributesAreStringsAndInts() throws Exception {
    assertThat(matching("device.attributes[\"resource.kubernetes.io\"].pcieRoot == \"pci0000:15\""))
        .containsExactly("gpu-0", "gpu-1", "rdma-mlx5-0", "rdma-mlx5-10", "rdma-mlx5-3", "rdma-mlx5-4", "rdma-mlx5-5",
            "rdma-mlx5-6", "rdma-mlx5-7", "rdma-mlx5-8", "rdma-mlx5-9");
    assertThat(matching("device.attributes[\"resource.kubernetes.io\"].pciBusID.startsWith(\"0000:9c:\")")).hasSize(9);
    assertThat(matching("device.attributes[\"nodeatlas.io\"].type == \"gpu\" && "
        + "device.attributes[\"nodeatlas.io\"].cudaComputeCapability.major() >= 9")).isEqualTo(GPUS);
  }

  @Test
  void cpuDevicesOfferCapacityAndPerNumaSelection() throws Exception {
    assertThat(matching("device.attributes[\"nodeatlas.io\"].type == \"cpu\" && "
        + "device.capacity[\"nodeatlas.io\"].cpu.isGreaterThan(quantity(\"32\")) && "
        + "device.attributes[\"resource.kubernetes.io\"].numaNode == 1")).containsExactly("cpu-numa1");
    // Sharing is a fact the source sets on the device; the fixtures share CPUs and hugepage pools.
    assertThat(matching("device.allowMultipleAllocations")).containsExactly("cpu-numa0", "cpu-numa1",
        "hugepages-1gi-numa0", "hugepages-1gi-numa1", "hugepages-2mi-numa0", "hugepages-2mi-numa1");
    assertThat(matching("device.attributes[\"nodeatlas.io\"].type == \"hugepages\" && "
        + "device.capacity[\"nodeatlas.io\"].pageSize == quantity(\"1Gi\")")).containsExactly("hugepages-1gi-numa0", "hugepages-1gi-numa1");
  }

  @Test
  void intAndStringNeverCompareEqualButOrderingThemIsAnError() throws Exception {
    // cel-go: Int.Equal(String) is false; '<' between int and string has no overload.
    assertThat(on("gpu-0", "device.attributes[\"resource.kubernetes.io\"].numaNode == \"0\"").outcome()).isEqualTo(Outcome.NO_MATCH);
    assertThat(on("gpu-0", "device.attributes[\"resource.kubernetes.io\"].numaNode != \"0\"").outcome()).isEqualTo(Outcome.MATCH);
    SelectorResult ordering = on("gpu-0", "device.attributes[\"resource.kubernetes.io\"].numaNode < \"1\"");
    assertThat(ordering.outcome()).isEqualTo(Outcome.ERROR);
    assertThat(ordering.error()).contains("overload").contains("line 1, column");
    assertThat(on("gpu-0", "device.attributes[\"nodeatlas.io\"].productName == 1").outcome()).isEqualTo(Outcome.NO_MATCH);
  }

  @Test
  void versionsAreSemverValuesNotStrings() throws Exception {
    // A version attribute compared with a string is a type error in the apiserver's Semver.Equal.
    SelectorResult asString = on("gpu-0", "device.attributes[\"nodeatlas.io\"].driverVersion == \"550.54.15\"");
    assertThat(asString.outcome()).isEqualTo(Outcome.ERROR);
    assertThat(asString.error()).contains("no such overload").contains("kubernetes.Semver");
    assertThat(on("gpu-0", "device.attributes[\"nodeatlas.io\"].driverVersion == semver(\"550.54.15\")").matched()).isTrue();
    assertThat(on("gpu-0", "device.attributes[\"nodeatlas.io\"].driverVersion.isLessThan(semver(\"550.100.0\"))").matched()).isTrue();
    assertThat(on("rdma-mlx5-0", "device.attributes[\"nodeatlas.io\"].firmwareVersion.minor() == 39").matched()).isTrue();
  }

  @ParameterizedTest
  @ValueSource(strings = {
      "semver(\"1.10.0\").isGreaterThan(semver(\"1.9.0\"))",
      "semver(\"1.0.0-alpha\").isLessThan(semver(\"1.0.0\"))",
      "semver(\"1.0.0-alpha.2\").isLessThan(semver(\"1.0.0-alpha.10\"))",
      "semver(\"1.0.0-2\").isLessThan(semver(\"1.0.0-alpha\"))",
      "semver(\"1.0.0+build.1\") == semver(\"1.0.0+build.2\")",
      "semver(\"1.2.3\").compareTo(semver(\"1.2.3\")) == 0",
      "semver(\"1.2.3\").compareTo(semver(\"2.0.0\")) == -1",
      "semver(\"1.2.3\").compareTo(semver(\"0.1.2\")) == 1",
      "semver(\"1.2.3\").major() == 1 && semver(\"1.2.3\").minor() == 2 && semver(\"1.2.3\").patch() == 3",
      "isSemver(\"1.0.0\") && !isSemver(\"v1.0\") && !isSemver(\"1.0\") && isSemver(\"v1.0\", true)",
      "semver(\"v01.02\", true) == semver(\"1.2.0\")",
      "quantity(\"200M\").compareTo(quantity(\"0.2G\")) == 0",
      "quantity(\"50M\").compareTo(quantity(\"50Mi\")) == -1",
      "quantity(\"1Gi\") == quantity(\"1024Mi\")",
      "quantity(\"150Mi\").isGreaterThan(quantity(\"100Mi\")) && quantity(\"50M\").isLessThan(quantity(\"100M\"))",
      "quantity(\"50k\").add(quantity(\"20k\")) == quantity(\"70k\")",
      "quantity(\"50k\").add(20) == quantity(\"50020\")",
      "quantity(\"50k\").sub(quantity(\"20k\")) == quantity(\"30k\")",
      "quantity(\"50k\").sub(20000) == quantity(\"30k\")",
      "quantity(\"50k\").add(20).sub(quantity(\"100k\")).sub(-50000) == quantity(\"20\")",
      "quantity(\"50k\").asInteger() == 50000",
      "quantity(\"50000000G\").isInteger() && !quantity(\"500m\").isInteger()",
      "!quantity(\"9999999999999999999999999999999999999G\").isInteger()",
      "quantity(\"50k\").sub(20000).asApproximateFloat() == 30000.0",
      "quantity(\"-3\").sign() == -1 && quantity(\"0\").sign() == 0 && quantity(\"2Ki\").sign() == 1",
      "isQuantity(\"1.3Gi\") && isQuantity(\"10000k\") && !isQuantity(\"200K\") && !isQuantity(\"1,3G\") && !isQuantity(\"Mi\")",
      "[\"a\", \"b\"].exists(x, x == \"b\") && \"a,b\".split(\",\").size() == 2",
  })
  void kubernetesLibrariesBehaveAsDocumented(String expression) throws Exception {
    assertThat(constant(expression).outcome()).as(expression).isEqualTo(Outcome.MATCH);
  }

  @ParameterizedTest
  @CsvSource(delimiter = '|', value = {
      "semver(\"01.1.1\") == semver(\"1.1.1\")|not a semantic version",
      "semver(\"1.0\") == semver(\"1.0.0\")|not a semantic version",
      "quantity(\"200K\").sign() == 1|unable to parse quantity's suffix",
      "quantity(\"500m\").asInteger() == 0|cannot convert value to integer",
      "device.capacity[\"nodeatlas.io\"].memory == dyn(85520809984)|no such overload",
  })
  void libraryMisuseIsARuntimeError(String expression, String message) throws Exception {
    SelectorResult r = constant(expression);
    assertThat(r.outcome()).isEqualTo(Outcome.ERROR);
    assertThat(r.error()).contains(message);
  }

  @Test
  void missingAttributeIsAnErrorUnlessGuarded() throws Exception {
    SelectorResult missing = on("rdma-mlx5-0", "device.attributes[\"nodeatlas.io\"].architecture == \"hopper\"");
    assertThat(missing.outcome()).isEqualTo(Outcome.ERROR);
    assertThat(missing.error()).contains("architecture");
    assertThat(on("rdma-mlx5-0", "\"architecture\" in device.attributes[\"nodeatlas.io\"] && "
        + "device.attributes[\"nodeatlas.io\"].architecture == \"hopper\"").outcome()).isEqualTo(Outcome.NO_MATCH);
    assertThat(on("rdma-mlx5-0", "has(device.attributes[\"nodeatlas.io\"].architecture)").outcome()).isEqualTo(Outcome.NO_MATCH);
    assertThat(on("gpu-0", "has(device.attributes[\"nodeatlas.io\"].architecture)").outcome()).isEqualTo(Outcome.MATCH);
  }

  @Test
  void unknownDomainIsAnEmptyMap() throws Exception {
    assertThat(on("gpu-0", "device.attributes[\"gpu.nvidia.com\"].size() == 0").matched()).isTrue();
    assertThat(on("gpu-0", "\"type\" in device.attributes[\"gpu.nvidia.com\"]").outcome()).isEqualTo(Outcome.NO_MATCH);
    assertThat(on("gpu-0", "\"gpu.nvidia.com\" in device.attributes").outcome()).isEqualTo(Outcome.NO_MATCH);
    assertThat(on("gpu-0", "\"resource.kubernetes.io\" in device.attributes").outcome()).isEqualTo(Outcome.MATCH);
    SelectorResult lookup = on("gpu-0", "device.attributes[\"gpu.nvidia.com\"].type == \"gpu\"");
    assertThat(lookup.outcome()).isEqualTo(Outcome.ERROR);
  }

  @Test
  void unqualifiedDeviceAttributesLiveUnderTheDriverDomain() throws Exception {
    Device legacy = Device.builder("legacy-0", "test").attribute("model", "A").attribute("nodeatlas.io/type", "gpu").build();
    CompiledSelector s = ENV.compile("device.attributes[\"nodeatlas.io\"].model == \"A\" && device.attributes[\"nodeatlas.io\"].type == \"gpu\"");
    assertThat(s.evaluate(DeviceVariable.of(legacy, Names.DRIVER)).matched()).isTrue();
  }

  @Test
  void compileErrorsCarryTheirPosition() {
    assertThatThrownBy(() -> ENV.compile("device.attributes[\"nodeatlas.io\"].type == "))
        .isInstanceOfSatisfying(SelectorCompileException.class, e -> {
          assertThat(e.line()).isEqualTo(1);
          // cel-java points at the blank before the missing operand.
          assertThat(e.column()).isEqualTo(43);
          assertThat(e.getMessage()).startsWith("compilation failed: line 1, column 43:");
        });
    assertThatThrownBy(() -> ENV.compile("device.driver == \"x\" &&\n  device.driver == 1"))
        .isInstanceOfSatisfying(SelectorCompileException.class, e -> {
          assertThat(e.line()).isEqualTo(2);
          assertThat(e.column()).isEqualTo(17);
          assertThat(e.getMessage()).contains("no matching overload");
        });
    assertThatThrownBy(() -> ENV.compile("device.vendor == \"x\""))
        .isInstanceOfSatisfying(SelectorCompileException.class, e -> assertThat(e.getMessage()).contains("undefined field 'vendor'"));
    assertThatThrownBy(() -> ENV.compile("device.driver"))
        .isInstanceOfSatisfying(SelectorCompileException.class, e -> assertThat(e.getMessage()).contains("must evaluate to bool"));
    // Quantity and Semver have no ordering operators, in the API as here.
    assertThatThrownBy(() -> ENV.compile("device.capacity[\"nodeatlas.io\"].memory > quantity(\"1Gi\")"))
        .isInstanceOf(SelectorCompileException.class);
    assertThatThrownBy(() -> ENV.compile("device.capacity[\"nodeatlas.io\"].memory == 5"))
        .isInstanceOf(SelectorCompileException.class);
  }

  @Test
  void domainSlashNameMistakeIsCorrected() {
    assertThatThrownBy(() -> ENV.compile("device.attributes[\"nodeatlas.io/type\"] == \"gpu\""))
        .isInstanceOfSatisfying(SelectorCompileException.class, e -> assertThat(e.getMessage())
            .contains("did you mean: device.attributes[\"nodeatlas.io\"].type == \"gpu\""));
    assertThat(SelectorLint.warnings("\"numaNode\" in device.attributes[\"resource.kubernetes.io/numaNode\"]"))
        .singleElement().asString().contains("device.attributes[\"resource.kubernetes.io\"].numaNode");
    assertThat(SelectorLint.warnings("device.attributes[\"type\"].x == 1")).singleElement().asString().contains("is not a domain");
    assertThat(SelectorLint.warnings("device.attributes[\"nodeatlas.io\"].type == \"gpu\"")).isEmpty();
  }

  @Test
  void sizeAndCostLimitsAreEnforced() {
    String tooLong = "device.driver == \"" + "x".repeat(DraCelEnvironment.MAX_EXPRESSION_BYTES) + "\"";
    assertThatThrownBy(() -> ENV.compile(tooLong)).hasMessageContaining("at most 10240");
    String list = "[" + java.util.stream.IntStream.range(0, 40).mapToObj(Integer::toString).collect(Collectors.joining(",")) + "]";
    String nested = list + ".all(a, " + list + ".all(b, " + list + ".all(c, " + list + ".all(d, a + b + c + d >= 0))))";
    assertThatThrownBy(() -> ENV.compile(nested)).hasMessageContaining("too complex");
  }

  @Test
  void runtimeCostLimitStopsEvaluation() throws Exception {
    StringBuilder doubling = new StringBuilder();
    int levels = 40;
    for (int i = 1; i <= levels; i++) {
      doubling.append("cel.bind(s").append(i).append(", ").append(i == 1 ? "\"xxxxxxxxxx\"" : "s" + (i - 1) + " + s" + (i - 1)).append(", ");
    }
    doubling.append("s").append(levels).append(".size() > 0").append(")".repeat(levels));
    // cel-go's estimator follows the size of each bound string, so the doubling is refused before it runs.
    assertThatThrownBy(() -> ENV.compile(doubling.toString())).hasMessageContaining("too complex");

    DraCelEnvironment small = new DraCelEnvironment(1000);
    String list = "[" + java.util.stream.IntStream.range(0, 30).mapToObj(Integer::toString).collect(Collectors.joining(",")) + "]";
    SelectorResult loops = small.compile(list + ".all(a, " + list + ".all(b, a + b >= 0))")
        .evaluate(DeviceVariable.of(NODE.get(0), Names.DRIVER));
    assertThat(loops.outcome()).isEqualTo(Outcome.ERROR);
    assertThat(loops.error()).contains("cost limit exceeded (1000)");
  }

  @Test
  void observedValuesExplainTheOutcome() throws Exception {
    SelectorResult r = on("gpu-5", "device.attributes[\"resource.kubernetes.io\"].numaNode == 1 && "
        + "device.attributes[\"nodeatlas.io\"].driverVersion.isGreaterThan(semver(\"560.0.0\"))");
    assertThat(r.outcome()).isEqualTo(Outcome.NO_MATCH);
    assertThat(r.observed()).extracting(SelectorResult.Observed::path, SelectorResult.Observed::value).contains(
        org.assertj.core.groups.Tuple.tuple("device.attributes[\"resource.kubernetes.io\"].numaNode", "1"),
        org.assertj.core.groups.Tuple.tuple("device.attributes[\"nodeatlas.io\"].driverVersion", "semver(\"550.54.15\")"));
  }
}
