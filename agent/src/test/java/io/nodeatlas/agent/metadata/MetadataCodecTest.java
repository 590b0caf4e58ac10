package io.nodeatlas.agent.metadata;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.MappingIterator;
import com.fasterxml.jackson.databind.ObjectMapper;
import io.nodeatlas.discovery.model.AttributeValue;
import io.nodeatlas.discovery.share.NetworkData;
import java.nio.charset.StandardCharsets;
import java.util.ArrayList;
import java.util.List;
import java.util.Optional;
import java.util.TreeMap;
import org.junit.jupiter.api.Test;

/**
 * The metadata file's format, read as k8s.io/dynamic-resource-allocation's reference reader
 * ({@code devicemetadata/decode.go} {@code DecodeMetadataFromStream}) reads it: JSON values one after the
 * other, each an object with {@code apiVersion} and {@code kind}, the first registered version decoded
 * into {@code api/metadata/v1alpha1} {@code DeviceMetadata}.
 */
class MetadataCodecTest {

  private static final ObjectMapper JSON = new ObjectMapper();

  static RequestMetadata gpuAndNic(String podClaimName) {
    TreeMap<String, AttributeValue> gpu = new TreeMap<>();
    gpu.put("nodeatlas.io/type", AttributeValue.string("gpu"));
    gpu.put("nodeatlas.io/index", AttributeValue.of(1));
    gpu.put("nodeatlas.io/mig", AttributeValue.of(false));
    gpu.put("nodeatlas.io/driverVersion", AttributeValue.version("580.65.6"));
    gpu.put("resource.kubernetes.io/pciBusID", AttributeValue.string("0000:11:00.0"));
    TreeMap<String, AttributeValue> nic = new TreeMap<>();
    nic.put("nodeatlas.io/type", AttributeValue.string("nic"));
    return new RequestMetadata("team-a", "train-0", "5c1f0f7e-1111-4e2b-9b8e-000000000001", 1, podClaimName, "accel/big",
        List.of(new RequestMetadata.DeviceEntry("nodeatlas.io", "node-a", "gpu-1", gpu, Optional.empty()),
            new RequestMetadata.DeviceEntry("nodeatlas.io", "node-a", "nic-eth1", nic,
                Optional.of(new NetworkData("eth1", "0c:42:a1:00:00:01")))));
  }

  /** Every value of the stream, as a JSON decoder reads a concatenated stream ({@code json.Decoder.More}). */
  static List<JsonNode> stream(byte[] bytes) throws Exception {
    List<JsonNode> out = new ArrayList<>();
    try (MappingIterator<JsonNode> it = JSON.readerFor(JsonNode.class).readValues(bytes)) {
      while (it.hasNextValue()) {
        out.add(it.nextValue());
      }
    }
    return out;
  }

