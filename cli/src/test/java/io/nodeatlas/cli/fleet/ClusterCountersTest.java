package io.nodeatlas.cli.fleet;

import static io.nodeatlas.cli.fleet.ClusterMatchTest.claim;
import static io.nodeatlas.cli.fleet.ClusterMatchTest.json;
import static io.nodeatlas.cli.fleet.ClusterMatchTest.node;
import static io.nodeatlas.cli.testing.NodeAtlasRun.run;
import static org.assertj.core.api.Assertions.assertThat;

import com.fasterxml.jackson.databind.JsonNode;
import io.nodeatlas.cli.testing.NodeAtlasRun.Result;
import io.nodeatlas.cli.testing.Repo;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * Partitionable devices (KEP-4815) across the fleet: the MIG node's slices as {@code nodeatlas slices}
 * publishes them (the counters in a slice of their own) and another driver's pool with a counter set of the
 * same name, served by the fake API server with claims that already hold partitions.
 */
class ClusterCountersTest {

  static final Path ROOT = Repo.root();

  @TempDir Path dir;
  FakeApiServer api;
  Path kubeconfig;

  @BeforeEach
  void serve() throws Exception {
    api = new FakeApiServer();
    kubeconfig = api.kubeconfig(dir);
    api.collections.put("/api/v1/nodes", List.of(node("h200-mig", "{}")));
    List<JsonNode> slices = new ArrayList<>(ClusterMatchTest.ourSlices("h200-mig.json"));
    slices.add(json("""
        {"metadata": {"name": "h200-mig-parts"},
         "spec": {"driver": "part.example.com", "nodeName": "h200-mig", "pool": {"name": "parts", "generation": 1},
           "sharedCounters": [{"name": "gpu-0", "counters": {"slices": {"value": "3"}}}]}}"""));
    slices.add(json("""
        {"metadata": {"name": "h200-mig-parts-devices"},
         "spec": {"driver": "part.example.com", "nodeName": "h200-mig", "pool": {"name": "parts", "generation": 1},
           "devices": [
             {"name": "part-a", "consumesCounters": [{"counterSet": "gpu-0", "counters": {"slices": {"value": "2"}}}]},
             {"name": "part-b", "consumesCounters": [{"counterSet": "gpu-0", "counters": {"slices": {"value": "2"}}}]}]}}"""));
    api.collections.put(ClusterMatchTest.SLICES, slices);
    api.collections.put("/apis/resource.k8s.io/v1/deviceclasses", List.of(json("""
        {"metadata": {"name": "parts"}, "spec": {"selectors": [{"cel": {"expression": "device.driver == 'part.example.com'"}}]}}""")));
    api.collections.put(ClusterMatchTest.CLAIMS, List.of(
        claim("big", "{\"request\": \"mig\", \"driver\": \"nodeatlas.io\", \"pool\": \"h200-mig\", \"device\": \"gpu-0-mig-4g-71gb-0\"}"),
        claim("mid", "{\"request\": \"mig\", \"driver\": \"nodeatlas.io\", \"pool\": \"h200-mig\", \"device\": \"gpu-0-mig-3g-71gb-4\"}"),
        claim("part", "{\"request\": \"part\", \"driver\": \"part.example.com\", \"pool\": \"parts\", \"device\": \"part-a\"}")));
  }

  @AfterEach
  void stop() {
    api.close();
  }

  Result match(String... files) {
    List<String> args = new ArrayList<>(List.of("match", "--cluster", "--kubeconfig", kubeconfig.toString(),
        "-f", ROOT.resolve("deploy/deviceclasses.yaml").toString()));
    for (String f : files) {
      args.addAll(List.of("-f", f));
    }
    return run(args.toArray(String[]::new));
  }

  @Test
  void partitionsThatEarlierClaimsCountersHoldFitNowhereAndTheReasonNamesTheCounter() {
    // The 4g and 3g partitions held by claims use all seven compute slices: a 1g slice no longer fits.
    Result r = match(ROOT.resolve("examples/gpu/claim-mig-slice-1g.yaml").toString());
    assertThat(r.status()).as(r.out() + r.err()).isEqualTo(1);
    assertThat(r.out()).startsWith("0 of 1 node fit").contains("counter compute-slices in counter set gpu-0")
        .contains("default/big").contains("default/mid");
  }

  @Test
  void anotherDriversCounterSetOfTheSameNameIsCountedApart() throws Exception {
    Path claim = Files.writeString(dir.resolve("part.yaml"), """
        apiVersion: resource.k8s.io/v1
        kind: ResourceClaim
        metadata: {name: one-part, namespace: default}
        spec: {devices: {requests: [{name: part, exactly: {deviceClassName: parts}}]}}
        """);
    Result r = match(claim.toString());
    // part-a holds 2 of the 3 slices, so part-b (2 more) cannot be allocated; our gpu-0 set does not lend its own.
    assertThat(r.status()).as(r.out() + r.err()).isEqualTo(1);
    assertThat(r.out()).contains("counter slices in counter set gpu-0-2, which has 1 of 3 left")
        .contains("warning: node h200-mig: counter set part.example.com/parts/gpu-0 is shown as gpu-0-2");
  }

  @Test
  void poolsSayWhatEachCounterHasLeftAndWhoExhaustedIt() {
    Result r = run("pools", "--cluster", "--kubeconfig", kubeconfig.toString());
    assertThat(r.status()).as(r.err()).isZero();
    assertThat(r.out().lines().toList())
        .contains("  counter compute-slices of set gpu-0: 7 of 7 consumed, 0 left (exhausted by default/big, default/mid)",
            "  counter slices of set gpu-0: 2 of 3 consumed, 1 left")
        // The partitions overlap: their memory is not added up, the counters say what is left.
        .noneMatch(l -> l.contains("memory of mig devices"));
  }

  @Test
  void theTimeoutHasAnEnvTwinThatIsCheckedLikeTheFlag() throws Exception {
    Result r = io.nodeatlas.cli.testing.NodeAtlasRun.runProcess(java.util.Map.of("NODEATLAS_TIMEOUT_SECONDS", "0"), null,
        "pools", "--cluster", "--kubeconfig", kubeconfig.toString());
    assertThat(r.status()).isEqualTo(2);
    assertThat(r.err()).contains("--timeout-seconds (env NODEATLAS_TIMEOUT_SECONDS) must be 1 to 3600 seconds, not 0");
    assertThat(run("pools", "--cluster", "--kubeconfig", kubeconfig.toString(), "--timeout-seconds", "30").status()).isZero();
  }
}
