package io.nodeatlas.agent.metadata;

import static org.assertj.core.api.Assertions.assertThat;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import io.nodeatlas.agent.claims.AllocatedClaim;
import io.nodeatlas.agent.claims.AllocatedDevice;
import io.nodeatlas.agent.claims.ClaimMetadata;
import io.nodeatlas.agent.claims.ClaimMount;
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
import java.util.Map;
import java.util.SortedMap;
import java.util.Optional;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/** The metadata files and the mounts of the claim's CDI spec on a real file system, with a network device's data. */
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

  Path legacySpec() {
    return cdi.resolve("nodeatlas.io_metadata_" + UID + ".json");
  }

  static final String GPUS_MOUNT = UID + "-metadata_gpus";
  static final String NET_MOUNT = UID + "-metadata_net";

  /** The devices as the preparer records them: the mounts' ids (in the claim's spec, of its kind) on each request's first device. */
  static final List<PreparedDevice> RECORDED = ClaimMetadata.withIds(DEVICES,
      Map.of("gpus", "nodeatlas.io/claim=" + GPUS_MOUNT, "net", "nodeatlas.io/claim=" + NET_MOUNT));

  @Test
  void eachRequestGetsItsFileAndAMountForTheClaimsOwnSpec() throws Exception {
    SortedMap<String, ClaimMount> mounts = files(true).write(CLAIM, new AllocatedClaim(RESULTS, "train"));

    Path gpus = file("resourceclaimtemplates/train", "gpus");
    assertThat(mounts).containsOnlyKeys("gpus", "net");
    assertThat(mounts.get("gpus")).isEqualTo(new ClaimMount(GPUS_MOUNT, gpus.toString(),
        "/var/run/kubernetes.io/dra-device-attributes/resourceclaimtemplates/train/gpus/nodeatlas.io-metadata.json"));
    assertThat(mounts.get("net").name()).isEqualTo(NET_MOUNT);
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
    assertThat(cdi).as("no spec of its own: the mounts go into the claim's spec").doesNotExist();
  }

  @Test
  void theMountsIdsGoToEachRequestsFirstDeviceOnce() {
    assertThat(RECORDED.get(0).cdiDeviceIds()).containsExactly("nodeatlas.io/claim=" + UID + "-gpu-0",
        "nodeatlas.io/claim=" + GPUS_MOUNT);
    assertThat(RECORDED.get(1).cdiDeviceIds()).isEqualTo(DEVICES.get(1).cdiDeviceIds());
    assertThat(RECORDED.get(2).cdiDeviceIds()).containsExactly("nodeatlas.io/claim=" + UID + "-nic-eth1",
        "nodeatlas.io/claim=" + NET_MOUNT);
    assertThat(ClaimMetadata.withIds(RECORDED, Map.of("gpus", "nodeatlas.io/claim=" + GPUS_MOUNT))).isEqualTo(RECORDED);
  }

  @Test
  void aRecordedClaimGetsBackWhatARebootOrACrashTookWithTheSameMounts() throws Exception {
    SortedMap<String, ClaimMount> first = files(true).write(CLAIM, new AllocatedClaim(RESULTS, ""));
    Path gpus = file("resourceclaims/train-0", "gpus");
    Path net = file("resourceclaims/train-0", "net");
    byte[] gpusBefore = Files.readAllBytes(gpus);

    // A new process (the files were checked by none yet): one file lost, one empty.
    Files.delete(gpus);
    Files.write(net, new byte[0]);
    ClaimMetadata.Restored again = files(true).restore(new PreparedClaim(CLAIM, RECORDED));

    assertThat(again.devices()).isEqualTo(RECORDED);
    assertThat(again.mounts()).containsExactlyElementsOf(first.values());
    JsonNode g = MetadataCodec.firstKnown(Files.readAllBytes(gpus)).orElseThrow();
    assertThat(g.at("/metadata/uid").asText()).isEqualTo(UID);
    assertThat(g.has("podClaimName")).isFalse();
    assertThat(g.at("/requests/0/name").asText()).isEqualTo("gpus"); // the subrequest is no longer known
    assertThat(g.at("/requests/0/devices")).isEqualTo(MetadataCodec.firstKnown(gpusBefore).orElseThrow().at("/requests/0/devices"));
    assertThat(MetadataCodec.firstKnown(Files.readAllBytes(net)).orElseThrow()
        .at("/requests/0/devices/0/networkData/interfaceName").asText()).isEqualTo("eth1");
    // Recorded mounts stay the claim's also when the feature is off now: its spec must define the recorded ids.
    assertThat(files(false).restore(new PreparedClaim(CLAIM, RECORDED)).mounts()).containsExactlyElementsOf(first.values());
  }

  @Test
  void aClaimOfThePreviousVersionKeepsItsOwnMetadataSpecAndIdsAndLosesThemOnUnprepare() throws Exception {
    // The previous version's state: the files, a spec of kind nodeatlas.io/metadata of their own, and a
    // checkpoint whose devices name no mount (the metadata ids were added to the answer only).
    files(true).write(CLAIM, new AllocatedClaim(RESULTS, ""));
    Files.createDirectories(cdi);
    Files.writeString(legacySpec(), "{\"cdiVersion\":\"0.3.0\",\"kind\":\"nodeatlas.io/metadata\",\"devices\":[]}");

    ClaimMetadata.Restored r = files(true).restore(new PreparedClaim(CLAIM, DEVICES));

    assertThat(r.mounts()).isEmpty();
    assertThat(r.devices().get(0).cdiDeviceIds()).containsExactly("nodeatlas.io/claim=" + UID + "-gpu-0",
        "nodeatlas.io/metadata=" + UID + "-gpus");
    assertThat(r.devices().get(2).cdiDeviceIds()).containsExactly("nodeatlas.io/claim=" + UID + "-nic-eth1",
        "nodeatlas.io/metadata=" + UID + "-net");
    JsonNode s = JSON.readTree(legacySpec().toFile());
    assertThat(s.get("kind").asText()).isEqualTo("nodeatlas.io/metadata");
    assertThat(s.get("devices")).extracting(d -> d.get("name").asText()).containsExactly(UID + "-gpus", UID + "-net");
    JsonNode mount = s.at("/devices/0/containerEdits/mounts/0");
    assertThat(mount.get("hostPath").asText()).isEqualTo(file("resourceclaims/train-0", "gpus").toString());
    assertThat(mount.get("containerPath").asText())
        .isEqualTo("/var/run/kubernetes.io/dra-device-attributes/resourceclaims/train-0/gpus/nodeatlas.io-metadata.json");

    // After a reboot (the tmpfs CDI dir emptied), a new process gives it back with the same ids.
    Files.delete(legacySpec());
    assertThat(files(true).restore(new PreparedClaim(CLAIM, DEVICES)).devices()).isEqualTo(r.devices());
    assertThat(legacySpec()).exists();

    files(true).remove(UID);
    assertThat(legacySpec()).doesNotExist();
    assertThat(state.resolve("device-metadata").resolve(UID)).doesNotExist();
  }

  @Test
  void unprepareRemovesTheTreeAlsoWhenTheFeatureIsOffNow() throws Exception {
    files(true).write(CLAIM, new AllocatedClaim(RESULTS, ""));
    Path outside = Files.writeString(dir.resolve("outside"), "keep");
    Files.createSymbolicLink(file("resourceclaims/train-0", "gpus").resolveSibling("planted"), outside);

    files(false).remove(UID);

    assertThat(state.resolve("device-metadata").resolve(UID)).doesNotExist();
    assertThat(outside).hasContent("keep");
    assertThat(state.resolve("device-metadata")).isDirectory();
  }

  @Test
  void offWritesNothingAndAnswersTheDevicesAsTheyAre() {
    DeviceMetadataFiles off = files(false);
    assertThat(off.write(CLAIM, new AllocatedClaim(RESULTS, ""))).isEmpty();
    assertThat(off.restore(new PreparedClaim(CLAIM, DEVICES))).isEqualTo(new ClaimMetadata.Restored(List.of(), DEVICES));
    assertThat(state.resolve("device-metadata")).doesNotExist();
    assertThat(cdi).doesNotExist();
  }

  @Test
  void aLinkInTheWayIsNeverWrittenThroughAndTheClaimGetsNoMount() throws Exception {
    Path elsewhere = Files.createDirectories(dir.resolve("elsewhere"));
    Files.createSymbolicLink(state.resolve("device-metadata"), elsewhere);

    assertThat(files(true).write(CLAIM, new AllocatedClaim(RESULTS, ""))).isEmpty();

    try (var in = Files.list(elsewhere)) {
      assertThat(in).isEmpty();
    }
  }

  @Test
  void aDanglingLinkOrAFileInTheWayIsNeverWrittenThroughAndTheClaimGetsNoMount() throws Exception {
    Path nowhere = dir.resolve("nowhere");
    Files.createDirectories(state.resolve("device-metadata"));
    Files.createSymbolicLink(state.resolve("device-metadata").resolve(UID), nowhere);

    assertThat(files(true).write(CLAIM, new AllocatedClaim(RESULTS, ""))).isEmpty();
    assertThat(nowhere).doesNotExist();

    Files.deleteIfExists(state.resolve("device-metadata").resolve(UID)); // the failed write took the link away
    Files.writeString(state.resolve("device-metadata").resolve(UID), "not a directory");
    assertThat(files(true).write(CLAIM, new AllocatedClaim(RESULTS, ""))).isEmpty();
    assertThat(file("resourceclaims/train-0", "gpus")).doesNotExist();
  }

  @Test
  void aSecondClaimWritesIntoTheDirectoriesTheFirstMade() throws Exception {
    ClaimRef other = new ClaimRef("team-a", "train-1", "0d9a4c55-7b1e-4a1c-8f00-00000000000b");
    assertThat(files(true).write(CLAIM, new AllocatedClaim(RESULTS, ""))).isNotEmpty();
    DeviceMetadataFiles again = files(true);
    assertThat(again.write(other, new AllocatedClaim(RESULTS, ""))).containsOnlyKeys("gpus", "net");
    // The same claim again (its directories all there) gets its files rewritten in place.
    assertThat(again.write(CLAIM, new AllocatedClaim(RESULTS, ""))).containsOnlyKeys("gpus", "net");
    assertThat(file("resourceclaims/train-0", "gpus")).isRegularFile();
    assertThat(state.resolve("device-metadata").resolve(other.uid())).isDirectory();
  }

  @Test
  void aDevicesEntryIsWrittenFromWhatItIsNowAndTheSameAsWrittenInPlace() throws Exception {
    DeviceMetadataFiles files = files(true);
    files.write(CLAIM, new AllocatedClaim(RESULTS, ""));
    ClaimRef second = new ClaimRef("team-a", "train-1", "0d9a4c55-7b1e-4a1c-8f00-00000000000b");
    files.write(second, new AllocatedClaim(RESULTS, ""));
    assertThat(files.encodedEntries()).isEqualTo(3);
    Path secondGpus = state.resolve("device-metadata").resolve(second.uid()).resolve("resourceclaims/train-1/gpus")
        .resolve("nodeatlas.io-metadata.json");
    // The bytes the codec writes without kept entries.
    List<RequestMetadata.DeviceEntry> gpus = List.of(
        new RequestMetadata.DeviceEntry("nodeatlas.io", "node-a", "gpu-0", TestDevices.gpu(0).attributes(), Optional.empty()),
        new RequestMetadata.DeviceEntry("nodeatlas.io", "node-a", "gpu-1", TestDevices.gpu(1).attributes(), Optional.empty()));
    assertThat(Files.readAllBytes(secondGpus)).isEqualTo(MetadataCodec.encode(
        new RequestMetadata("team-a", "train-1", second.uid(), 1, "", "gpus/big", gpus)));

    // Rediscovered with another attribute: the next claim's file says what the device is now.
    Device changed = Device.builder("gpu-1", "gpu").attribute(Device.TYPE, "gpu").attribute("nodeatlas.io/uuid", "GPU-NEW").build();
    inventory.replace(List.of(TestDevices.gpu(0), changed, nic()));
    files.remove(second.uid());
    files.write(second, new AllocatedClaim(RESULTS, ""));
    JsonNode g = MetadataCodec.firstKnown(Files.readAllBytes(secondGpus)).orElseThrow();
    assertThat(g.at("/requests/0/devices/1/attributes/nodeatlas.io~1uuid/string").asText()).isEqualTo("GPU-NEW");
    assertThat(g.at("/requests/0/devices/1/attributes").has("resource.kubernetes.io/numaNode")).isFalse();
  }

  @Test
  void theKeptEntriesAreBounded() throws Exception {
    DeviceMetadataFiles files = files(true);
    for (int round = 0; round * 3 <= DeviceMetadataFiles.MAX_ENCODED_ENTRIES + 3; round++) {
      // Each round's devices differ (a new uuid): entries of devices that changed are never asked for again.
      inventory.replace(List.of(gpuNamed(0, round), gpuNamed(1, round), nic()));
      files.write(CLAIM, new AllocatedClaim(RESULTS, ""));
      files.remove(UID);
      assertThat(files.encodedEntries()).isLessThanOrEqualTo(DeviceMetadataFiles.MAX_ENCODED_ENTRIES);
    }
  }

  private static Device gpuNamed(int index, int round) {
    return Device.builder("gpu-" + index, "gpu").attribute(Device.TYPE, "gpu").attribute("nodeatlas.io/uuid", "GPU-" + round).build();
  }

  @Test
  void unprepareRemovesTheTreeItWroteAndNothingElse() throws Exception {
    DeviceMetadataFiles files = files(true);
    ClaimRef second = new ClaimRef("team-a", "train-1", "0d9a4c55-7b1e-4a1c-8f00-00000000000b");
    files.write(CLAIM, new AllocatedClaim(RESULTS, "train"));
    files.write(second, new AllocatedClaim(RESULTS, ""));

    files.remove(UID);

    assertThat(state.resolve("device-metadata").resolve(UID)).doesNotExist();
    assertThat(state.resolve("device-metadata").resolve(second.uid()).resolve("resourceclaims/train-1/net"))
        .isDirectory();
    files.remove(second.uid());
    try (var left = Files.list(state.resolve("device-metadata"))) {
      assertThat(left).isEmpty();
    }
  }

  @Test
  void unprepareRemovesTheTreeAlsoWhenSomeoneChangedIt() throws Exception {
    Path outside = Files.createDirectories(dir.resolve("outside"));
    Files.writeString(outside.resolve("nodeatlas.io-metadata.json"), "keep");
    Path claimDir = state.resolve("device-metadata").resolve(UID);
    Path gpus = file("resourceclaims/train-0", "gpus").getParent();
    Path net = file("resourceclaims/train-0", "net").getParent();
    // A file added, a request directory replaced by a link to elsewhere, one removed, the claim's directory a link.
    List<java.util.function.Consumer<DeviceMetadataFiles>> changes = List.of(
        f -> io(() -> Files.writeString(gpus.resolve("extra"), "x")),
        f -> io(() -> {
          deleteTree(gpus);
          Files.createSymbolicLink(gpus, outside);
        }),
        f -> io(() -> deleteTree(net)),
        f -> io(() -> {
          deleteTree(claimDir);
          Files.createSymbolicLink(claimDir, outside);
        }));
    for (java.util.function.Consumer<DeviceMetadataFiles> change : changes) {
      DeviceMetadataFiles files = files(true);
      files.write(CLAIM, new AllocatedClaim(RESULTS, ""));
      change.accept(files);

      files.remove(UID);

      assertThat(claimDir).doesNotExist();
      assertThat(outside.resolve("nodeatlas.io-metadata.json")).hasContent("keep");
      assertThat(state.resolve("device-metadata")).isDirectory();
    }
  }

  private interface IoAction {
    void run() throws java.io.IOException;
  }

  private static void io(IoAction a) {
    try {
      a.run();
    } catch (java.io.IOException e) {
      throw new java.io.UncheckedIOException(e);
    }
  }

  private static void deleteTree(Path p) throws java.io.IOException {
    try (var all = Files.walk(p)) {
      for (Path x : all.sorted(java.util.Comparator.reverseOrder()).toList()) {
        Files.delete(x);
      }
    }
  }

  @Test
  void badNamesFromTheApiServerWriteNothing() {
    ClaimRef odd = new ClaimRef("team-a", "train-0", UID);
    List<AllocatedDevice> bad = List.of(new AllocatedDevice("../../etc", "nodeatlas.io", "node-a", "gpu-0", false));
    assertThat(files(true).write(odd, new AllocatedClaim(bad, ""))).isEmpty();
    assertThat(files(true).write(odd, new AllocatedClaim(RESULTS, "../x"))).isEmpty();
    assertThat(state.resolve("device-metadata")).doesNotExist();
  }
}
