package io.nodeatlas.agent.metadata;

import static org.assertj.core.api.Assertions.assertThat;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import io.fabric8.kubernetes.api.model.resource.v1.ResourceClaim;
import io.fabric8.kubernetes.api.model.resource.v1.ResourceClaimBuilder;
import io.fabric8.kubernetes.client.KubernetesClient;
import io.fabric8.kubernetes.client.server.mock.EnableKubernetesMockClient;
import io.nodeatlas.agent.kubelet.api.dra.v1.NodePrepareResourceResponse;
import io.nodeatlas.agent.run.AgentSettings;
import io.nodeatlas.agent.testing.ApiObjects;
import io.nodeatlas.agent.testing.FakeKubelet;
import io.nodeatlas.agent.testing.RunningAgent;
import io.nodeatlas.discovery.host.HostFs;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.List;
import java.util.Map;
import java.util.stream.Stream;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * Device metadata (KEP-5304) through the real gRPC NodePrepareResources / NodeUnprepareResources over
 * the unix socket, claims read from the API server (the CRUD mock): the Prepare answer carries the
 * mount's CDI id, the claim's metadata spec mounts the request's file read-only at the path
 * k8s.io/dynamic-resource-allocation {@code api/metadata} defines, the file holds the devices as their
 * slice publishes them; Unprepare removes both; after a reboot (a new boot ID, the tmpfs CDI dir
 * emptied) the kubelet's Prepare gets the same ids and the spec and a lost file back.
 */
@EnableKubernetesMockClient(crud = true)
class DeviceMetadataAgentTest {

  private static final ObjectMapper JSON = new ObjectMapper();
  private static final String CONTAINER_DIR = "/var/run/kubernetes.io/dra-device-attributes";

  KubernetesClient client;

  @TempDir Path dir;

  AgentSettings settings(Path proc) throws Exception {
    return new AgentSettings("nodeatlas.io", "node-a", dir.resolve("kubelet"), dir.resolve("cdi"), dir.resolve("state"),
        "127.0.0.1", 0, -1, Duration.ofSeconds(2), Duration.ofSeconds(2)).withHost(HostFs.of(proc));
  }

  /** An allocated claim; {@code podClaimName} non-empty: made from a template, as the ResourceClaim controller annotates it. */
  String claim(String name, String podClaimName, String request, String device) {
    ResourceClaimBuilder b = new ResourceClaimBuilder().withNewMetadata().withNamespace("default").withName(name)
        .withAnnotations(podClaimName.isEmpty() ? Map.of() : Map.of("resource.kubernetes.io/pod-claim-name", podClaimName))
        .endMetadata().withNewSpec().endSpec()
        .withNewStatus().withNewAllocation().withNewDevices()
        .withResults(ApiObjects.result(request, "nodeatlas.io", "node-a", device)).endDevices().endAllocation().endStatus();
    return client.resources(ResourceClaim.class).inNamespace("default").resource(b.build()).create().getMetadata().getUid();
  }

  /** The claim's one CDI spec, which carries the metadata mounts too. */
  Path spec(AgentSettings s, String uid) {
    return s.cdiRoot().resolve("nodeatlas.io-claim_" + uid + ".json");
  }

  /** The previous version's metadata spec of a claim. */
  Path legacySpec(AgentSettings s, String uid) {
    return s.cdiRoot().resolve("nodeatlas.io_metadata_" + uid + ".json");
  }

  /** The CDI dir's files that name {@code uid}. */
  List<String> specsOf(AgentSettings s, String uid) throws Exception {
    try (Stream<Path> files = Files.list(s.cdiRoot())) {
      return files.map(f -> f.getFileName().toString()).filter(n -> n.contains(uid)).sorted().toList();
    }
  }

  /** The spec's mount of {@code uid}'s request, checked to be a read-only bind of a file under the state directory. */
  JsonNode mount(AgentSettings s, String uid, String request) throws Exception {
    JsonNode spec = JSON.readTree(spec(s, uid).toFile());
    assertThat(spec.get("kind").asText()).isEqualTo("nodeatlas.io/claim");
    JsonNode device = null;
    for (JsonNode d : spec.get("devices")) {
      if (d.get("name").asText().equals(uid + "-metadata_" + request)) {
        device = d;
      }
    }
    assertThat(device).as("CDI device %s-metadata_%s", uid, request).isNotNull();
    JsonNode mount = device.at("/containerEdits/mounts/0");
    assertThat(mount.get("options")).extracting(JsonNode::asText).contains("ro", "bind");
    assertThat(Path.of(mount.get("hostPath").asText())).startsWith(s.stateDir().toAbsolutePath()).isRegularFile();
    return mount;
  }

