package io.nodeatlas.match.fleet;

import static org.assertj.core.api.Assertions.assertThat;

import io.nodeatlas.discovery.model.Device;
import io.nodeatlas.discovery.model.Quantity;
import io.nodeatlas.discovery.model.RequestPolicy;
import io.nodeatlas.match.Amounts;
import io.nodeatlas.match.ClaimMatcher;
import io.nodeatlas.match.Inventory;
import io.nodeatlas.match.MatchReport;
import io.nodeatlas.match.cel.DraCelEnvironment;
import io.nodeatlas.match.claims.ClaimDocumentParser;
import io.nodeatlas.match.claims.ClaimModel.Documents;
import io.nodeatlas.match.fleet.FleetReport.ClaimVerdict;
import io.nodeatlas.match.fleet.FleetReport.NodeVerdict;
import java.math.BigDecimal;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.function.IntFunction;
import org.junit.jupiter.api.Test;

/**
 * The fleet matches each node shape once: the verdict of every node must still be what {@code match} says
 * for that node alone, also where nodes differ only in what the shape leaves out (the names of the claims
 * that hold devices), in what only a constraint reads, in a device taint, or in the names a selector error's
 * did-you-mean reads.
 */
class FleetShapeTest {

  static final String CLASSES = """
      apiVersion: resource.k8s.io/v1
      kind: DeviceClass
      metadata: {name: gpu}
      spec:
        selectors:
        - cel: {expression: 'device.driver == "nodeatlas.io" && device.attributes["nodeatlas.io"].type == "gpu"'}
      ---
      apiVersion: resource.k8s.io/v1
      kind: DeviceClass
      metadata: {name: cpu}
      spec:
        selectors:
        - cel: {expression: 'device.attributes["nodeatlas.io"].type == "cpu"'}
      """;

  static Documents documents(String claim) throws Exception {
    ClaimDocumentParser parser = new ClaimDocumentParser();
    return ClaimDocumentParser.merge(List.of(parser.parse("classes.yaml", CLASSES), parser.parse("claim.yaml", claim)));
  }

  static Device gpu(int i, int numa, String uuid, String extraName) {
    Device.Builder b = Device.builder("gpu-" + i, "nodeatlas.io").attribute("nodeatlas.io/type", "gpu")
        .attribute("nodeatlas.io/uuid", uuid).attribute("resource.kubernetes.io/numaNode", numa)
        .capacity("nodeatlas.io/memory", Quantity.of(80L << 30));
    if (extraName != null) {
      b.attribute("nodeatlas.io/" + extraName, "x");
    }
    return b.build();
  }

  static Device cpu(int numa) {
    return Device.builder("cpu-numa" + numa, "nodeatlas.io").attribute("nodeatlas.io/type", "cpu")
        .attribute("resource.kubernetes.io/numaNode", numa)
        .capacity("nodeatlas.io/cpu", Quantity.of(64), RequestPolicy.range(Quantity.of(1), Quantity.of(1), null, null))
        .allowMultipleAllocations(true).build();
  }

  /** {@code count} nodes of 4 GPUs (2 per NUMA node) and 2 CPU pools, each made by {@code node}. */
  static List<FleetNode> fleet(int count, IntFunction<Inventory> node) {
    List<FleetNode> out = new ArrayList<>();
    for (int n = 0; n < count; n++) {
      String name = String.format("node-%02d", n);
      out.add(new FleetNode(name, Map.of("kubernetes.io/hostname", name), List.of(), node.apply(n)));
    }
    return out;
  }

  static List<Device> devices(int n, String extraName) {
    List<Device> out = new ArrayList<>();
    for (int i = 0; i < 4; i++) {
      out.add(gpu(i, i / 2, "GPU-" + n + "-" + i, extraName));
    }
    out.add(cpu(0));
    out.add(cpu(1));
    return out;
  }

  /** What the fleet says, next to what {@code match} says for each node alone (a matcher of its own). */
  static void assertFleetEqualsMatchNodeByNode(List<FleetNode> nodes, Documents documents) throws Exception {
    FleetReport fleet = new FleetMatcher(new ClaimMatcher(new DraCelEnvironment(), Amounts.HUMAN, false))
        .match(nodes, documents, FleetMatcher.Placement.ANY, new ArrayList<>());
    List<NodeVerdict> alone = new ArrayList<>();
    for (FleetNode node : nodes) {
      MatchReport report = new ClaimMatcher(new DraCelEnvironment(), Amounts.HUMAN, true)
          .match(node.name(), node.inventory(), documents);
      List<ClaimVerdict> claims = new ArrayList<>();
      String reason = null;
      for (MatchReport.ClaimReport c : report.claims()) {
        claims.add(new ClaimVerdict(c.displayName(), c.satisfiable(), c.reason(), c.allocation(), c.consumed()));
        reason = reason == null && !c.satisfiable() ? c.displayName() + ": " + c.firstReason() : reason;
      }
      alone.add(new NodeVerdict(node.name(), reason == null, reason, claims));
    }
    alone.sort(java.util.Comparator.comparing((NodeVerdict v) -> !v.fits()).thenComparing(NodeVerdict::node));
    assertThat(fleet.verdicts()).containsExactlyElementsOf(alone);
  }

