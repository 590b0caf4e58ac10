package io.nodeatlas.cli.examples;

import static io.nodeatlas.cli.testing.NodeAtlasRun.run;
import static org.assertj.core.api.Assertions.assertThat;

import io.nodeatlas.cli.testing.NodeAtlasRun.Result;
import io.nodeatlas.cli.testing.Repo;
import io.nodeatlas.discovery.topology.PciTree;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import org.junit.jupiter.api.Test;

/**
 * The stories of {@code examples/} as acceptance tests: each example claim runs through
 * {@code nodeatlas match --explain} with the DeviceClasses of {@code deploy/deviceclasses.yaml} against a
 * saved discover document of {@code examples/nodes/}, exactly as its README tells a user to run it, and
 * must fit; each negative variant must not fit, for the reason the README gives.
 */
class ExamplesTest {

  static final Path ROOT = Repo.root();
  static final Path EXAMPLES = ROOT.resolve("examples");
  static final String HGX = "hgx-01.json";
  static final String ARM = "arm-01.json";

  /** {@code nodeatlas match -f deploy/deviceclasses.yaml -f CLAIM... --discovered examples/nodes/NODE --explain}. */
  static Result match(String node, String... claims) {
    List<String> args = new ArrayList<>(List.of("match", "-f", ROOT.resolve("deploy/deviceclasses.yaml").toString()));
    for (String c : claims) {
      args.add("-f");
      args.add(EXAMPLES.resolve(c).toString());
    }
    Path nodeFile = node.contains("/") ? EXAMPLES.resolve(node) : EXAMPLES.resolve("nodes").resolve(node);
    args.addAll(List.of("--discovered", nodeFile.toString(), "--explain"));
    return run(args.toArray(String[]::new));
  }

  @Test
  void theSavedNodesAreCurrent() throws Exception {
    for (Map.Entry<String, String> doc : ExampleNodes.documents().entrySet()) {
      Path file = EXAMPLES.resolve("nodes").resolve(doc.getKey());
      if (Boolean.getBoolean("nodeatlas.examples.write")) {
        Files.createDirectories(file.getParent());
        Files.writeString(file, doc.getValue());
      }
      assertThat(file).as("regenerate with -Dnodeatlas.examples.write=true").hasContent(doc.getValue());
    }
    for (Map.Entry<String, String> doc : ExampleNodes.gpuDocuments().entrySet()) {
      Path file = EXAMPLES.resolve("gpu/nodes").resolve(doc.getKey());
      if (Boolean.getBoolean("nodeatlas.examples.write")) {
        Files.createDirectories(file.getParent());
        Files.writeString(file, doc.getValue());
      }
      assertThat(file).as("regenerate with -Dnodeatlas.examples.write=true").hasContent(doc.getValue());
    }
  }

  static Result fits(String node, String... claims) {
    Result r = match(node, claims);
    assertThat(r.status()).as(r.out() + r.err()).isZero();
    assertThat(r.out()).doesNotContain("NOT satisfiable");
    return r;
  }

  static Result doesNotFit(String node, String... claims) {
    Result r = match(node, claims);
    assertThat(r.status()).as(r.out() + r.err()).isEqualTo(1);
    return r;
  }

  @Test
  void cpusByArchitectureAndVendor() {
    assertThat(fits(HGX, "cpu/claim-intel.yaml").out()).contains("DeviceClass nodeatlas-cpu-x86-64-intel: 2 devices cpu-numa0, cpu-numa1")
        .contains("ResourceClaim intel-cpus: satisfiable on this node").contains("allocation cpus -> cpu-numa0")
        .contains("cpus on cpu-numa0: consumes 4 nodeatlas.io/cpu, 60 of 64 left");
    assertThat(fits(ARM, "cpu/claim-arm64.yaml").out()).contains("allocation cpus -> cpu-numa0")
        .contains("cpus on cpu-numa0: consumes 8 nodeatlas.io/cpu, 72 of 80 left");
  }

