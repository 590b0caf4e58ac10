package io.nodeatlas.discovery.report;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import com.code_intelligence.jazzer.junit.FuzzTest;
import com.code_intelligence.jazzer.mutation.annotation.NotNull;
import io.nodeatlas.discovery.model.ContainerEdits;
import io.nodeatlas.discovery.model.Device;
import io.nodeatlas.discovery.model.Names;
import io.nodeatlas.discovery.report.DiscoveryWarning;
import io.nodeatlas.discovery.topology.CpuSet;
import io.nodeatlas.discovery.topology.Topology;
import java.util.List;
import java.util.Map;
import java.util.TreeMap;
import org.junit.jupiter.api.Test;

class NodeReportCodecTest {

  private final NodeReportCodec codec = new NodeReportCodec();

  static NodeReport sample() {
    Topology topology = new Topology(
        new Topology.CpuSummary(CpuSet.range(0, 3), CpuSet.EMPTY, CpuSet.range(0, 3)),
        List.of(new Topology.PackageInfo(0, CpuSet.range(0, 3))),
        List.of(new Topology.DieInfo(0, 0, CpuSet.range(0, 3))),
        List.of(),
        List.of(new Topology.CoreInfo(0, 0, 1, CpuSet.of(1, 3), null), new Topology.CoreInfo(0, 0, 0, CpuSet.of(0, 2), null)),
        List.of(new Topology.CacheInfo(3, Topology.CacheType.UNIFIED, 33554432, CpuSet.range(0, 3)),
            new Topology.CacheInfo(1, Topology.CacheType.DATA, 49152, CpuSet.of(0, 2))),
        List.of(new Topology.NumaNodeInfo(0, CpuSet.range(0, 3), 1024L, 512L, new TreeMap<>(Map.of(0, 10)),
            List.of(new Topology.HugepagePool(2097152, 4, 3, null, 0)))),
        List.of(new Topology.HugepageSize(2097152, 4, 3, 0L, 0, List.of("/dev/hugepages"))));
    Device hugepages = Device.builder("hugepages-2mi-numa0", "cpu-numa")
        .attribute(Device.TYPE, "hugepages").attribute(Names.NUMA_NODE, 0).capacity(Names.ours("pages"), 4)
        .containerEdits(ContainerEdits.builder()
            .mount(new ContainerEdits.Mount("/dev/hugepages", "/dev/hugepages", "hugetlbfs", List.of("pagesize=2M")))
            .build())
        .build();
    Device cpu = Device.builder("cpu-numa0", "cpu-numa").attribute(Device.TYPE, "cpu").attribute(Names.ours("smt"), true)
        .attribute(Names.ours("driverVersion"), io.nodeatlas.discovery.model.AttributeValue.version("1.2.3"))
        .capacity(Names.ours("cpu"), 4).build();
    return new NodeReport("v1", new HostInfo("node-1", "6.8.0", "/"), topology, List.of(hugepages, cpu),
        List.of(new DiscoveryWarning("gpu", "source unavailable: no NVML")), Map.of("cpu-numa", SourceStatus.OK,
        "gpu", new SourceStatus(SourceStatus.State.UNAVAILABLE, "")));
  }

  @Test
  void jsonHasTheDocumentedShapeWithSortedKeys() {
    String json = codec.toJson(sample());
    assertThat(json).startsWith("{\n  \"devices\" : [");
    assertThat(json).contains("\"schemaVersion\" : \"v1\"");
    assertThat(json).contains("\"resource.kubernetes.io/numaNode\" : {\n        \"int\" : 0\n      }");
    assertThat(json).contains("\"nodeatlas.io/cpu\" : \"4\"");
    assertThat(json).contains("\"online\" : \"0-3\"");
    assertThat(json).contains("\"type\" : \"unified\"");
    // Devices are sorted by name, whatever order the sources gave.
    assertThat(json.indexOf("cpu-numa0")).isLessThan(json.indexOf("hugepages-2mi-numa0"));
    // No nulls: the core without a hybrid type has no "type" member.
    assertThat(json).doesNotContain("null");
  }

  @Test
  void outputIsByteStable() {
    assertThat(codec.toJson(sample())).isEqualTo(codec.toJson(sample()));
    assertThat(codec.toYaml(sample())).isEqualTo(codec.toYaml(sample()));
  }

  @Test
  void jsonRoundTrips() {
    NodeReport original = sample();
    NodeReport back = codec.fromJson(codec.toJson(original));
    assertThat(back).isEqualTo(original);
  }

  @Test
  void yamlQuotesNumericStrings() {
    String yaml = codec.toYaml(sample());
    assertThat(yaml).contains("nodeatlas.io/cpu: \"4\"").contains("schemaVersion: v1");
  }