  @Test
  void theFileIsAStreamOfVersionedObjectsNewestFirstWithTheV1alpha1Fields() throws Exception {
    byte[] bytes = MetadataCodec.encode(gpuAndNic(""));
    List<JsonNode> objects = stream(bytes);
    assertThat(objects).extracting(o -> o.get("apiVersion").asText()).containsExactlyElementsOf(MetadataCodec.VERSIONS);
    assertThat(objects.get(0).get("apiVersion").asText()).isEqualTo("metadata.resource.k8s.io/v1alpha1");
    assertThat(objects).allSatisfy(o -> assertThat(o.get("kind").asText()).isEqualTo("DeviceMetadata"));
    assertThat(new String(bytes, StandardCharsets.UTF_8)).endsWith("}\n");

    JsonNode o = objects.get(0);
    assertThat(o.at("/metadata/name").asText()).isEqualTo("train-0");
    assertThat(o.at("/metadata/namespace").asText()).isEqualTo("team-a");
    assertThat(o.at("/metadata/uid").asText()).isEqualTo("5c1f0f7e-1111-4e2b-9b8e-000000000001");
    assertThat(o.at("/metadata/generation").asLong()).isEqualTo(1);
    assertThat(o.has("podClaimName")).isFalse();
    assertThat(o.get("requests")).hasSize(1);
    assertThat(o.at("/requests/0/name").asText()).isEqualTo("accel/big");
    JsonNode gpu = o.at("/requests/0/devices/0");
    assertThat(gpu.get("driver").asText()).isEqualTo("nodeatlas.io");
    assertThat(gpu.get("pool").asText()).isEqualTo("node-a");
    assertThat(gpu.get("name").asText()).isEqualTo("gpu-1");
    // resource.k8s.io/v1 DeviceAttribute: exactly one typed member per attribute.
    assertThat(gpu.at("/attributes/nodeatlas.io~1type/string").asText()).isEqualTo("gpu");
    assertThat(gpu.at("/attributes/nodeatlas.io~1index/int").isIntegralNumber()).isTrue();
    assertThat(gpu.at("/attributes/nodeatlas.io~1index/int").asLong()).isEqualTo(1);
    assertThat(gpu.at("/attributes/nodeatlas.io~1mig/bool").isBoolean()).isTrue();
    assertThat(gpu.at("/attributes/nodeatlas.io~1driverVersion/version").asText()).isEqualTo("580.65.6");
    assertThat(gpu.at("/attributes/resource.kubernetes.io~1pciBusID/string").asText()).isEqualTo("0000:11:00.0");
    gpu.get("attributes").forEach(a -> assertThat(a.size()).isEqualTo(1));
    assertThat(gpu.has("networkData")).isFalse();
    // resource.k8s.io/v1 NetworkDeviceData of the NIC.
    JsonNode nic = o.at("/requests/0/devices/1");
    assertThat(nic.at("/networkData/interfaceName").asText()).isEqualTo("eth1");
    assertThat(nic.at("/networkData/hardwareAddress").asText()).isEqualTo("0c:42:a1:00:00:01");
    assertThat(nic.at("/networkData").has("ips")).isFalse();
  }

  /** The bytes of a file, pinned: each version's object pretty-printed on lines of its own, then a newline. */
  @Test
  void theBytesStayAsPinned() throws Exception {
    RequestMetadata m = gpuAndNic("gpu");
    TreeMap<String, AttributeValue> listed = new TreeMap<>(m.devices().get(1).attributes());
    listed.put("nodeatlas.io/ports", AttributeValue.strings(List.of("p0", "p1")));
    RequestMetadata withList = new RequestMetadata(m.namespace(), m.claimName(), m.claimUid(), m.generation(),
        m.podClaimName(), m.request(), List.of(m.devices().get(0), new RequestMetadata.DeviceEntry("nodeatlas.io", "node-a",
            "nic-eth1", listed, m.devices().get(1).networkData())));
    assertThat(new String(MetadataCodec.encode(withList), StandardCharsets.UTF_8)).isEqualTo(PINNED);
    // The same bytes with every device's entry encoded beforehand, as the agent keeps them per device.
    assertThat(new String(MetadataCodec.encode(withList, MetadataCodec::entryOrFail), StandardCharsets.UTF_8))
        .isEqualTo(PINNED);
  }

  @Test
  void entriesEncodedBeforehandGiveTheSameBytesWhereverTheyGo() throws Exception {
    RequestMetadata gpuAndNic = gpuAndNic("");
    RequestMetadata.DeviceEntry bare = new RequestMetadata.DeviceEntry("nodeatlas.io", "node-a", "bare", null, Optional.empty());
    RequestMetadata.DeviceEntry quoted = new RequestMetadata.DeviceEntry("nodeatlas.io", "node-a", "q",
        new TreeMap<>(java.util.Map.of("nodeatlas.io/model", AttributeValue.string("A \"100\" \u00e9\u4e2d\\"))),
        Optional.empty());
    List<RequestMetadata> cases = List.of(gpuAndNic, gpuAndNic("gpu"),
        new RequestMetadata("ns", "c", "u-1", 1, "", "r", List.of(bare)),
        new RequestMetadata("ns", "c", "u-1", 1, "", "r", List.of(quoted, bare, gpuAndNic.devices().get(1))),
        new RequestMetadata("ns", "c", "u-1", 1, "", "r", List.of()));
    for (RequestMetadata m : cases) {
      byte[] direct = MetadataCodec.encode(m);
      assertThat(MetadataCodec.encode(m, MetadataCodec::entryOrFail)).isEqualTo(direct);
      // Some entries beforehand, some written in place.
      assertThat(MetadataCodec.encode(m, d -> d.name().startsWith("gpu") ? null : MetadataCodec.entryOrFail(d)))
          .isEqualTo(direct);
    }
  }