  /** The first object of the file, read as the upstream reader does (first known apiVersion of the stream). */
  static JsonNode read(Path file) throws Exception {
    return MetadataCodec.firstKnown(Files.readAllBytes(file)).orElseThrow();
  }

  @Test
  void preparedRequestsGetTheirFileMountedReadOnlyAndLoseItOnUnprepareAndGetItBackAfterAReboot() throws Exception {
    ApiObjects.node(client, "node-a");
    Path proc = Files.createDirectories(dir.resolve("host/proc/sys/kernel/random"));
    Files.writeString(proc.resolve("boot_id"), "0b7e2d36-6a4b-4a55-9d2f-111111111111\n");
    AgentSettings s = settings(dir.resolve("host"));
    String direct = claim("direct", "", "gpus", "gpu-0");
    String generated = claim("pod-a-accel-x7k2q", "accel", "gpus/big", "gpu-1");

    List<String> idsBefore;
    Path generatedFile;
    try (RunningAgent a = new RunningAgent(s, client, o -> o.withDeviceMetadata(true))) {
      var r = a.kubelet.prepare(FakeKubelet.claim("default", "direct", direct),
          FakeKubelet.claim("default", "pod-a-accel-x7k2q", generated));
      NodePrepareResourceResponse d = r.getClaimsOrThrow(direct);
      assertThat(d.getError()).isEmpty();
      assertThat(d.getDevices(0).getCdiDeviceIdsList()).containsExactly("nodeatlas.io/claim=" + direct + "-gpu-0",
          "nodeatlas.io/claim=" + direct + "-metadata_gpus");
      assertThat(specsOf(s, direct)).as("one spec per claim").containsExactly(spec(s, direct).getFileName().toString());

      // A claim the pod names: resourceclaims/<claim>/<request>/<driver>-metadata.json.
      JsonNode m = mount(s, direct, "gpus");
      assertThat(m.get("containerPath").asText()).isEqualTo(CONTAINER_DIR + "/resourceclaims/direct/gpus/nodeatlas.io-metadata.json");
      JsonNode file = read(Path.of(m.get("hostPath").asText()));
      assertThat(file.get("apiVersion").asText()).isEqualTo("metadata.resource.k8s.io/v1alpha1");
      assertThat(file.get("kind").asText()).isEqualTo("DeviceMetadata");
      assertThat(file.at("/metadata/name").asText()).isEqualTo("direct");
      assertThat(file.at("/metadata/namespace").asText()).isEqualTo("default");
      assertThat(file.at("/metadata/uid").asText()).isEqualTo(direct);
      assertThat(file.has("podClaimName")).isFalse();
      assertThat(file.at("/requests/0/name").asText()).isEqualTo("gpus");
      JsonNode gpu = file.at("/requests/0/devices/0");
      assertThat(gpu.get("driver").asText()).isEqualTo("nodeatlas.io");
      assertThat(gpu.get("pool").asText()).isEqualTo("node-a");
      assertThat(gpu.get("name").asText()).isEqualTo("gpu-0");
      assertThat(gpu.at("/attributes/nodeatlas.io~1uuid/string").asText()).isEqualTo("GPU-00000000-aaaa-bbbb-cccc");
      assertThat(gpu.at("/attributes/nodeatlas.io~1driverVersion/version").asText()).isEqualTo("580.65.6");
      assertThat(gpu.at("/attributes/resource.kubernetes.io~1pciBusID/string").asText()).isEqualTo("0000:10:00.0");

      // A claim made from a template: resourceclaimtemplates/<the pod's name for it>/<request>/..., the subrequest kept in the file.
      NodePrepareResourceResponse g = r.getClaimsOrThrow(generated);
      assertThat(g.getError()).isEmpty();
      assertThat(g.getDevices(0).getRequestNamesList()).containsExactly("gpus");
      idsBefore = g.getDevices(0).getCdiDeviceIdsList();
      assertThat(idsBefore).contains("nodeatlas.io/claim=" + generated + "-metadata_gpus");
      m = mount(s, generated, "gpus");
      assertThat(m.get("containerPath").asText())
          .isEqualTo(CONTAINER_DIR + "/resourceclaimtemplates/accel/gpus/nodeatlas.io-metadata.json");
      generatedFile = Path.of(m.get("hostPath").asText());
      file = read(generatedFile);
      assertThat(file.get("podClaimName").asText()).isEqualTo("accel");
      assertThat(file.at("/requests/0/name").asText()).isEqualTo("gpus/big");
      assertThat(file.at("/requests/0/devices/0/name").asText()).isEqualTo("gpu-1");

      // Prepare again (the kubelet restarted): the same answer, from the checkpoint.
      assertThat(a.kubelet.prepare(FakeKubelet.claim("default", "direct", direct)).getClaimsOrThrow(direct)).isEqualTo(d);

      // Unprepare: the file, its claim's tree and the spec go.
      Path directFile = Path.of(mount(s, direct, "gpus").get("hostPath").asText());
      assertThat(a.kubelet.unprepare(FakeKubelet.claim("default", "direct", direct)).getClaimsOrThrow(direct).getError()).isEmpty();
      assertThat(directFile).doesNotExist();
      assertThat(s.stateDir().resolve("device-metadata").resolve(direct)).doesNotExist();
      assertThat(specsOf(s, direct)).isEmpty();
      assertThat(generatedFile).exists();
    }

    // The reboot: a new boot ID, the tmpfs CDI dir empty, and (a crash before the page cache reached the disk) the file lost.
    Files.writeString(proc.resolve("boot_id"), "0b7e2d36-6a4b-4a55-9d2f-222222222222\n");
    try (Stream<Path> files = Files.list(s.cdiRoot())) {
      for (Path f : files.toList()) {
        Files.delete(f);
      }
    }
    Files.delete(generatedFile);
    try (RunningAgent b = new RunningAgent(s, client, o -> o.withDeviceMetadata(true))) {
      NodePrepareResourceResponse g = b.kubelet.prepare(FakeKubelet.claim("default", "pod-a-accel-x7k2q", generated))
          .getClaimsOrThrow(generated);
      assertThat(g.getError()).isEmpty();
      assertThat(g.getDevices(0).getCdiDeviceIdsList()).isEqualTo(idsBefore);
      JsonNode m = mount(s, generated, "gpus");
      assertThat(m.get("containerPath").asText())
          .isEqualTo(CONTAINER_DIR + "/resourceclaimtemplates/accel/gpus/nodeatlas.io-metadata.json");
      JsonNode file = read(generatedFile);
      assertThat(file.get("podClaimName").asText()).isEqualTo("accel");
      assertThat(file.at("/metadata/uid").asText()).isEqualTo(generated);
      assertThat(file.at("/requests/0/devices/0/name").asText()).isEqualTo("gpu-1");
    }
  }