  @Test
  void rejectsOtherDocumentsClearly() {
    assertThatThrownBy(() -> codec.fromJson("[]")).hasMessageContaining("expected a JSON object");
    assertThatThrownBy(() -> codec.fromJson("{\"schemaVersion\":\"v9\"}")).hasMessageContaining("unsupported schemaVersion");
    assertThatThrownBy(() -> codec.fromJson("{")).hasMessageContaining("not a nodeatlas discover document");
    assertThatThrownBy(() -> codec.fromJson(
        "{\"schemaVersion\":\"v1\",\"devices\":[{\"name\":\"d\",\"source\":\"s\",\"attributes\":{\"a\":{\"int\":1,\"bool\":true}}}]}"))
        .hasMessageContaining("exactly one of int, bool, string, version");
  }

  @FuzzTest
  void readingArbitraryTextFailsOnlyWithIllegalArgument(@NotNull String text) {
    try {
      codec.fromJson(text);
    } catch (IllegalArgumentException expected) {
      // documented: every malformed document is an IllegalArgumentException with a reason
    }
  }

  @Test
  void sharingAndRequestPoliciesRoundTrip() {
    io.nodeatlas.discovery.model.RequestPolicy cpus = io.nodeatlas.discovery.model.RequestPolicy.range(
        io.nodeatlas.discovery.model.Quantity.of(1), io.nodeatlas.discovery.model.Quantity.of(1),
        io.nodeatlas.discovery.model.Quantity.of(64), io.nodeatlas.discovery.model.Quantity.of(1));
    Device shared = Device.builder("cpu-numa0", "cpu-numa").attribute(Device.TYPE, "cpu")
        .capacity(Names.ours("cpu"), io.nodeatlas.discovery.model.Quantity.of(64), cpus)
        .allowMultipleAllocations(true).build();
    NodeReport report = new NodeReport("v1", new HostInfo("n", "k", "/"), Topology.EMPTY, List.of(shared), List.of(),
        Map.of("cpu-numa", SourceStatus.OK));
    String json = codec.toJson(report);
    assertThat(json).contains("\"allowMultipleAllocations\" : true")
        .contains("\"requestPolicies\" : {");
    Device back = codec.fromJson(json).devices().get(0);
    assertThat(back).isEqualTo(shared);
  }

  /** What the mapper of {@link NodeReportCodec#newJsonMapper()} writes for the same tree: the reference. */
  static String mapperJson(com.fasterxml.jackson.databind.JsonNode tree) throws Exception {
    return NodeReportCodec.newJsonMapper().writeValueAsString(tree) + "\n";
  }

  @Test
  void streamingJsonIsTheMappersByteForByte() throws Exception {
    assertThat(codec.toJson(sample())).isEqualTo(mapperJson(codec.toTree(sample())));
  }

  @Test
  void streamingJsonEscapesAndNumbersAsTheMapperDoes() throws Exception {
    // Text a host can put in a name or a warning: quotes, backslashes, control characters, non-ASCII,
    // characters outside the BMP; numbers at the ends of their range; empty objects and arrays.
    String hostile = "q\"b\\s\u0000\u0007\t\n\u001f\u007f é 中 \uD83D\uDE00 </script> ${x} %s";
    Device device = Device.builder("dev-" + "x", "s").attribute(Device.TYPE, hostile)
        .attribute(Names.ours("big"), Long.MAX_VALUE).attribute(Names.ours("small"), Long.MIN_VALUE)
        .attribute(Names.ours("off"), false).build();
    NodeReport report = new NodeReport("v1", new HostInfo(hostile, null, "/"), Topology.EMPTY, List.of(device),
        List.of(new DiscoveryWarning("s", hostile)), Map.of());
    assertThat(codec.toJson(report)).isEqualTo(mapperJson(codec.toTree(report)));
    // Any tree, in the order its keys were put, with every kind of value the mapper writes.
    com.fasterxml.jackson.databind.node.ObjectNode tree = com.fasterxml.jackson.databind.node.JsonNodeFactory.instance.objectNode();
    tree.put("z", 1).put("a", 2L).put("m", (String) null).put("b", true).putObject("e");
    tree.putArray("l").add(java.math.BigInteger.TEN.pow(30)).addArray();
    tree.put("f", 1.5).put("d", new java.math.BigDecimal("1e400"));
    tree.putPOJO("p", List.of(1, 2));
    assertThat(codec.toJson(tree)).isEqualTo(mapperJson(tree));
    tree.remove(List.of("f", "d", "p"));
    assertThat(codec.toJson(tree)).isEqualTo(mapperJson(tree));
  }
}
