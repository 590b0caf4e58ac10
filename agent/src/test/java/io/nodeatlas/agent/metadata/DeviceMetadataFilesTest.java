package io.nodeatlas.agent.metadata;

import static org.assertj.core.api.Assertions.assertThat;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import io.nodeatlas.agent.claims.AllocatedClaim;
import io.nodeatlas.agent.claims.AllocatedDevice;
import io.nodeatlas.agent.claims.ClaimRef;
import io.nodeatlas.agent.claims.DeviceInventory;
import io.nodeatlas.agent.claims.PreparedClaim;
import io.nodeatlas.agent.claims.PreparedDevice;
import io.nodeatlas.agent.testing.TestDevices;
import io.nodeatlas.discovery.model.ContainerEdits;
import io.nodeatlas.discovery.model.Device;
import io.nodeatlas.discovery.share.NetworkData;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.attribute.PosixFilePermissions;
import java.util.List;
import java.util.Optional;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/** The metadata files and their CDI spec on a real file system, with a network device's data. */
class DeviceMetadataFilesTest {

  private static final ObjectMapper JSON = new ObjectMapper();
  static final String UID = "0d9a4c55-7b1e-4a1c-8f00-00000000000a";

  @TempDir Path dir;
  Path state;
  Path cdi;
  DeviceInventory inventory = new DeviceInventory("node-a");

  static Device nic() {
    return Device.builder("nic-eth1", "nic").attribute(Device.TYPE, "nic").attribute("nodeatlas.io/interface", "eth1")
        .containerEdits(ContainerEdits.builder().env("NODEATLAS_NIC=eth1").build()).build();
  }

  @BeforeEach
  void setUp() throws Exception {
    state = Files.createDirectories(dir.resolve("state"));
    cdi = dir.resolve("cdi");
    inventory.replace(List.of(TestDevices.gpu(0), TestDevices.gpu(1), nic()));
  }

  DeviceMetadataFiles files(boolean on) {
    return new DeviceMetadataFiles(state, cdi, "nodeatlas.io", inventory,
        d -> d.name().equals("nic-eth1") ? Optional.of(new NetworkData("eth1", "0c:42:a1:00:00:01")) : Optional.empty(), on);
  }

  static final ClaimRef CLAIM = new ClaimRef("team-a", "train-0", UID);
  static final List<AllocatedDevice> RESULTS = List.of(
      new AllocatedDevice("gpus/big", "nodeatlas.io", "node-a", "gpu-0", false),
      new AllocatedDevice("gpus/big", "nodeatlas.io", "node-a", "gpu-1", false),
      new AllocatedDevice("net", "nodeatlas.io", "node-a", "nic-eth1", false));
  static final List<PreparedDevice> DEVICES = List.of(
      new PreparedDevice(List.of("gpus"), "node-a", "gpu-0", List.of("nodeatlas.io/claim=" + UID + "-gpu-0")),
      new PreparedDevice(List.of("gpus"), "node-a", "gpu-1", List.of("nodeatlas.io/claim=" + UID + "-gpu-1")),
      new PreparedDevice(List.of("net"), "node-a", "nic-eth1", List.of("nodeatlas.io/claim=" + UID + "-nic-eth1")));

  Path file(String part, String request) {
    return state.resolve("device-metadata").resolve(UID).resolve(part).resolve(request).resolve("nodeatlas.io-metadata.json");
  }

  Path spec() {
    return cdi.resolve("nodeatlas.io_metadata_" + UID + ".json");
  }

  @Test
  void eachRequestGetsItsFileAMountAndAnIdOnItsFirstDevice() throws Exception {
    List<PreparedDevice> answer = files(true).prepared(CLAIM, new AllocatedClaim(RESULTS, "train"), DEVICES);

    assertThat(answer.get(0).cdiDeviceIds()).containsExactly("nodeatlas.io/claim=" + UID + "-gpu-0",
        "nodeatlas.io/metadata=" + UID + "-gpus");
    assertThat(answer.get(1).cdiDeviceIds()).isEqualTo(DEVICES.get(1).cdiDeviceIds());
    assertThat(answer.get(2).cdiDeviceIds()).containsExactly("nodeatlas.io/claim=" + UID + "-nic-eth1",
        "nodeatlas.io/metadata=" + UID + "-net");

    Path gpus = file("resourceclaimtemplates/train", "gpus");
    assertThat(PosixFilePermissions.toString(Files.getPosixFilePermissions(gpus))).isEqualTo("rw-r--r--");
    JsonNode g = MetadataCodec.firstKnown(Files.readAllBytes(gpus)).orElseThrow();
    assertThat(g.get("podClaimName").asText()).isEqualTo("train");
    assertThat(g.at("/requests/0/name").asText()).isEqualTo("gpus/big");
    assertThat(g.at("/requests/0/devices")).extracting(d -> d.get("name").asText()).containsExactly("gpu-0", "gpu-1");
    assertThat(g.at("/requests/0/devices/1/attributes/nodeatlas.io~1uuid/string").asText()).isEqualTo("GPU-00000001-aaaa-bbbb-cccc");
    assertThat(g.at("/requests/0/devices/1/attributes/resource.kubernetes.io~1numaNode/int").asLong()).isEqualTo(1);
    JsonNode n = MetadataCodec.firstKnown(Files.readAllBytes(file("resourceclaimtemplates/train", "net"))).orElseThrow();
    assertThat(n.at("/requests/0/devices/0/networkData/interfaceName").asText()).isEqualTo("eth1");
    assertThat(n.at("/requests/0/devices/0/networkData/hardwareAddress").asText()).isEqualTo("0c:42:a1:00:00:01");

    JsonNode s = JSON.readTree(spec().toFile());
    assertThat(s.get("kind").asText()).isEqualTo("nodeatlas.io/metadata");
    assertThat(s.get("devices")).extracting(d -> d.get("name").asText()).containsExactly(UID + "-gpus", UID + "-net");
    JsonNode mount = s.at("/devices/0/containerEdits/mounts/0");
    assertThat(mount.get("hostPath").asText()).isEqualTo(gpus.toString());
    assertThat(mount.get("containerPath").asText())
        .isEqualTo("/var/run/kubernetes.io/dra-device-attributes/resourceclaimtemplates/train/gpus/nodeatlas.io-metadata.json");
    assertThat(mount.get("options")).extracting(JsonNode::asText).containsExactly("ro", "bind");
  }

