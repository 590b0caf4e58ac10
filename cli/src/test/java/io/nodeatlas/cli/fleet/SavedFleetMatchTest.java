package io.nodeatlas.cli.fleet;

import static io.nodeatlas.cli.testing.NodeAtlasRun.run;
import static org.assertj.core.api.Assertions.assertThat;

import io.nodeatlas.cli.testing.NodeAtlasRun.Result;
import io.nodeatlas.cli.testing.Repo;
import java.nio.file.Files;
import java.nio.file.Path;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/** {@code nodeatlas match --discovered} over several saved nodes: files, directories and slice lists. */
class SavedFleetMatchTest {

  static final Path ROOT = Repo.root();
  static final Path NODES = ROOT.resolve("examples/nodes");
  static final String CLASSES = ROOT.resolve("deploy/deviceclasses.yaml").toString();

  @TempDir Path dir;

  /** The two saved nodes these verdicts are about (examples/nodes holds more for other stories). */
  Path fleet;

  @org.junit.jupiter.api.BeforeEach
  void twoNodes() throws java.io.IOException {
    fleet = Files.createDirectories(dir.resolve("fleet"));
    for (String node : new String[] {"hgx-01.json", "arm-01.json"}) {
      Files.copy(NODES.resolve(node), fleet.resolve(node));
    }
  }

  @Test
  void aDirectoryOfNodesGivesOneVerdictEachFittingFirstUnderTheSummary() {
    Result r = run("match", "-f", CLASSES, "-f", ROOT.resolve("examples/cpu/claim-arm64.yaml").toString(),
        "--discovered", fleet.toString());
    assertThat(r.status()).as(r.err()).isZero();
    assertThat(r.out().lines().toList()).containsExactly(
        "1 of 2 nodes fit: arm-01",
        "NODE    FITS  DEVICES, OR WHY NOT",
        "arm-01  yes   cpus -> cpu-numa0 (8 nodeatlas.io/cpu, 72 of 80 left)",
        "hgx-01  no    ResourceClaim arm64-cpus: request cpus needs 1 device, this node has 0 matching devices "
            + "(DeviceClass nodeatlas-cpu-arm64 admits none of its 19 devices)");
  }

  @Test
  void noNodeFitsIsExitOneAndJsonKeepsExactBytes() {
    Result r = run("match", "-f", CLASSES, "-f", ROOT.resolve("examples/hugepages/claim-near-nic.yaml").toString(),
        "--discovered", NODES.resolve("hgx-01.json").toString(), NODES.resolve("arm-01.json").toString(), "-o", "json");
    assertThat(r.status()).isZero();
    assertThat(r.out()).contains("\"summary\" : \"1 of 2 nodes fit: hgx-01\"").contains("\"amount\" : \"1073741824\"");
    Result none = run("match", "-f", CLASSES, "-f", ROOT.resolve("examples/hugepages/claim-too-much.yaml").toString(),
        "--discovered", fleet.toString());
    assertThat(none.status()).isEqualTo(1);
    assertThat(none.out()).startsWith("0 of 2 nodes fit\n");
  }

  @Test
  void savedSlicesOfOurDriverAreNodesToo() throws Exception {
    Result slices = run("slices", "--discovered", NODES.resolve("arm-01.json").toString(), "-o", "json");
    Path saved = Files.writeString(dir.resolve("arm-01-slices.json"), slices.out());
    Result r = run("match", "-f", CLASSES, "-f", ROOT.resolve("examples/cpu/claim-arm64.yaml").toString(),
        "--discovered", saved.toString(), NODES.resolve("hgx-01.json").toString());
    assertThat(r.out()).as(r.err()).startsWith("1 of 2 nodes fit: arm-01\n")
        .contains("arm-01  yes   cpus -> cpu-numa0 (8 nodeatlas.io/cpu, 72 of 80 left)");
  }

