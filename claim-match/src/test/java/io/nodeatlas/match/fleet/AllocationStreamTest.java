package io.nodeatlas.match.fleet;

import static org.assertj.core.api.Assertions.assertThat;

import com.fasterxml.jackson.core.JsonParser;
import com.fasterxml.jackson.core.JsonToken;
import com.fasterxml.jackson.databind.ObjectMapper;
import java.math.BigDecimal;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import org.junit.jupiter.api.Test;

/**
 * What an allocated ResourceClaim holds, read from a list page's token stream: only metadata and
 * {@code status.allocation.devices.results} count, in any field order; a bad result costs that result.
 */
class AllocationStreamTest {

  private static final ObjectMapper JSON = new ObjectMapper();

  @Test
  void theResultsAreReadInAnyOrderAndABadOneCostsItself() throws Exception {
    // Sorted keys (status before metadata), a spec and managed fields to skip, and three results: a good
    // one with consumed capacity, one without a pool, one with an amount that is no quantity.
    String claim = """
        {"apiVersion": "resource.k8s.io/v1", "kind": "ResourceClaim",
         "spec": {"devices": {"requests": [{"name": "r", "exactly": {"deviceClassName": "cpu"}}]}},
         "status": {"reservedFor": [{"name": "pod"}], "allocation": {"nodeSelector": {"x": [1, [2, {"y": 3}]]},
           "devices": {"config": [], "results": [
             {"consumedCapacity": {"cpu": "16", "memory.example.com/bytes": "1Gi"}, "device": "cpu-numa0",
              "driver": "nodeatlas.io", "pool": "n1", "request": "r"},
             {"device": "gpu-0", "driver": "gpu.example.com", "request": "g"},
             {"consumedCapacity": {"cpu": "lots"}, "device": "cpu-numa1", "driver": "nodeatlas.io", "pool": "n1",
              "request": "r"}]}}},
         "metadata": {"managedFields": [{"fieldsV1": {"f:status": {}}}], "name": "job", "namespace": "team"}}
        """;
    List<String> warnings = new ArrayList<>();
    List<Allocation> held;
    try (JsonParser p = JSON.createParser("[" + claim + ", 2]")) {
      p.nextToken();
      p.nextToken();
      held = Allocation.of(p, warnings);
      assertThat(p.nextToken()).as("the parser is left at the claim's end").isEqualTo(JsonToken.VALUE_NUMBER_INT);
    }
    assertThat(held).containsExactly(
        new Allocation("team/job", "r", "nodeatlas.io", "n1", "cpu-numa0",
            Map.of("nodeatlas.io/cpu", new BigDecimal(16), "memory.example.com/bytes", new BigDecimal(1L << 30))),
        new Allocation("team/job", "r", "nodeatlas.io", "n1", "cpu-numa1", Map.of()));
    assertThat(warnings).hasSize(2);
    assertThat(warnings.get(0)).isEqualTo("ResourceClaim team/job: an allocation result without driver, pool or device is "
        + "left out");
    assertThat(warnings.get(1)).startsWith("ResourceClaim team/job: device cpu-numa1: consumedCapacity left out: ");
    assertThat(Allocation.of(JSON.readTree(claim), new ArrayList<>())).as("a saved file's tree, the same reader")
        .isEqualTo(held);
  }
}