  @Test
  void aRecordedClaimGetsBackWhatARebootOrACrashTookWithTheSameIds() throws Exception {
    List<PreparedDevice> first = files(true).prepared(CLAIM, new AllocatedClaim(RESULTS, ""), DEVICES);
    Path gpus = file("resourceclaims/train-0", "gpus");
    Path net = file("resourceclaims/train-0", "net");
    byte[] gpusBefore = Files.readAllBytes(gpus);

    // A new process (the files were checked by none yet): the spec gone with the tmpfs, one file lost, one empty.
    Files.delete(spec());
    Files.delete(gpus);
    Files.write(net, new byte[0]);
    List<PreparedDevice> again = files(true).restored(new PreparedClaim(CLAIM, DEVICES));

    assertThat(again).isEqualTo(first);
    assertThat(spec()).exists();
    JsonNode g = MetadataCodec.firstKnown(Files.readAllBytes(gpus)).orElseThrow();
    assertThat(g.at("/metadata/uid").asText()).isEqualTo(UID);
    assertThat(g.has("podClaimName")).isFalse();
    assertThat(g.at("/requests/0/name").asText()).isEqualTo("gpus"); // the subrequest is no longer known
    assertThat(g.at("/requests/0/devices")).isEqualTo(MetadataCodec.firstKnown(gpusBefore).orElseThrow().at("/requests/0/devices"));
    assertThat(MetadataCodec.firstKnown(Files.readAllBytes(net)).orElseThrow()
        .at("/requests/0/devices/0/networkData/interfaceName").asText()).isEqualTo("eth1");
  }

  @Test
  void unprepareRemovesTheTreeAndTheSpecAlsoWhenTheFeatureIsOffNow() throws Exception {
    files(true).prepared(CLAIM, new AllocatedClaim(RESULTS, ""), DEVICES);
    Path outside = Files.writeString(dir.resolve("outside"), "keep");
    Files.createSymbolicLink(file("resourceclaims/train-0", "gpus").resolveSibling("planted"), outside);

    files(false).remove(UID);

    assertThat(state.resolve("device-metadata").resolve(UID)).doesNotExist();
    assertThat(spec()).doesNotExist();
    assertThat(outside).hasContent("keep");
    assertThat(state.resolve("device-metadata")).isDirectory();
  }

  @Test
  void offWritesNothingAndAnswersTheDevicesAsTheyAre() {
    DeviceMetadataFiles off = files(false);
    assertThat(off.prepared(CLAIM, new AllocatedClaim(RESULTS, ""), DEVICES)).isEqualTo(DEVICES);
    assertThat(off.restored(new PreparedClaim(CLAIM, DEVICES))).isEqualTo(DEVICES);
    assertThat(state.resolve("device-metadata")).doesNotExist();
    assertThat(cdi).doesNotExist();
  }

  @Test
  void aLinkInTheWayIsNeverWrittenThroughAndTheClaimIsAnsweredWithoutMetadata() throws Exception {
    Path elsewhere = Files.createDirectories(dir.resolve("elsewhere"));
    Files.createSymbolicLink(state.resolve("device-metadata"), elsewhere);

    assertThat(files(true).prepared(CLAIM, new AllocatedClaim(RESULTS, ""), DEVICES)).isEqualTo(DEVICES);

    try (var in = Files.list(elsewhere)) {
      assertThat(in).isEmpty();
    }
    assertThat(spec()).doesNotExist();
  }

  @Test
  void badNamesFromTheApiServerWriteNothing() {
    ClaimRef odd = new ClaimRef("team-a", "train-0", UID);
    List<AllocatedDevice> bad = List.of(new AllocatedDevice("../../etc", "nodeatlas.io", "node-a", "gpu-0", false));
    assertThat(files(true).prepared(odd, new AllocatedClaim(bad, ""), DEVICES)).isEqualTo(DEVICES);
    assertThat(files(true).prepared(odd, new AllocatedClaim(RESULTS, "../x"), DEVICES)).isEqualTo(DEVICES);
    assertThat(state.resolve("device-metadata")).doesNotExist();
  }
}
