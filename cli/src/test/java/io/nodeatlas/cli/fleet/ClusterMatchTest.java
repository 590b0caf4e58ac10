package io.nodeatlas.cli.fleet;

import static io.nodeatlas.cli.testing.NodeAtlasRun.run;
import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.dataformat.yaml.YAMLMapper;
import io.fabric8.kubernetes.client.Config;
import io.fabric8.kubernetes.client.KubernetesClient;
import io.fabric8.kubernetes.client.KubernetesClientBuilder;
import io.fabric8.kubernetes.client.jdkhttp.JdkHttpClientFactory;
import io.nodeatlas.cli.testing.NodeAtlasRun.Result;
import io.nodeatlas.cli.testing.Repo;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * {@code nodeatlas match --cluster} against a fake API server that serves the slices of two saved example
 * nodes (as {@code nodeatlas slices} publishes them), another driver's node with a tainted and an
 * allocated device, a network pool visible on all nodes, DeviceClasses and allocated claims, in pages.
 */
class ClusterMatchTest {

  static final Path ROOT = Repo.root();
  static final String SLICES = "/apis/resource.k8s.io/v1/resourceslices";
  static final String CLAIMS = "/apis/resource.k8s.io/v1/resourceclaims";

  @TempDir Path dir;
  FakeApiServer api;
  Path kubeconfig;

  @BeforeEach
  void serve() throws Exception {
    api = new FakeApiServer();
    kubeconfig = api.kubeconfig(dir);
    api.collections.put("/api/v1/nodes", List.of(
        node("arm-01", "{}"), node("hgx-01", "{\"example.com/gpu\": \"nvidia\"}"), node("other-01", "{}")));
    List<JsonNode> slices = new ArrayList<>();
    slices.addAll(ourSlices("hgx-01.json"));
    slices.addAll(ourSlices("arm-01.json"));
    slices.add(json("""
        {"apiVersion": "resource.k8s.io/v1", "kind": "ResourceSlice", "metadata": {"name": "other-01-old"},
         "spec": {"driver": "gpu.example.com", "nodeName": "other-01", "pool": {"name": "other-01", "generation": 1,
           "resourceSliceCount": 1}, "devices": [{"name": "gpu-9", "attributes": {"model": {"string": "X100"}}}]}}"""));
    slices.add(json("""
        {"apiVersion": "resource.k8s.io/v1", "kind": "ResourceSlice", "metadata": {"name": "other-01"},
         "spec": {"driver": "gpu.example.com", "nodeName": "other-01", "pool": {"name": "other-01", "generation": 2,
           "resourceSliceCount": 1}, "devices": [
             {"name": "gpu-0", "attributes": {"model": {"string": "X100"}}, "capacity": {"memory": {"value": "40Gi"}}},
             {"name": "gpu-1", "attributes": {"model": {"string": "X100"}}, "capacity": {"memory": {"value": "40Gi"}},
              "taints": [{"key": "example.com/maintenance", "value": "true", "effect": "NoSchedule"}]}]}}"""));
    slices.add(json("""
        {"apiVersion": "resource.k8s.io/v1", "kind": "ResourceSlice", "metadata": {"name": "fabric"},
         "spec": {"driver": "net.example.com", "allNodes": true, "pool": {"name": "fabric", "generation": 1,
           "resourceSliceCount": 1}, "devices": [{"name": "port-0", "attributes": {"kind": {"string": "fabric"}}}]}}"""));
    api.collections.put(SLICES, slices);
    api.collections.put("/apis/resource.k8s.io/v1/deviceclasses", List.of(json("""
        {"metadata": {"name": "example-gpu"}, "spec": {"selectors": [{"cel": {"expression": "device.driver == 'gpu.example.com'"}}]}}""")));
    api.collections.put(CLAIMS, List.of(
        claim("holder", "{\"request\": \"gpu\", \"driver\": \"gpu.example.com\", \"pool\": \"other-01\", \"device\": \"gpu-0\"}"),
        json("{\"metadata\": {\"name\": \"pending\", \"namespace\": \"default\"}, \"spec\": {}}")));
  }