  @Test
  void aSavedListWithSortedKeysAClaimAndABadDeviceReadsItemByItem() throws Exception {
    // kubectl-style list: every object's keys sorted (the driver after the devices, status before metadata),
    // one allocated claim holding 8 CPUs of arm-01, and one device whose name the API would refuse.
    Result slices = run("slices", "--discovered", NODES.resolve("arm-01.json").toString(), "-o", "json");
    var json = new com.fasterxml.jackson.databind.ObjectMapper();
    var list = (com.fasterxml.jackson.databind.node.ObjectNode) json.readTree(slices.out());
    var items = (com.fasterxml.jackson.databind.node.ArrayNode) list.get("items");
    var slice = items.get(0);
    String pool = slice.path("spec").path("pool").path("name").asText();
    var devices = (com.fasterxml.jackson.databind.node.ArrayNode) slice.path("spec").path("devices");
    devices.add(((com.fasterxml.jackson.databind.node.ObjectNode) devices.get(0).deepCopy()).put("name", "BAD_NAME"));
    items.add(json.readTree("""
        {"apiVersion": "resource.k8s.io/v1", "kind": "ResourceClaim", "metadata": {"name": "held", "namespace": "ci"},
         "status": {"allocation": {"devices": {"results": [{"request": "r", "driver": "nodeatlas.io", "pool": "%s",
           "device": "cpu-numa0", "consumedCapacity": {"nodeatlas.io/cpu": "8"}}]}}}}
        """.formatted(pool)));
    Object plain = json.convertValue(list, Object.class);
    Path saved = Files.writeString(dir.resolve("arm-01-sorted.json"), json.copy()
        .enable(com.fasterxml.jackson.databind.SerializationFeature.ORDER_MAP_ENTRIES_BY_KEYS).writeValueAsString(plain));
    assertThat(Files.readString(saved).indexOf("\"driver\"")).as("sorted: the driver follows the devices")
        .isGreaterThan(Files.readString(saved).indexOf("\"devices\""));
    Result r = run("match", "-f", CLASSES, "-f", ROOT.resolve("examples/cpu/claim-arm64.yaml").toString(),
        "--discovered", saved.toString(), NODES.resolve("hgx-01.json").toString());
    assertThat(r.out()).as(r.err()).startsWith("1 of 2 nodes fit: arm-01\n")
        .contains("arm-01  yes   cpus -> cpu-numa0 (8 nodeatlas.io/cpu, 64 of 80 left)");
    assertThat(r.out()).contains("warning: ResourceSlice " + slice.path("metadata").path("name").asText() + " device BAD_NAME: left out: "
        + "device name \"BAD_NAME\" is not a DNS label");
  }

  @Test
  void aBadFileIsOneUsageError() throws Exception {
    Files.copy(NODES.resolve("arm-01.json"), dir.resolve("arm-01.json"));
    Files.writeString(dir.resolve("broken.json"), "{\"schemaVersion\": \"v0\"}");
    Result r = run("match", "-f", CLASSES, "-f", ROOT.resolve("examples/cpu/claim-arm64.yaml").toString(),
        "--discovered", dir.toString());
    assertThat(r.status()).isEqualTo(2);
    assertThat(r.err()).startsWith("nodeatlas: --discovered " + dir.resolve("broken.json") + ": ")
        .contains("unsupported schemaVersion");
  }

  Path pod(String spec) throws Exception {
    return Files.writeString(dir.resolve("pod.yaml"), """
        apiVersion: v1
        kind: Pod
        metadata: {name: trainer}
        spec:
        %s
        """.formatted((spec.contains("containers:") ? spec : spec + "\ncontainers: [{name: main, image: busybox}]")
        .indent(2).stripTrailing()));
  }

  @Test
  void aPodFitsWhereAllItsClaimsFitTogether() throws Exception {
    String cpus = ROOT.resolve("examples/cpu/claim-intel.yaml").toString();
    String arm = ROOT.resolve("examples/cpu/claim-arm64.yaml").toString();
    String pages = ROOT.resolve("examples/hugepages/claim-near-nic.yaml").toString();
    Path both = pod("resourceClaims: [{name: cpus, resourceClaimName: intel-cpus}, {name: pages, resourceClaimName: pages-near-nic}]");
    Result r = run("match", "-f", CLASSES, "-f", cpus, "-f", arm, "-f", pages, "-f", both.toString(), "--discovered", fleet.toString());
    assertThat(r.out()).as(r.err()).startsWith("1 of 2 nodes fit: hgx-01\n")
        .contains("hgx-01  yes   ResourceClaim intel-cpus: cpus -> cpu-numa0 (4 nodeatlas.io/cpu, 60 of 64 left); "
            + "ResourceClaim pages-near-nic: nic -> rdma-mlx5-0; ResourceClaim pages-near-nic: pages -> hugepages-2mi-numa0 "
            + "(1Gi nodeatlas.io/memory, 7Gi of 8Gi left)")
        // The Arm claim in the files is not the pod's: it is not matched.
        .doesNotContain("arm64-cpus");
    Path split = pod("resourceClaims: [{name: cpus, resourceClaimName: arm64-cpus}, {name: pages, resourceClaimName: pages-near-nic}]");
    Result none = run("match", "-f", CLASSES, "-f", arm, "-f", pages, "-f", split.toString(), "--discovered", fleet.toString());
    assertThat(none.status()).isEqualTo(1);
    assertThat(none.out()).startsWith("0 of 2 nodes fit\n")
        .contains("arm-01  no    ResourceClaim pages-near-nic: request nic needs 1 device")
        .contains("hgx-01  no    ResourceClaim arm64-cpus: request cpus needs 1 device");
  }

