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
import io.nodeatlas.discovery.topology.PciTree;
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
  }

  /** A report with every member the document has, each optional one present. */
  static NodeReport everyMember() {
    io.nodeatlas.discovery.model.Quantity one = io.nodeatlas.discovery.model.Quantity.of(1);
    java.util.TreeMap<String, io.nodeatlas.discovery.model.Quantity> counters = new java.util.TreeMap<>(
        Map.of("memory-slice-0", one, "compute-slices", io.nodeatlas.discovery.model.Quantity.of(7)));
    Device gpu = Device.builder("gpu-0", "gpu").attribute(Device.TYPE, "gpu").attribute(Names.ours("smt"), true)
        .attribute(Names.ours("count"), 3).attribute(Names.ours("driverVersion"),
            io.nodeatlas.discovery.model.AttributeValue.version("550.1.0"))
        .attribute(Names.ours("models"), io.nodeatlas.discovery.model.AttributeValue.strings(List.of("b", "a")))
        .capacity(Names.ours("memory"), io.nodeatlas.discovery.model.Quantity.parse("80Gi"),
            io.nodeatlas.discovery.model.RequestPolicy.range(one, one, io.nodeatlas.discovery.model.Quantity.of(64), one))
        .capacity(Names.ours("cores"), 8)
        .requestPolicy(Names.ours("cores"), new io.nodeatlas.discovery.model.RequestPolicy(one, java.util.Optional.empty(),
            List.of(one, io.nodeatlas.discovery.model.Quantity.of(2))))
        .allowMultipleAllocations(true)
        .nodeAllocatable("cpu", io.nodeatlas.discovery.model.NodeAllocatableMapping.ofCapacity(Names.ours("memory"), one))
        .nodeAllocatable("memory", io.nodeatlas.discovery.model.NodeAllocatableMapping.perDevice(one))
        .containerEdits(ContainerEdits.builder().env("A=1").env("B=2")
            .deviceNode(new ContainerEdits.DeviceNode("/dev/nvidia0", "/dev/nvidia0", "c", 195L, 0L, 0666, "rw", 0, 0))
            .deviceNode(ContainerEdits.DeviceNode.charDevice("/dev/nvidiactl", 195, 255))
            .mount(new ContainerEdits.Mount("/usr/lib/x", "/usr/lib/y", "bind", List.of("ro", "nosuid")))
            .hook(new ContainerEdits.Hook("createContainer", "/usr/bin/hook", List.of("hook", "run"), List.of("X=1"), 5))
            .netDevice(new ContainerEdits.NetDevice("eth1", "net0"))
            .build())
        .build()
        .withCounters(List.of(new io.nodeatlas.discovery.model.CounterSet("gpu-0", counters)),
            List.of(new io.nodeatlas.discovery.model.CounterConsumption("gpu-0", counters)));
    PciTree.PciNode endpoint = new PciTree.PciNode("0000:01:00.0", PciTree.Kind.ENDPOINT, "0x10de", "0x2330", "0x030200", 0,
        List.of("gpu-0"), List.of());
    PciTree.PciNode port = new PciTree.PciNode("0000:00:01.0", PciTree.Kind.ROOT_PORT, null, null, null, null, List.of(),
        List.of(endpoint));
    PciTree pci = new PciTree(List.of(new PciTree.PciNode("pci0000:00", PciTree.Kind.HOST_BRIDGE, null, null, null, 0,
        List.of(), List.of(port))), List.of(new PciTree.PciPair("gpu-0", "nic-0", PciTree.Link.PIX)));
    java.util.TreeMap<Integer, Integer> distances = new java.util.TreeMap<>();
    for (int i = 0; i < 12; i++) {
      distances.put(i, i == 0 ? 10 : 20);
    }
    Topology topology = new Topology(
        new Topology.CpuSummary(CpuSet.range(0, 3), CpuSet.of(4), CpuSet.range(0, 4)),
        List.of(new Topology.PackageInfo(0, CpuSet.range(0, 3))),
        List.of(new Topology.DieInfo(0, 0, CpuSet.range(0, 3))),
        List.of(new Topology.ClusterInfo(0, 0, CpuSet.range(0, 3))),
        List.of(new Topology.CoreInfo(0, 0, 0, CpuSet.of(0, 2), "performance")),
        List.of(new Topology.CacheInfo(3, Topology.CacheType.UNIFIED, 33554432, CpuSet.range(0, 3))),
        List.of(new Topology.NumaNodeInfo(0, CpuSet.range(0, 3), 1024L, 512L, distances,
                List.of(new Topology.HugepagePool(2097152, 4, 3, 1L, 0))),
            new Topology.NumaNodeInfo(1, CpuSet.EMPTY, 2048L, 1024L, distances, List.of(), 4, List.of(0), CpuSet.range(0, 3))),
        List.of(new Topology.HugepageSize(2097152, 4, 3, 1L, 0, List.of("/dev/hugepages"))),
        pci);
    return new NodeReport("v1", new HostInfo("node-1", "6.8.0", "/host"), topology, List.of(gpu),
        List.of(new DiscoveryWarning("gpu", "one")), Map.of("gpu", SourceStatus.OK, "cpu-numa", SourceStatus.OK));
  }

  @Test
  void everyMemberIsWrittenInTheMappersOrderAndReadBack() throws Exception {
    NodeReport report = everyMember();
    String json = codec.toJson(report);
    // The writer emits members in sorted order by hand: a mapper that sorts the same tree agrees.
    assertThat(json).isEqualTo(mapperJson(codec.toTree(report)));
    for (String member : List.of("allowMultipleAllocations", "consumesCounters", "sharedCounters", "requestPolicies",
        "validRange", "validValues", "nodeAllocatableResources", "capacityKey", "deviceMultiplier", "deviceNodes",
        "hooks", "mounts", "netDevices", "options", "timeout", "clusters", "memoryOnly", "memoryTier", "initiatorCpus",
        "initiatorNodes", "reserved", "pci", "children", "classCode", "pairs", "strings", "version", "bool", "hostRoot")) {
      assertThat(json).as(member).contains("\"" + member + "\" : ");
    }
    // Distances are keyed by the node id's text, sorted as text.
    assertThat(json.indexOf("\"10\" : 20")).isLessThan(json.indexOf("\"2\" : 20"));
    assertThat(codec.fromJson(json)).isEqualTo(report);
  }
}