  @AfterEach
  void stop() {
    api.close();
  }

  static JsonNode json(String text) {
    try {
      return FakeApiServer.JSON.readTree(text);
    } catch (Exception e) {
      throw new IllegalArgumentException(e);
    }
  }

  static JsonNode node(String name, String labels) {
    return json("{\"metadata\": {\"name\": \"" + name + "\", \"labels\": " + labels + "}}");
  }

  static JsonNode claim(String name, String... results) {
    return json("{\"metadata\": {\"name\": \"" + name + "\", \"namespace\": \"default\"}, \"spec\": {}, \"status\": "
        + "{\"allocation\": {\"devices\": {\"results\": [" + String.join(",", results) + "]}}}}");
  }

  /** What {@code nodeatlas slices} publishes for a saved example node, list items without kind as the API serves them. */
  static List<JsonNode> ourSlices(String node) throws Exception {
    Result r = run("slices", "--discovered", ROOT.resolve("examples/nodes").resolve(node).toString(), "-o", "json");
    assertThat(r.status()).as(r.err()).isZero();
    List<JsonNode> out = new ArrayList<>();
    json(r.out()).path("items").forEach(item -> out.add(((com.fasterxml.jackson.databind.node.ObjectNode) item.deepCopy())
        .without(List.of("kind", "apiVersion"))));
    return out;
  }

  Path file(String name, String text) throws Exception {
    return Files.writeString(dir.resolve(name), text);
  }

  Result matchCluster(String... more) {
    List<String> args = new ArrayList<>(List.of("match", "--cluster", "--kubeconfig", kubeconfig.toString(),
        "-f", ROOT.resolve("deploy/deviceclasses.yaml").toString()));
    args.addAll(List.of(more));
    return run(args.toArray(String[]::new));
  }

  static final String X100 = """
      apiVersion: resource.k8s.io/v1
      kind: ResourceClaim
      metadata: {name: x100, namespace: default}
      spec: {devices: {requests: [{name: gpu, exactly: {deviceClassName: example-gpu%s,
        selectors: [{cel: {expression: 'device.attributes["gpu.example.com"].model == "X100"'}}]}}]}}
      """;

  @Test
  void anotherDriversDevicesTakenAndTaintedFitNowhereAndTheToleratingClaimFitsThere() throws Exception {
    Result r = matchCluster("-f", file("x100.yaml", X100.formatted("")).toString());
    assertThat(r.status()).as(r.err()).isEqualTo(1);
    List<String> lines = r.out().lines().toList();
    assertThat(lines.get(0)).isEqualTo("0 of 3 nodes fit");
    // Held by an allocated claim; the tainted one is refused; the slice of an older pool generation is ignored.
    assertThat(r.out()).contains("other-01  no    ResourceClaim default/x100: request gpu needs 1 device, but earlier claims "
        + "hold what matches: gpu-0 is allocated to default/holder (gpu-1: device taint example.com/maintenance=true:NoSchedule "
        + "is not tolerated by the request)")
        .doesNotContain("gpu-9")
        .contains("hgx-01    no    ResourceClaim default/x100: request gpu needs 1 device, this node has 0 matching devices "
            + "(DeviceClass example-gpu admits none of its");

    Result tolerated = matchCluster("-f", file("x100-tolerating.yaml", X100.formatted(
        ", tolerations: [{key: example.com/maintenance, operator: Exists, effect: NoSchedule}]")).toString());
    assertThat(tolerated.status()).as(tolerated.err()).isZero();
    assertThat(tolerated.out()).startsWith("1 of 3 nodes fit: other-01\n").contains("other-01  yes   gpu -> gpu-1");
  }

