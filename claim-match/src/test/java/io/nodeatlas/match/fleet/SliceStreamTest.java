package io.nodeatlas.match.fleet;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import com.fasterxml.jackson.core.JsonParser;
import com.fasterxml.jackson.core.JsonToken;
import com.fasterxml.jackson.databind.ObjectMapper;
import io.nodeatlas.discovery.model.AttributeValue;
import io.nodeatlas.discovery.model.Quantity;
import java.util.ArrayList;
import java.util.List;
import org.junit.jupiter.api.Test;

/**
 * ResourceSlices read from the token stream of a list page, as {@code match --cluster} reads them: in the
 * API server's field order and in a saved file's sorted order alike, a bad device costs that device and
 * one warning while the stream goes on to the next, and a slice without a driver costs that slice.
 */
class SliceStreamTest {

  private static final ObjectMapper JSON = new ObjectMapper();

  /** The API server's order: metadata, then spec with driver and pool before the devices. */
  private static final String API_ORDER = """
      {"metadata": {"name": "n1-gpus"},
       "spec": {"driver": "gpu.example.com", "nodeName": "n1", "pool": {"name": "n1", "generation": 3},
         "devices": [
           {"name": "gpu-0", "attributes": {"model": {"string": "H100"}, "numa": {"int": 1}},
            "capacity": {"memory": {"value": "80Gi"}}},
           {"name": "gpu-1", "attributes": {"model": {"float": 1.5, "deep": [[[{"a": [1]}]]]}},
            "capacity": {"memory": {"value": "80Gi"}}},
           {"name": "gpu-2", "attributes": {"model": {"string": "H100"}}, "capacity": {"memory": {"value": "lots"}}},
           "not a device",
           {"name": "gpu-3", "attributes": {"model": {"string": "H100"}, "ok": {"bool": true}},
            "capacity": {"memory": {"value": "80Gi", "requestPolicy": {"default": "1Gi", "validRange": {"min": "1Gi"}}}},
            "allowMultipleAllocations": true}]}}
      """;

  /** The same slice with every object's keys sorted (kubectl and YAML tools write it so): devices before driver. */
  private static final String SORTED = """
      {"metadata": {"name": "n1-gpus"},
       "spec": {
         "devices": [
           {"attributes": {"model": {"string": "H100"}, "numa": {"int": 1}},
            "capacity": {"memory": {"value": "80Gi"}}, "name": "gpu-0"},
           {"attributes": {"model": {"deep": [[[{"a": [1]}]]], "float": 1.5}},
            "capacity": {"memory": {"value": "80Gi"}}, "name": "gpu-1"},
           {"attributes": {"model": {"string": "H100"}}, "capacity": {"memory": {"value": "lots"}}, "name": "gpu-2"},
           "not a device",
           {"allowMultipleAllocations": true, "attributes": {"model": {"string": "H100"}, "ok": {"bool": true}},
            "capacity": {"memory": {"requestPolicy": {"default": "1Gi", "validRange": {"min": "1Gi"}}, "value": "80Gi"}},
            "name": "gpu-3"}],
         "driver": "gpu.example.com", "nodeName": "n1", "pool": {"generation": 3, "name": "n1"}}}
      """;

  private static SliceReader.Slice stream(String text, List<String> warnings) throws Exception {
    // As a list page: the slice between two other items, which the reader must leave where they are.
    try (JsonParser p = JSON.createParser("[1, " + text + ", 2]")) {
      assertThat(p.nextToken()).isEqualTo(JsonToken.START_ARRAY);
      assertThat(p.nextToken()).isEqualTo(JsonToken.VALUE_NUMBER_INT);
      p.nextToken();
      SliceReader.Slice s = new SliceReader().slice(p, warnings);
      assertThat(p.nextToken()).as("the parser is left at the slice's end").isEqualTo(JsonToken.VALUE_NUMBER_INT);
      assertThat(p.getIntValue()).isEqualTo(2);
      return s;
    }
  }