  static final String PINNED = """
      {
        "apiVersion" : "metadata.resource.k8s.io/v1alpha1",
        "kind" : "DeviceMetadata",
        "metadata" : {
          "name" : "train-0",
          "namespace" : "team-a",
          "uid" : "5c1f0f7e-1111-4e2b-9b8e-000000000001",
          "generation" : 1
        },
        "podClaimName" : "gpu",
        "requests" : [ {
          "name" : "accel/big",
          "devices" : [ {
            "driver" : "nodeatlas.io",
            "pool" : "node-a",
            "name" : "gpu-1",
            "attributes" : {
              "nodeatlas.io/driverVersion" : {
                "version" : "580.65.6"
              },
              "nodeatlas.io/index" : {
                "int" : 1
              },
              "nodeatlas.io/mig" : {
                "bool" : false
              },
              "nodeatlas.io/type" : {
                "string" : "gpu"
              },
              "resource.kubernetes.io/pciBusID" : {
                "string" : "0000:11:00.0"
              }
            }
          }, {
            "driver" : "nodeatlas.io",
            "pool" : "node-a",
            "name" : "nic-eth1",
            "attributes" : {
              "nodeatlas.io/ports" : {
                "strings" : [ "p0", "p1" ]
              },
              "nodeatlas.io/type" : {
                "string" : "nic"
              }
            },
            "networkData" : {
              "interfaceName" : "eth1",
              "hardwareAddress" : "0c:42:a1:00:00:01"
            }
          } ]
        } ]
      }
      """;

  @Test
  void aTemplateClaimCarriesThePodsNameForIt() throws Exception {
    JsonNode o = stream(MetadataCodec.encode(gpuAndNic("gpu"))).get(0);
    assertThat(o.get("podClaimName").asText()).isEqualTo("gpu");
  }

  @Test
  void theReaderSkipsVersionsItDoesNotKnowAndRefusesObjectsWithoutAVersion() throws Exception {
    byte[] ours = MetadataCodec.encode(gpuAndNic(""));
    byte[] newer = ("{\"apiVersion\":\"metadata.resource.k8s.io/v9\",\"kind\":\"DeviceMetadata\",\"future\":true}\n"
        + new String(ours, StandardCharsets.UTF_8)).getBytes(StandardCharsets.UTF_8);
    assertThat(MetadataCodec.firstKnown(newer)).hasValueSatisfying(o ->
        assertThat(o.get("apiVersion").asText()).isEqualTo("metadata.resource.k8s.io/v1alpha1"));
    assertThat(MetadataCodec.firstKnown("{\"apiVersion\":\"metadata.resource.k8s.io/v9\"}".getBytes(StandardCharsets.UTF_8)))
        .isEmpty();
    assertThatThrownBy(() -> MetadataCodec.firstKnown("{\"kind\":\"DeviceMetadata\"}".getBytes(StandardCharsets.UTF_8)))
        .hasMessageContaining("apiVersion");
    assertThatThrownBy(() -> MetadataCodec.firstKnown("{\"apiVersion\":\"metadata.resource.k8s.io/v1alpha1\",\"kind\":\"Pod\"}"
        .getBytes(StandardCharsets.UTF_8))).hasMessageContaining("kind Pod");
    assertThatThrownBy(() -> MetadataCodec.firstKnown("{\"apiVersion\":".getBytes(StandardCharsets.UTF_8)))
        .hasMessageContaining("not a stream");
    assertThatThrownBy(() -> MetadataCodec.firstKnown(new byte[MetadataCodec.MAX_BYTES + 1])).hasMessageContaining("bytes");
  }