  static final String TWO_GPUS = """
      apiVersion: resource.k8s.io/v1
      kind: ResourceClaim
      metadata: {name: trainer, namespace: ml}
      spec: {devices: {requests: [{name: gpus, exactly: {deviceClassName: gpu, count: 2}}]}}
      """;

  @Test
  void aVerdictThatNamesTheHoldingClaimsIsEachNodesOwn() throws Exception {
    // Every node: the same devices, GPUs 0-2 held by claims named after the node: the sentence says by whom.
    List<FleetNode> nodes = fleet(80, n -> new Inventory(devices(n, null), Map.of(), Map.of(), List.of(
        new Inventory.Held("gpu-0", "ml/job-" + n, Map.of()), new Inventory.Held("gpu-1", "ml/job-" + n, Map.of()),
        new Inventory.Held("gpu-2", "ml/other-" + n, Map.of()))));
    Documents documents = documents(TWO_GPUS);

    assertFleetEqualsMatchNodeByNode(nodes, documents);
    FleetReport fleet = new FleetMatcher(new ClaimMatcher(new DraCelEnvironment(), Amounts.HUMAN, false))
        .match(nodes, documents, FleetMatcher.Placement.ANY, new ArrayList<>());
    assertThat(fleet.verdicts()).allSatisfy(v -> assertThat(v.reason())
        .contains("is allocated to ml/job-" + Integer.parseInt(v.node().substring(5))));
  }

  @Test
  void nodesOfFewShapesGetTheVerdictsOfEachNodeAlone() throws Exception {
    // Three shapes by what is held (none, GPU 0, both GPUs of NUMA node 0 and 24 CPUs there), unique uuids.
    List<FleetNode> nodes = fleet(90, n -> new Inventory(devices(n, null), Map.of(), Map.of(), switch (n % 3) {
      case 0 -> List.of();
      case 1 -> List.of(new Inventory.Held("gpu-0", "ml/a-" + n, Map.of()));
      default -> List.of(new Inventory.Held("gpu-0", "ml/a-" + n, Map.of()), new Inventory.Held("gpu-1", "ml/b-" + n,
          Map.of()), new Inventory.Held("cpu-numa0", "ml/c-" + n, Map.of("nodeatlas.io/cpu", new BigDecimal(24))));
    }));

    assertFleetEqualsMatchNodeByNode(nodes, documents("""
        apiVersion: resource.k8s.io/v1
        kind: ResourceClaim
        metadata: {name: trainer, namespace: ml}
        spec:
          devices:
            requests:
            - {name: gpus, exactly: {deviceClassName: gpu, count: 2}}
            - {name: cpus, exactly: {deviceClassName: cpu, capacity: {requests: {nodeatlas.io/cpu: "48"}}}}
            constraints:
            - matchAttribute: resource.kubernetes.io/numaNode
        """));
  }

  @Test
  void anAttributeOnlyAConstraintReadsTellsNodesApart() throws Exception {
    // Even nodes: the 4 GPUs' uuids are two pairs of equal values, which distinctAttribute cannot use.
    List<FleetNode> nodes = fleet(70, n -> {
      List<Device> devices = new ArrayList<>();
      for (int i = 0; i < 4; i++) {
        devices.add(gpu(i, 0, n % 2 == 0 ? "GPU-" + (i / 2) : "GPU-" + i, null));
      }
      return new Inventory(devices, Map.of(), Map.of(), List.of());
    });

    assertFleetEqualsMatchNodeByNode(nodes, documents("""
        apiVersion: resource.k8s.io/v1
        kind: ResourceClaim
        metadata: {name: trainer, namespace: ml}
        spec:
          devices:
            requests: [{name: gpus, exactly: {deviceClassName: gpu, count: 3}}]
            constraints: [{distinctAttribute: nodeatlas.io/uuid}]
        """));
  }

  @Test
  void aDeviceTaintTellsNodesApart() throws Exception {
    List<FleetNode> nodes = fleet(70, n -> new Inventory(devices(n, null), Map.of(), n % 2 == 0
        ? Map.of("gpu-1", List.of(new Inventory.DeviceTaint("example.com/ecc", "", "NoSchedule")),
            "gpu-2", List.of(new Inventory.DeviceTaint("example.com/ecc", "", "NoSchedule")),
            "gpu-3", List.of(new Inventory.DeviceTaint("example.com/ecc", "", "NoSchedule")))
        : Map.of(), List.of()));

    assertFleetEqualsMatchNodeByNode(nodes, documents(TWO_GPUS));
  }

  @Test
  void aSelectorErrorsDidYouMeanIsEachNodesOwn() throws Exception {
    // The selector misspells "model"; half the nodes publish "model" (read by nothing else), half "colour".
    List<FleetNode> nodes = fleet(70, n -> new Inventory(devices(n, n % 2 == 0 ? "model" : "colour"), Map.of(),
        Map.of(), List.of()));

    assertFleetEqualsMatchNodeByNode(nodes, documents("""
        apiVersion: resource.k8s.io/v1
        kind: ResourceClaim
        metadata: {name: trainer, namespace: ml}
        spec:
          devices:
            requests:
            - name: gpus
              exactly:
                deviceClassName: gpu
                selectors: [{cel: {expression: 'device.attributes["nodeatlas.io"].modle == "x"'}}]
        """));
  }
}