  @Test
  void aPodsNodeNameAndNodeSelectorComeFirst() throws Exception {
    String cpus = ROOT.resolve("examples/cpu/claim-intel.yaml").toString();
    Path pinned = pod("nodeName: arm-01\nresourceClaims: [{name: cpus, resourceClaimName: intel-cpus}]");
    assertThat(run("match", "-f", CLASSES, "-f", cpus, "-f", pinned.toString(), "--discovered", fleet.toString()).out())
        .contains("hgx-01  no    the pod's nodeName is arm-01");
    Path selecting = pod("nodeSelector: {disktype: ssd}\nresourceClaims: [{name: cpus, resourceClaimName: intel-cpus}]");
    Result r = run("match", "-f", CLASSES, "-f", cpus, "-f", selecting.toString(), "--discovered", fleet.toString());
    assertThat(r.out()).contains("hgx-01  no    the pod's nodeSelector disktype=ssd does not match (no such label)")
        .contains("warning: saved discover documents carry no node labels");
  }

  @Test
  void aPodsRequiredNodeAffinityRefusesTheNodesNoTermSelects() throws Exception {
    String cpus = ROOT.resolve("examples/cpu/claim-intel.yaml").toString();
    // Terms are ORed: the first names no node here, the second every node but hgx-01 by its name.
    Path away = pod("""
        affinity: {nodeAffinity: {requiredDuringSchedulingIgnoredDuringExecution: {nodeSelectorTerms: [
          {matchExpressions: [{key: kubernetes.io/hostname, operator: In, values: [gpu-99]}]},
          {matchFields: [{key: metadata.name, operator: NotIn, values: [hgx-01]}]}]}}}
        resourceClaims: [{name: cpus, resourceClaimName: intel-cpus}]""");
    Result r = run("match", "-f", CLASSES, "-f", cpus, "-f", away.toString(), "--discovered", fleet.toString());
    assertThat(r.status()).isEqualTo(1);
    assertThat(r.out()).contains("hgx-01  no    the pod's required node affinity selects no term that matches this node")
        .contains("arm-01  no    ResourceClaim intel-cpus");
    Path toward = pod("""
        affinity: {nodeAffinity: {requiredDuringSchedulingIgnoredDuringExecution: {nodeSelectorTerms: [
          {matchExpressions: [{key: kubernetes.io/hostname, operator: Exists}]}]}}}
        resourceClaims: [{name: cpus, resourceClaimName: intel-cpus}]""");
    assertThat(run("match", "-f", CLASSES, "-f", cpus, "-f", toward.toString(), "--discovered", fleet.toString()).out())
        .startsWith("1 of 2 nodes fit: hgx-01\n");
    Path bad = pod("""
        affinity: {nodeAffinity: {requiredDuringSchedulingIgnoredDuringExecution: {nodeSelectorTerms: [
          {matchExpressions: [{key: zone, operator: Near, values: [a]}]}]}}}
        resourceClaims: [{name: cpus, resourceClaimName: intel-cpus}]""");
    Result refused = run("match", "-f", CLASSES, "-f", cpus, "-f", bad.toString(), "--discovered", fleet.toString());
    assertThat(refused.status()).isEqualTo(2);
    assertThat(refused.err()).contains("requiredDuringSchedulingIgnoredDuringExecution: operator \"Near\" of zone is none of");
  }