  @Test
  void theVerdictOfEachNodeIsWhatMatchSaysForThatNodeAlone() throws Exception {
    Path claims = ROOT.resolve("examples/hugepages/claim-near-nic.yaml");
    // Without the network pool every node sees, each node has exactly the devices of its saved document.
    api.collections.put(SLICES, api.collections.get(SLICES).stream()
        .filter(s -> !s.path("metadata").path("name").asText().equals("fabric")).toList());
    Result fleet = matchCluster("-f", claims.toString(), "-o", "json");
    assertThat(fleet.status()).as(fleet.err()).isZero();
    JsonNode verdicts = json(fleet.out()).path("verdicts");
    for (String node : List.of("hgx-01", "arm-01")) {
      Result alone = run("match", "-f", ROOT.resolve("deploy/deviceclasses.yaml").toString(), "-f", claims.toString(),
          "--discovered", ROOT.resolve("examples/nodes").resolve(node + ".json").toString(), "-o", "json");
      JsonNode single = json(alone.out()).path("claims").get(0);
      JsonNode fromFleet = null;
      for (JsonNode v : verdicts) {
        if (v.path("node").asText().equals(node)) {
          fromFleet = v.path("claims").get(0);
        }
      }
      assertThat(fromFleet).as(node).isNotNull();
      assertThat(fromFleet.path("fits").asBoolean()).as(node).isEqualTo(single.path("satisfiable").asBoolean());
      assertThat(fromFleet.path("allocation")).as(node).isEqualTo(single.path("allocation"));
      assertThat(fromFleet.path("consumed")).as(node).isEqualTo(single.path("consumed"));
      assertThat(fromFleet.path("reason").asText()).as(node).isEqualTo(single.path("reason").asText());
    }
  }

  @Test
  void capacityAllocatedClaimsConsumedIsHonoured() throws Exception {
    api.collections.put(CLAIMS, List.of(claim("pages-holder", """
        {"request": "pages", "driver": "nodeatlas.io", "pool": "hgx-01", "device": "hugepages-2mi-numa0",
         "consumedCapacity": {"nodeatlas.io/memory": "7680Mi"}}""", """
        {"request": "pages", "driver": "nodeatlas.io", "pool": "hgx-01", "device": "hugepages-2mi-numa1",
         "consumedCapacity": {"nodeatlas.io/memory": "8Gi"}}""")));
    Result r = matchCluster("-f", ROOT.resolve("examples/hugepages/claim-near-nic.yaml").toString());
    assertThat(r.status()).as(r.err()).isEqualTo(1);
    assertThat(r.out()).contains("hgx-01    no    ResourceClaim pages-near-nic: request pages needs 1 device, but earlier "
        + "claims hold what matches: hugepages-2mi-numa0 has 512Mi of 1Gi requested nodeatlas.io/memory left (7680Mi of "
        + "8Gi allocated to earlier claims)");
  }

  @Test
  void aPodsNodeSelectorIsNotAskedHereButSliceNodeSelectionIs() throws Exception {
    // The network port of the allNodes slice is on every node.
    Path claim = file("port.yaml", """
        apiVersion: resource.k8s.io/v1
        kind: DeviceClass
        metadata: {name: fabric}
        spec: {selectors: [{cel: {expression: 'device.driver == "net.example.com"'}}]}
        ---
        apiVersion: resource.k8s.io/v1
        kind: ResourceClaim
        metadata: {name: port}
        spec: {devices: {requests: [{name: port, exactly: {deviceClassName: fabric}}]}}
        """);
    Result r = matchCluster("-f", claim.toString());
    assertThat(r.out()).as(r.err()).startsWith("3 of 3 nodes fit: arm-01, hgx-01, other-01\n");
    // A slice with a node selector is seen only where it selects.
    api.collections.put(SLICES, List.of(json("""
        {"metadata": {"name": "fabric"}, "spec": {"driver": "net.example.com", "pool": {"name": "fabric", "generation": 1},
         "nodeSelector": {"nodeSelectorTerms": [{"matchExpressions": [{"key": "example.com/gpu", "operator": "In",
           "values": ["nvidia"]}]}]},
         "devices": [{"name": "port-0", "attributes": {"kind": {"string": "fabric"}}}]}}""")));
    assertThat(matchCluster("-f", claim.toString()).out()).startsWith("1 of 3 nodes fit: hgx-01\n");
    // perDeviceNodeSelection: each device says where it is.
    api.collections.put(SLICES, List.of(json("""
        {"metadata": {"name": "fabric"}, "spec": {"driver": "net.example.com", "pool": {"name": "fabric", "generation": 1},
         "perDeviceNodeSelection": true,
         "devices": [{"name": "port-0", "nodeName": "arm-01"},
                     {"name": "port-1", "nodeSelector": {"nodeSelectorTerms": [{"matchFields": [{"key": "metadata.name",
                       "operator": "In", "values": ["other-01"]}]}]}}]}}""")));
    Result perDevice = matchCluster("-f", claim.toString());
    assertThat(perDevice.out()).startsWith("2 of 3 nodes fit: arm-01, other-01\n").contains("arm-01    yes   port -> port-0")
        .contains("other-01  yes   port -> port-1");
  }