  @Test
  void turnedOffPrepareWritesNoMetadataAndAnswersNoId() throws Exception {
    ApiObjects.node(client, "node-a");
    Path proc = Files.createDirectories(dir.resolve("host/proc/sys/kernel/random"));
    Files.writeString(proc.resolve("boot_id"), "0b7e2d36-6a4b-4a55-9d2f-333333333333\n");
    AgentSettings s = settings(dir.resolve("host"));
    String uid = claim("plain", "", "gpus", "gpu-0");
    try (RunningAgent a = new RunningAgent(s, client, o -> o.withDeviceMetadata(false))) {
      NodePrepareResourceResponse r = a.kubelet.prepare(FakeKubelet.claim("default", "plain", uid)).getClaimsOrThrow(uid);
      assertThat(r.getError()).isEmpty();
      assertThat(r.getDevices(0).getCdiDeviceIdsList()).containsExactly("nodeatlas.io/claim=" + uid + "-gpu-0");
      assertThat(JSON.readTree(spec(s, uid).toFile()).get("devices")).extracting(n -> n.get("name").asText())
          .containsExactly(uid + "-gpu-0");
      assertThat(specsOf(s, uid)).containsExactly(spec(s, uid).getFileName().toString());
      assertThat(s.stateDir().resolve("device-metadata")).doesNotExist();
    }
  }