  @Test
  void theApiOrderAndTheSortedOrderGiveTheSameDevicesAndWarnings() throws Exception {
    List<String> apiWarnings = new ArrayList<>();
    SliceReader.Slice api = stream(API_ORDER, apiWarnings);
    List<String> sortedWarnings = new ArrayList<>();
    SliceReader.Slice sorted = stream(SORTED, sortedWarnings);
    List<String> treeWarnings = new ArrayList<>();
    SliceReader.Slice tree = SliceReader.read(JSON.readTree(SORTED), treeWarnings);

    assertThat(api.devices()).extracting(d -> d.device().name()).containsExactly("gpu-0", "gpu-3");
    var gpu0 = api.devices().get(0).device();
    assertThat(gpu0.attributes()).containsEntry("gpu.example.com/model", AttributeValue.string("H100"))
        .containsEntry("gpu.example.com/numa", AttributeValue.of(1));
    assertThat(gpu0.capacity()).containsEntry("gpu.example.com/memory", Quantity.parse("80Gi"));
    var gpu3 = api.devices().get(1).device();
    assertThat(gpu3.allowMultipleAllocations()).isTrue();
    assertThat(gpu3.requestPolicies()).containsKey("gpu.example.com/memory");
    assertThat(api.selection()).isEqualTo(new NodeSelection.OneNode("n1"));
    assertThat(api.generation()).isEqualTo(3);
    assertThat(apiWarnings).containsExactly(
        "ResourceSlice n1-gpus device gpu-1: left out: attribute model has none of int, bool, string, version, strings",
        "ResourceSlice n1-gpus device gpu-2: left out: " + message(() -> Quantity.parse("lots")),
        "ResourceSlice n1-gpus device : left out: " + message(() -> io.nodeatlas.discovery.model.Names.requireDeviceName("")));

    for (SliceReader.Slice other : List.of(sorted, tree)) {
      assertThat(other.devices()).isEqualTo(api.devices());
      assertThat(other.selection()).isEqualTo(api.selection());
      assertThat(other.pool()).isEqualTo("n1");
      assertThat(other.generation()).isEqualTo(3);
    }
    assertThat(sortedWarnings).isEqualTo(apiWarnings);
    assertThat(treeWarnings).isEqualTo(apiWarnings);
  }

  @Test
  void aSliceWithoutADriverCostsThatSliceOnceItIsReadToItsEnd() throws Exception {
    List<String> warnings = new ArrayList<>();
    String noDriver = API_ORDER.replace("\"driver\": \"gpu.example.com\", ", "");
    try (JsonParser p = JSON.createParser("[" + noDriver + ", 2]")) {
      p.nextToken();
      p.nextToken();
      assertThatThrownBy(() -> new SliceReader().slice(p, warnings)).isInstanceOf(SliceReader.RefusedSlice.class)
          .hasMessage("ResourceSlice n1-gpus: spec.driver and spec.pool.name are required")
          .satisfies(e -> assertThat(((SliceReader.RefusedSlice) e).name()).isEqualTo("n1-gpus"));
      assertThat(p.nextToken()).isEqualTo(JsonToken.VALUE_NUMBER_INT);
    }
    assertThat(warnings).as("its devices' problems are not reported for a slice left out").isEmpty();
  }

  @Test
  void aDeviceOfTwoSelectionsUnderPerDeviceSelectionIsLeftOutAlone() throws Exception {
    List<String> warnings = new ArrayList<>();
    SliceReader.Slice s = stream("""
        {"metadata": {"name": "fabric"},
         "spec": {"driver": "net.example.com", "pool": {"name": "fabric"}, "perDeviceNodeSelection": true,
           "devices": [{"name": "a", "nodeName": "n1", "allNodes": true},
                       {"name": "b", "nodeName": "n2"}]}}
        """, warnings);
    assertThat(s.devices()).extracting(SliceReader.SliceDevice::selection).containsExactly(new NodeSelection.OneNode("n2"));
    assertThat(warnings).containsExactly("ResourceSlice fabric device a: left out: exactly one of nodeName, nodeSelector, "
        + "allNodes must be set, found 2");
  }

  private static String message(Runnable r) {
    try {
      r.run();
    } catch (IllegalArgumentException e) {
      return e.getMessage();
    }
    throw new AssertionError("no exception");
  }
}