  @Test
  void everyPageIsReadWithLimitAndContinue() throws Exception {
    Result r = matchCluster("-f", file("x100.yaml", X100.formatted("")).toString());
    assertThat(r.err()).isEmpty();
    List<String> slices = api.requestsFor(SLICES);
    // Ours, the other driver's two generations and the fabric, in pages of 2.
    int served = api.collections.get(SLICES).size();
    assertThat(served).isGreaterThanOrEqualTo(5);
    assertThat(slices).hasSize((served + 1) / 2).allMatch(u -> u.contains("limit=500"));
    assertThat(slices.get(1)).endsWith("&continue=at-2");
    assertThat(slices.get(2)).endsWith("&continue=at-4");
    assertThat(api.requestsFor("/api/v1/nodes")).hasSize(2);
  }

  @Test
  void aBrokenOrForbiddenAnswerIsOneClearError() throws Exception {
    api.special.put(CLAIMS, ex -> "<html>proxy error</html>".getBytes(StandardCharsets.UTF_8));
    Result r = matchCluster("-f", file("x100.yaml", X100.formatted("")).toString());
    assertThat(r.status()).isEqualTo(1);
    assertThat(r.err().strip()).isEqualTo("nodeatlas: --cluster: GET " + api.url() + CLAIMS + "?limit=500: the answer is "
        + "not JSON: Unexpected character ('<' (code 60)): expected a valid value (JSON String, Number, Array, Object or "
        + "token 'null', 'true' or 'false')");
    api.collections.remove(CLAIMS);
    api.special.clear();
    Result missing = matchCluster("-f", file("x100.yaml", X100.formatted("")).toString());
    assertThat(missing.err()).contains("GET " + api.url() + CLAIMS + "?limit=500: 404 NotFound: the server could not find "
        + "the requested resource");
  }

  ClusterReader reader(long maxPageBytes, int maxItems, long timeoutMillis) throws Exception {
    Config cfg = Config.fromKubeconfig(null, Files.readString(kubeconfig), kubeconfig.toString());
    KubernetesClient client = new KubernetesClientBuilder().withConfig(cfg).withHttpClientFactory(new JdkHttpClientFactory())
        .build();
    return new ClusterReader(client.getHttpClient(), cfg.getMasterUrl(), 500, maxPageBytes, maxItems, timeoutMillis);
  }