  @Test
  void cpusOfTheOtherArchitectureDoNotFit() {
    // The answer names the class that admits nothing; the values the class saw need --explain=all.
    Result hgx = doesNotFit(HGX, "cpu/claim-arm64.yaml");
    assertThat(hgx.out().lines().limit(2).toList()).containsExactly("ResourceClaim arm64-cpus: NOT satisfiable on this node",
        "  reason: request cpus needs 1 device, this node has 0 matching devices (DeviceClass nodeatlas-cpu-arm64 admits "
            + "none of its 19 devices)");
    assertThat(hgx.out()).doesNotContain("architecture = ").contains("--explain=all shows them");
    List<String> all = new ArrayList<>(List.of("match", "-f", ROOT.resolve("deploy/deviceclasses.yaml").toString(), "-f",
        EXAMPLES.resolve("cpu/claim-arm64.yaml").toString(), "--discovered", EXAMPLES.resolve("nodes").resolve(HGX).toString(),
        "--explain=all"));
    assertThat(run(all.toArray(String[]::new)).out())
        .contains("cpu-numa0: DeviceClass nodeatlas-cpu-arm64 selector #1 evaluated to false")
        .contains("device.attributes[\"nodeatlas.io\"].architecture = \"x86_64\"");
    assertThat(doesNotFit(ARM, "cpu/claim-intel.yaml").out())
        .contains("reason: request cpus needs 1 device, this node has 0 matching devices (DeviceClass "
            + "nodeatlas-cpu-x86-64-intel admits none of its");
  }

  @Test
  void tenCpusFromEachNumaNode() {
    assertThat(fits(HGX, "cpu/claim-numa-split.yaml").out())
        .contains("allocation cpus-numa0 -> cpu-numa0").contains("allocation cpus-numa1 -> cpu-numa1")
        .contains("cpus-numa0 on cpu-numa0: consumes 10 nodeatlas.io/cpu, 54 of 64 left")
        .contains("cpus-numa1 on cpu-numa1: consumes 10 nodeatlas.io/cpu, 54 of 64 left");
  }

  @Test
  void tenCpusFromANumaNodeAnEarlierClaimFilledDoNotFit() {
    Result r = doesNotFit(HGX, "cpu/claim-fill-numa0.yaml", "cpu/claim-numa-split.yaml");
    assertThat(r.out()).contains("ResourceClaim fill-numa0: satisfiable on this node")
        .contains("cpus on cpu-numa0: consumes 60 nodeatlas.io/cpu, 4 of 64 left")
        .contains("ResourceClaim numa-split: NOT satisfiable on this node")
        .contains("reason: request cpus-numa0 needs 1 device, but earlier claims hold what matches: cpu-numa0 has 4 of "
            + "10 requested nodeatlas.io/cpu left (60 of 64 allocated to earlier claims)");
  }

  @Test
  void hugepagesOnTheNumaNodeOfTheNic() {
    assertThat(fits(HGX, "hugepages/claim-near-nic.yaml").out())
        .contains("allocation nic -> rdma-mlx5-0").contains("allocation pages -> hugepages-2mi-numa0")
        .contains("pages on hugepages-2mi-numa0: consumes 1Gi nodeatlas.io/memory, 7Gi of 8Gi left")
        .contains("constraint matchAttribute resource.kubernetes.io/numaNode (nic, pages)");
  }

  @Test
  void moreHugepagesThanTheNumaNodeHoldsDoNotFit() {
    // Answers before details: the verdict, then the one check that blocks, in sizes as people write them.
    Result r = doesNotFit(HGX, "hugepages/claim-too-much.yaml");
    assertThat(r.out().lines().limit(2).toList()).containsExactly(
        "ResourceClaim too-many-pages: NOT satisfiable on this node",
        "  reason: request pages needs 1 device, this node has 0 matching devices (hugepages-2mi-numa0, hugepages-2mi-numa1: "
            + "capacity request nodeatlas.io/memory requested 16Gi of nodeatlas.io/memory: above the request policy's maximum 8Gi)");
    // The per-device detail follows, for the devices the classes admit only (the RoCE-less NIC, the two 2Mi pools).
    assertThat(r.out()).contains("hugepages-2mi-numa0: capacity request nodeatlas.io/memory requested 16Gi of nodeatlas.io/memory: "
            + "above the request policy's maximum 8Gi")
        .contains("rdma-mlx5-1: request selector #1 evaluated to false").doesNotContain("gpu-0: DeviceClass")
        .doesNotContain("17179869184");
    assertThat(r.out().lines().count()).isLessThan(30);
    // JSON keeps exact bytes.
    List<String> json = new ArrayList<>(List.of("match", "-f", ROOT.resolve("deploy/deviceclasses.yaml").toString(), "-f",
        EXAMPLES.resolve("hugepages/claim-too-much.yaml").toString(), "--discovered",
        EXAMPLES.resolve("nodes").resolve(HGX).toString(), "-o", "json"));
    assertThat(run(json.toArray(String[]::new)).out()).contains("requested 17179869184 of nodeatlas.io/memory: above the "
        + "request policy's maximum 8589934592").contains("\"nodeatlas.io/memory\" : \"17179869184\"").doesNotContain("16Gi");
  }

  @Test
  void aGpuByProductNameWithAtLeast40GiOfMemory() {
    assertThat(fits(HGX, "gpu/claim-h100-40gi.yaml").out()).contains("allocation gpu -> gpu-0")
        .contains("gpu on gpu-0: the whole device (exclusive)");
  }

