package io.nodeatlas.cli.fleet;

import static io.nodeatlas.cli.fleet.ClusterMatchTest.claim;
import static io.nodeatlas.cli.fleet.ClusterMatchTest.json;
import static io.nodeatlas.cli.fleet.ClusterMatchTest.node;
import static io.nodeatlas.cli.testing.NodeAtlasRun.run;
import static org.assertj.core.api.Assertions.assertThat;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.dataformat.yaml.YAMLMapper;
import io.nodeatlas.cli.testing.NodeAtlasRun.Result;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/** {@code nodeatlas pools --cluster} against the fake API server: what is taken, what is left, and by whom. */
class PoolsCommandTest {

  @TempDir Path dir;
  FakeApiServer api;
  Path kubeconfig;

  @BeforeEach
  void serve() throws Exception {
    api = new FakeApiServer();
    kubeconfig = api.kubeconfig(dir);
    api.collections.put("/api/v1/nodes", List.of(node("arm-01", "{}"), node("other-01", "{}")));
    List<JsonNode> slices = new ArrayList<>(ClusterMatchTest.ourSlices("arm-01.json"));
    slices.add(json("""
        {"metadata": {"name": "other-01"},
         "spec": {"driver": "gpu.example.com", "nodeName": "other-01", "pool": {"name": "other-01", "generation": 1},
           "devices": [{"name": "gpu-0", "capacity": {"memory": {"value": "40Gi"}}},
                       {"name": "gpu-1", "capacity": {"memory": {"value": "40Gi"}}}]}}"""));
    api.collections.put(ClusterMatchTest.SLICES, slices);
    api.collections.put("/apis/resource.k8s.io/v1/deviceclasses", List.of());
    api.collections.put(ClusterMatchTest.CLAIMS, List.of(
        claim("trainer-a", "{\"request\": \"gpu\", \"driver\": \"gpu.example.com\", \"pool\": \"other-01\", \"device\": \"gpu-0\"}"),
        claim("trainer-b", "{\"request\": \"gpu\", \"driver\": \"gpu.example.com\", \"pool\": \"other-01\", \"device\": \"gpu-1\"}"),
        claim("pages", """
            {"request": "pages", "driver": "nodeatlas.io", "pool": "arm-01", "device": "hugepages-2mi-numa0",
             "consumedCapacity": {"nodeatlas.io/memory": "1536Mi"}}""", """
            {"request": "cpus", "driver": "nodeatlas.io", "pool": "arm-01", "device": "cpu-numa0",
             "consumedCapacity": {"nodeatlas.io/cpu": "8"}}""")));
  }

  @AfterEach
  void stop() {
    api.close();
  }

  @Test
  void eachPoolByNodeWithWhatIsConsumedLeftAndWhoHoldsWhatIsExhausted() {
    Result r = run("pools", "--cluster", "--kubeconfig", kubeconfig.toString());
    assertThat(r.status()).as(r.err()).isZero();
    assertThat(r.out().lines().toList()).containsExactly(
        "NODE      DRIVER           POOL      DEVICES  ALLOCATED  FREE",
        "arm-01    nodeatlas.io     arm-01          2          2     0",
        "  every device is allocated, to default/pages",
        "  nodeatlas.io/cpu of cpu devices: 8 of 80 consumed, 72 left",
        "  nodeatlas.io/memory of hugepages devices: 1536Mi of 2Gi consumed, 512Mi left",
        "other-01  gpu.example.com  other-01        2          2     0",
        "  every device is allocated, to default/trainer-a, default/trainer-b",
        "  gpu.example.com/memory: 80Gi of 80Gi consumed, 0 left (exhausted by default/trainer-a, default/trainer-b)");
  }

  @Test
  void jsonAndYamlKeepExactAmounts() throws Exception {
    Result json = run("pools", "--cluster", "--kubeconfig", kubeconfig.toString(), "-o", "json");
    assertThat(json.out()).contains("\"consumed\" : \"1610612736\"").contains("\"consumedBy\" : [ \"default/pages\" ]");
    JsonNode yaml = new YAMLMapper().readTree(run("pools", "--cluster", "--kubeconfig", kubeconfig.toString(), "-o", "yaml").out());
    assertThat(yaml.path("pools").get(1).path("capacity").get(0).path("exhausted").asBoolean()).isTrue();
    assertThat(yaml.path("pools").get(1).path("allocatedTo").size()).isEqualTo(2);
  }

  @Test
  void withoutASourceItSaysWhereToLook() {
    Result r = run("pools");
    assertThat(r.status()).isEqualTo(2);
    assertThat(r.err()).contains("say where the pools are: --cluster, or --discovered");
  }
}