  @Test
  void aHugeEndlessOrSlowAnswerCostsTheCallNotTheProcess() throws Exception {
    byte[] huge = ("{\"items\": [\"" + "x".repeat(3 << 20) + "\"]}").getBytes(StandardCharsets.UTF_8);
    api.special.put("/huge", ex -> huge);
    assertThatThrownBy(() -> reader(1 << 20, 1000, 30_000).list("/huge", item -> { }))
        .hasMessage("GET " + api.url() + "/huge?limit=500: the answer is larger than 1048576 bytes; refusing to read more");
    api.special.put("/loop", ex -> "{\"metadata\": {\"continue\": \"again\"}, \"items\": [{}]}".getBytes(StandardCharsets.UTF_8));
    assertThatThrownBy(() -> reader(1 << 20, 1000, 30_000).list("/loop", item -> { }))
        .hasMessageEndingWith("the server answered with the same continue token again");
    api.collections.put("/many", java.util.Collections.nCopies(7, json("{}")));
    assertThatThrownBy(() -> reader(1 << 20, 5, 30_000).list("/many", item -> { }))
        .hasMessage("GET " + api.url() + "/many: more than 5 items; refusing to read more");
    CountDownLatch never = new CountDownLatch(1);
    api.special.put("/slow", ex -> {
      try {
        never.await(30, TimeUnit.SECONDS);
      } catch (InterruptedException e) {
        Thread.currentThread().interrupt();
      }
      return "{\"items\": []}".getBytes(StandardCharsets.UTF_8);
    });
    try {
      long start = System.nanoTime();
      assertThatThrownBy(() -> reader(1 << 20, 1000, 500).list("/slow", item -> { }))
          .hasMessage("GET " + api.url() + "/slow?limit=500: no complete answer within the time limit");
      assertThat(TimeUnit.NANOSECONDS.toSeconds(System.nanoTime() - start)).isLessThan(20);
    } finally {
      never.countDown();
    }
  }

  @Test
  void deviceClassesOfTheFilesWinOverTheClusters() throws Exception {
    // The cluster's example-gpu admits the other driver's GPUs; the file's own admits nothing.
    Path own = file("own.yaml", """
        apiVersion: resource.k8s.io/v1
        kind: DeviceClass
        metadata: {name: example-gpu}
        spec: {selectors: [{cel: {expression: 'device.driver == "nobody.example.com"'}}]}
        """);
    Result r = matchCluster("-f", own.toString(), "-f", file("x100.yaml", X100.formatted(
        ", tolerations: [{operator: Exists}]")).toString());
    assertThat(r.out()).startsWith("0 of 3 nodes fit\n");
    assertThat(new YAMLMapper().readTree(matchCluster("-f", file("x100.yaml", X100.formatted(
        ", tolerations: [{operator: Exists}]")).toString(), "-o", "yaml").out()).path("nodesFit").asInt()).isEqualTo(1);
  }

  @Test
  void aPodGoesOnlyToTaintedNodesItTolerates() throws Exception {
    api.collections.put("/api/v1/nodes", List.of(node("arm-01", "{}"), node("hgx-01", "{}"),
        json("{\"metadata\": {\"name\": \"other-01\"}, \"spec\": {\"taints\": [{\"key\": \"example.com/dedicated\", "
            + "\"value\": \"ml\", \"effect\": \"NoSchedule\"}, {\"key\": \"soft\", \"effect\": \"PreferNoSchedule\"}]}}")));
    String claim = X100.formatted(", tolerations: [{operator: Exists}]");
    String pod = """
        ---
        apiVersion: v1
        kind: Pod
        metadata: {name: trainer, namespace: default}
        spec:
          resourceClaims: [{name: gpu, resourceClaimName: x100}]
          containers: [{name: main, image: busybox}]
        """;
    Result refused = matchCluster("-f", file("pod.yaml", claim + pod).toString());
    assertThat(refused.out()).as(refused.err()).startsWith("0 of 3 nodes fit\n")
        .contains("other-01  no    node taint example.com/dedicated=ml:NoSchedule is not tolerated by the pod");
    Result tolerated = matchCluster("-f", file("pod.yaml", claim + pod
        + "  tolerations: [{key: example.com/dedicated, operator: Equal, value: ml, effect: NoSchedule}]\n").toString());
    assertThat(tolerated.out()).as(tolerated.err()).startsWith("1 of 3 nodes fit: other-01\n")
        .contains("other-01  yes   gpu -> gpu-1");
    // A claim alone is not a pod: node taints are the pod's business.
    assertThat(matchCluster("-f", file("claim.yaml", claim).toString()).out()).startsWith("1 of 3 nodes fit: other-01\n");
  }
}