  /**
   * A claim prepared by the previous version (its metadata in a spec of its own, kind nodeatlas.io/metadata,
   * whose ids the checkpoint does not record): answered with those ids again, after a restart and after a
   * reboot that emptied the CDI dir, and Unprepare removes both specs and the files.
   */
  @Test
  void aClaimPreparedByThePreviousVersionKeepsItsMetadataSpecAndIdsAndLosesAllOnUnprepare() throws Exception {
    ApiObjects.node(client, "node-a");
    Path proc = Files.createDirectories(dir.resolve("host/proc/sys/kernel/random"));
    Files.writeString(proc.resolve("boot_id"), "0b7e2d36-6a4b-4a55-9d2f-444444444444\n");
    AgentSettings s = settings(dir.resolve("host"));
    String uid = claim("old", "", "gpus", "gpu-0");
    // The previous version's state: the checkpoint and claim spec of a Prepare (here one with metadata off,
    // which records the same), the file under the state directory and its own spec, as that version wrote them.
    try (RunningAgent a = new RunningAgent(s, client, o -> o.withDeviceMetadata(false))) {
      assertThat(a.kubelet.prepare(FakeKubelet.claim("default", "old", uid)).getClaimsOrThrow(uid).getError()).isEmpty();
    }
    Path file = s.stateDir().resolve("device-metadata").resolve(uid).resolve("resourceclaims/old/gpus/nodeatlas.io-metadata.json");
    Files.createDirectories(file.getParent());
    Files.write(file, MetadataCodec.encode(new RequestMetadata("default", "old", uid, 1, "", "gpus", List.of())));
    String container = CONTAINER_DIR + "/resourceclaims/old/gpus/nodeatlas.io-metadata.json";
    String legacy = "{\"cdiVersion\":\"0.3.0\",\"kind\":\"nodeatlas.io/metadata\",\"devices\":[{\"name\":\"" + uid
        + "-gpus\",\"containerEdits\":{\"mounts\":[{\"hostPath\":\"" + file.toAbsolutePath() + "\",\"containerPath\":\""
        + container + "\",\"options\":[\"ro\",\"bind\"]}]}}]}";
    Files.writeString(legacySpec(s, uid), legacy);
    List<String> oldIds = List.of("nodeatlas.io/claim=" + uid + "-gpu-0", "nodeatlas.io/metadata=" + uid + "-gpus");

    try (RunningAgent a = new RunningAgent(s, client, o -> o.withDeviceMetadata(true))) {
      NodePrepareResourceResponse r = a.kubelet.prepare(FakeKubelet.claim("default", "old", uid)).getClaimsOrThrow(uid);
      assertThat(r.getError()).isEmpty();
      assertThat(r.getDevices(0).getCdiDeviceIdsList()).isEqualTo(oldIds);
      assertThat(JSON.readTree(legacySpec(s, uid).toFile()).at("/devices/0/containerEdits/mounts/0/containerPath").asText())
          .isEqualTo(container);
    }
    // The reboot: a new boot ID and the tmpfs CDI dir empty.
    Files.writeString(proc.resolve("boot_id"), "0b7e2d36-6a4b-4a55-9d2f-555555555555\n");
    Files.delete(legacySpec(s, uid));
    Files.delete(spec(s, uid));
    try (RunningAgent b = new RunningAgent(s, client, o -> o.withDeviceMetadata(true))) {
      NodePrepareResourceResponse r = b.kubelet.prepare(FakeKubelet.claim("default", "old", uid)).getClaimsOrThrow(uid);
      assertThat(r.getError()).isEmpty();
      assertThat(r.getDevices(0).getCdiDeviceIdsList()).isEqualTo(oldIds);
      JsonNode back = JSON.readTree(legacySpec(s, uid).toFile());
      assertThat(back.get("kind").asText()).isEqualTo("nodeatlas.io/metadata");
      assertThat(back.at("/devices/0/name").asText()).isEqualTo(uid + "-gpus");
      assertThat(back.at("/devices/0/containerEdits/mounts/0/hostPath").asText()).isEqualTo(file.toAbsolutePath().toString());
      assertThat(back.at("/devices/0/containerEdits/mounts/0/containerPath").asText()).isEqualTo(container);
      assertThat(spec(s, uid)).exists();

      assertThat(b.kubelet.unprepare(FakeKubelet.claim("default", "old", uid)).getClaimsOrThrow(uid).getError()).isEmpty();
      assertThat(specsOf(s, uid)).isEmpty();
      assertThat(s.stateDir().resolve("device-metadata").resolve(uid)).doesNotExist();
    }
  }
}