  @Test
  void aGpuWithMoreMemoryThanAnyDoesNotFit() {
    assertThat(doesNotFit(HGX, "gpu/claim-too-little-memory.yaml").out())
        .contains("reason: request gpu needs 1 device, this node has 0 matching devices")
        .contains("gpu-0: request selector #1 evaluated to false")
        .contains("device.capacity[\"nodeatlas.io\"].memory = quantity(\"85520809984\")");
  }

  @Test
  void aMigDeviceByType() {
    assertThat(fits(HGX, "gpu/claim-mig.yaml").out()).contains("DeviceClass nodeatlas-mig: 2 devices gpu-7-mig-1-0, gpu-7-mig-2-0")
        .contains("allocation mig -> gpu-7-mig-1-0");
  }

  @Test
  void moreMigDevicesThanTheGpuIsSplitIntoDoNotFit() {
    assertThat(doesNotFit(HGX, "gpu/claim-mig-too-many.yaml").out())
        .contains("reason: request mig needs 3 devices, this node has 2 matching devices");
  }

  static final String H200 = "h200-mig.json";

  @Test
  void aMigSliceByMemoryAndComputeFromPartitionableDevices() {
    assertThat(fits(H200, "gpu/claim-mig-slice-1g.yaml").out()).contains("allocation mig -> gpu-0-mig-1g-18gb-0");
  }

  @Test
  void twoClaimsFillTheGpuAndAThirdDoesNotFitForTheCounterThatRanOut() {
    assertThat(fits(H200, "gpu/claim-mig-4g.yaml", "gpu/claim-mig-3g.yaml").out())
        .contains("allocation mig -> gpu-0-mig-4g-71gb-0").contains("allocation mig -> gpu-0-mig-3g-71gb-4");
    assertThat(doesNotFit(H200, "gpu/claim-mig-4g.yaml", "gpu/claim-mig-3g.yaml", "gpu/claim-mig-slice-1g.yaml").out())
        .contains("ResourceClaim mig-slice-1g: NOT satisfiable")
        .contains("gpu-0-mig-1g-18gb-0 needs 1 of counter compute-slices in counter set gpu-0, which has 0 of 7 left "
            + "(consumed by gpu-0-mig-4g-71gb-0 (ResourceClaim mig-4g), gpu-0-mig-3g-71gb-4 (ResourceClaim mig-3g))");
  }

  static final String A100 = "gpu/nodes/a100-shared.json";

  @Test
  void twoClaimsShareAGpuWith40GiEachAndAThirdDoesNotFitForTheMemoryLeft() {
    assertThat(fits(A100, "gpu/claims-time-sliced-40gi.yaml").out())
        .contains("ResourceClaim shared-a: satisfiable", "gpu on gpu-0: consumes 40Gi nodeatlas.io/memory, 40Gi of 80Gi left")
        .contains("ResourceClaim shared-b: satisfiable", "gpu on gpu-0: consumes 40Gi nodeatlas.io/memory, 0 of 80Gi left");
    Result third = doesNotFit(A100, "gpu/claims-time-sliced-40gi.yaml", "gpu/claim-time-sliced-40gi-third.yaml");
    assertThat(third.out()).contains("ResourceClaim shared-c: NOT satisfiable on this node",
        "reason: request gpu needs 1 device, but earlier claims hold what matches: gpu-0 has 0 of 40Gi requested "
            + "nodeatlas.io/memory left (80Gi of 80Gi allocated to earlier claims)");
  }

  @Test
  void twoMpsClaimsShareAGpuByTheirMemory() {
    assertThat(fits(A100, "gpu/claims-mps-shared.yaml").out())
        .contains("ResourceClaim mps-train: satisfiable", "gpu on gpu-0: consumes 50Gi nodeatlas.io/memory, 30Gi of 80Gi left")
        .contains("ResourceClaim mps-serve: satisfiable", "gpu on gpu-0: consumes 30Gi nodeatlas.io/memory, 0 of 80Gi left");
  }

  @Test
  void aClaimThatNamesNoMemoryTakesTheWholeSharedGpu() {
    Result r = doesNotFit(A100, "gpu/claim-time-sliced.yaml", "gpu/claims-time-sliced-40gi.yaml");
    assertThat(r.out()).contains("gpu on gpu-0: consumes 80Gi nodeatlas.io/memory, 0 of 80Gi left",
        "gpu-0: consumes 80Gi of nodeatlas.io/memory: not requested: the request policy's default",
        "ResourceClaim shared-a: NOT satisfiable");
  }