  @Test
  void aFileLargerThanTheGeneratorsBufferIsWrittenWhole() throws Exception {
    // Larger than the generator's 8,000-byte buffer, so it reaches the stream in several writes.
    List<RequestMetadata.DeviceEntry> many = new ArrayList<>();
    TreeMap<String, AttributeValue> attrs = new TreeMap<>();
    attrs.put("nodeatlas.io/model", AttributeValue.string("y".repeat(60)));
    for (int i = 0; i < 200; i++) {
      many.add(new RequestMetadata.DeviceEntry("nodeatlas.io", "node-a", "d-" + i, attrs, Optional.empty()));
    }
    byte[] bytes = MetadataCodec.encode(new RequestMetadata("ns", "c", "u-1", 1, "", "r", many));
    assertThat(bytes.length).isGreaterThan(3 * 8000);
    assertThat(bytes[bytes.length - 1]).isEqualTo((byte) '\n');
    assertThat(bytes[bytes.length - 2]).isEqualTo((byte) '}');
    List<JsonNode> objects = stream(bytes);
    assertThat(objects).hasSize(MetadataCodec.VERSIONS.size());
    JsonNode devices = objects.get(0).get("requests").get(0).get("devices");
    assertThat(devices).hasSize(200);
    assertThat(devices.get(199).get("name").asText()).isEqualTo("d-199");
  }

  @Test
  void aRequestTooLargeForAFileIsRefused() {
    List<RequestMetadata.DeviceEntry> many = new ArrayList<>();
    TreeMap<String, AttributeValue> attrs = new TreeMap<>();
    for (int i = 0; i < 32; i++) {
      attrs.put("nodeatlas.io/a" + i, AttributeValue.string("x".repeat(64)));
    }
    for (int i = 0; i < 1000; i++) {
      many.add(new RequestMetadata.DeviceEntry("nodeatlas.io", "node-a", "d-" + i, attrs, Optional.empty()));
    }
    RequestMetadata huge = new RequestMetadata("ns", "c", "u-1", 1, "", "r", many);
    assertThatThrownBy(() -> MetadataCodec.encode(huge)).hasMessageContaining("more than " + MetadataCodec.MAX_BYTES);
  }

  @Test
  void namesThatCouldLeaveTheDirectoryAreRefused() {
    assertThat(MetadataLayout.problem("train-0", "", "gpus")).isNull();
    assertThat(MetadataLayout.problem("train-0.v2", "gpu", "gpus")).isNull();
    assertThat(MetadataLayout.problem("..", "", "gpus")).contains("DNS subdomain");
    assertThat(MetadataLayout.problem("a/b", "", "gpus")).contains("DNS subdomain");
    assertThat(MetadataLayout.problem("a", "../x", "gpus")).contains("DNS label");
    assertThat(MetadataLayout.problem("a", "x.y", "gpus")).contains("DNS label");
    assertThat(MetadataLayout.problem("a", "", "gpus/big")).contains("request");
    assertThat(MetadataLayout.problem("a", "", "..")).contains("request");
    assertThat(MetadataLayout.problem("a", "", "R")).contains("request");
    assertThat(MetadataLayout.problem("a".repeat(254), "", "r")).contains("DNS subdomain");
    MetadataLayout layout = MetadataLayout.under(java.nio.file.Path.of("/var/lib/nodeatlas"), "nodeatlas.io");
    assertThatThrownBy(() -> layout.claimDir("../etc")).isInstanceOf(IllegalArgumentException.class);
    assertThatThrownBy(() -> layout.claimDir("")).isInstanceOf(IllegalArgumentException.class);
    assertThat(layout.hostPath("u-1", MetadataLayout.claimPart("train-0", "gpu"), "gpus"))
        .isEqualTo(java.nio.file.Path.of("/var/lib/nodeatlas/device-metadata/u-1/resourceclaimtemplates/gpu/gpus/nodeatlas.io-metadata.json"));
    assertThat(layout.containerPath(MetadataLayout.claimPart("train-0", ""), "gpus"))
        .isEqualTo("/var/run/kubernetes.io/dra-device-attributes/resourceclaims/train-0/gpus/nodeatlas.io-metadata.json");
  }
}