  @Test
  void aPodsExtendedResourceIsServedByItsDeviceClass() throws Exception {
    Path classes = Files.writeString(dir.resolve("class.yaml"), """
        apiVersion: resource.k8s.io/v1
        kind: DeviceClass
        metadata: {name: gpus}
        spec:
          extendedResourceName: example.com/gpu
          selectors: [{cel: {expression: 'device.attributes["nodeatlas.io"].type == "gpu"'}}]
        """);
    Path two = pod("containers: [{name: a, image: x, resources: {limits: {example.com/gpu: 1}}},\n"
        + "  {name: b, image: x, resources: {requests: {example.com/gpu: 1, cpu: 2}}}]");
    Result r = run("match", "-f", classes.toString(), "-f", two.toString(), "--discovered", fleet.toString());
    assertThat(r.out()).as(r.err()).startsWith("1 of 2 nodes fit: hgx-01\n").contains("hgx-01  yes   container-0-request-0 -> gpu-0; container-1-request-1 -> gpu-1");
    Path nine = pod("containers: [{name: a, image: x, resources: {limits: {deviceclass.resource.kubernetes.io/gpus: 9}}}]");
    assertThat(run("match", "-f", classes.toString(), "-f", nine.toString(), "--discovered", fleet.toString()).out())
        .contains("hgx-01  no    ResourceClaim trainer-extended-resources: request container-0-request-0 needs 9 devices, this node has 8 "
            + "matching devices");
  }

  @Test
  void eachNodeShowsItsFirstBlockingReasonAndExplainShowsEveryDevice() {
    String nicAndPages = ROOT.resolve("examples/fleet/claim-nic-and-pages.yaml").toString();
    // h200-mig has neither a NIC nor hugepages: its line names the first request alone.
    Result r = run("match", "-f", CLASSES, "-f", nicAndPages, "--discovered", NODES.resolve("h200-mig.json").toString(),
        NODES.resolve("hgx-01.json").toString());
    assertThat(r.status()).as(r.err()).isZero();
    assertThat(r.out().lines().toList()).containsExactly(
        "1 of 2 nodes fit: hgx-01",
        "NODE      FITS  DEVICES, OR WHY NOT",
        "hgx-01    yes   nic -> rdma-mlx5-0; pages -> hugepages-2mi-numa0 (2Gi nodeatlas.io/memory, 6Gi of 8Gi left)",
        "h200-mig  no    ResourceClaim default/nic-and-pages: request nic needs 1 device, this node has 0 matching devices "
            + "(DeviceClass nodeatlas-rdma admits none of its 26 devices)");
    // The claim's own verdict keeps every reason, as match says for the node alone.
    Result json = run("match", "-f", CLASSES, "-f", nicAndPages, "--discovered", NODES.resolve("h200-mig.json").toString(),
        NODES.resolve("hgx-01.json").toString(), "-o", "json");
    assertThat(json.out()).contains("\"reason\" : \"ResourceClaim default/nic-and-pages: request nic needs 1 device, this node "
        + "has 0 matching devices (DeviceClass nodeatlas-rdma admits none of its 26 devices)\"")
        .contains("; request pages needs 1 device");

    // --explain: under the node that does not fit, the single-node report with the per-device reasons.
    String cpus48 = ROOT.resolve("examples/fleet/claim-48-cpus.yaml").toString();
    Path cpu01 = ROOT.resolve("examples/fleet/nodes/cpu-01.json");
    Result explained = run("match", "-f", CLASSES, "-f", cpus48, "--discovered", cpu01.toString(),
        NODES.resolve("arm-01.json").toString(), "--explain");
    Result alone = run("match", "-f", CLASSES, "-f", cpus48, "--discovered", cpu01.toString(), "--explain");
    assertThat(alone.out()).contains("cpu-numa0: capacity request nodeatlas.io/cpu requested 48");
    assertThat(explained.out()).as(explained.err()).startsWith("1 of 2 nodes fit: arm-01\n")
        .contains("cpu-01  no    ResourceClaim default/cpus-48: request cpus needs 1 device, this node has 0 matching devices "
            + "(cpu-numa0: capacity request nodeatlas.io/cpu requested 48 of nodeatlas.io/cpu: above the request policy's "
            + "maximum 32)\n" + alone.out().lines().map(l -> l.isEmpty() ? "" : "    " + l)
            .collect(java.util.stream.Collectors.joining("\n", "", "\n")));
    // Without --explain, no per-device lines.
    assertThat(run("match", "-f", CLASSES, "-f", cpus48, "--discovered", cpu01.toString(), NODES.resolve("arm-01.json").toString())
        .out()).doesNotContain("per device");
  }
}