  @Test
  void sharingConfigurationsAreOpaqueToTheSchedulerTheClaimsFitAGpu() {
    assertThat(fits(HGX, "gpu/claim-time-sliced.yaml").out()).contains("allocation gpu -> gpu-0");
    assertThat(fits(HGX, "gpu/claim-mps.yaml").out()).contains("allocation gpu -> gpu-0");
  }

  @Test
  void bothTimeSlicedPodsShareTheOneClaim() throws Exception {
    com.fasterxml.jackson.databind.ObjectMapper yaml =
        new com.fasterxml.jackson.databind.ObjectMapper(new com.fasterxml.jackson.dataformat.yaml.YAMLFactory());
    String claim = yaml.readTree(EXAMPLES.resolve("gpu/claim-time-sliced.yaml").toFile()).at("/metadata/name").asText();
    List<String> named = new ArrayList<>();
    try (var docs = yaml.readerFor(com.fasterxml.jackson.databind.JsonNode.class)
        .<com.fasterxml.jackson.databind.JsonNode>readValues(EXAMPLES.resolve("gpu/pods-time-sliced.yaml").toFile())) {
      docs.forEachRemaining(pod -> {
        assertThat(pod.get("kind").asText()).isEqualTo("Pod");
        named.add(pod.at("/spec/resourceClaims/0/resourceClaimName").asText());
      });
    }
    assertThat(named).containsExactly(claim, claim);
  }

  @Test
  void anRdmaNicUnderTheGpusPcieRoot() {
    assertThat(fits(HGX, "rdma/claim-gpu-nic-aligned.yaml").out())
        .contains("allocation gpu -> gpu-0").contains("allocation nic -> rdma-mlx5-0")
        .contains("constraint matchAttribute resource.kubernetes.io/pcieRoot (gpu, nic)");
  }

  @Test
  void threeGpusUnderOneRootDoNotFit() {
    assertThat(doesNotFit(HGX, "rdma/claim-three-gpus-one-root.yaml").out())
        .contains("reason: every request has matching devices, but no choice of distinct devices satisfies "
            + "matchAttribute resource.kubernetes.io/pcieRoot");
  }

  @Test
  void aGpuAndAnRdmaNicBehindOnePcieSwitch() {
    assertThat(fits(HGX, "rdma/claim-gpu-nic-same-switch.yaml").out())
        .contains("allocation gpu/same-switch -> gpu-0").contains("allocation nic/same-switch -> rdma-mlx5-0")
        .contains("constraint matchAttribute nodeatlas.io/pcieSwitch (gpu/same-switch, nic/same-switch)");
  }

  @Test
  void withTheSwitchedNicsTakenTheSwitchClaimFallsBackToOnePcieRoot() {
    Result r = fits(HGX, "rdma/claim-two-nics.yaml", "rdma/claim-gpu-nic-same-switch.yaml");
    assertThat(r.out()).contains("allocation nics -> rdma-mlx5-0, rdma-mlx5-1")
        .contains("allocation nic/same-root -> rdma-mlx5-2")
        .containsPattern("allocation gpu/same-(switch|root) -> gpu-4");
  }

  @Test
  void theSavedHgxNodeRelatesItsPciDevicesAsNvidiaSmiTopoDoes() {
    PciTree tree = ExampleNodes.hgx().topology().pci();
    Map<String, PciTree.Link> links = new java.util.HashMap<>();
    tree.pairs().forEach(p -> links.put(p.deviceA() + " " + p.deviceB(), p.link()));
    assertThat(links.get("gpu-0 rdma-mlx5-0")).isEqualTo(PciTree.Link.PIX);
    assertThat(links.get("gpu-0 gpu-1")).isEqualTo(PciTree.Link.PIX);
    assertThat(links.get("gpu-4 rdma-mlx5-2")).isEqualTo(PciTree.Link.PHB);
    assertThat(links.get("gpu-0 gpu-2")).isEqualTo(PciTree.Link.NODE);
    assertThat(links.get("gpu-0 gpu-4")).isEqualTo(PciTree.Link.SYS);
  }

  @Test
  void everyExampleClaimIsTested() throws Exception {
    String tests = Files.readString(ROOT.resolve("cli/src/test/java/io/nodeatlas/cli/examples/ExamplesTest.java"));
    for (String story : List.of("cpu", "hugepages", "gpu", "rdma")) {
      try (var files = Files.list(EXAMPLES.resolve(story))) {
        for (Path f : files.filter(p -> p.toString().endsWith(".yaml")).toList()) {
          assertThat(tests).as("a test runs " + f).contains("\"" + story + "/" + f.getFileName() + "\"");
        }
      }
    }
  }
}
