package io.nodeatlas.agent.kubelet;

import static io.nodeatlas.agent.testing.ApiObjects.allocatedClaim;
import static io.nodeatlas.agent.testing.ApiObjects.result;
import static io.nodeatlas.agent.testing.ApiObjects.shareResult;
import static io.nodeatlas.agent.testing.FakeKubelet.claim;
import static org.assertj.core.api.Assertions.assertThat;

import io.fabric8.kubernetes.api.model.resource.v1.ResourceClaim;
import io.fabric8.kubernetes.client.ConfigBuilder;
import io.fabric8.kubernetes.client.KubernetesClient;
import io.fabric8.kubernetes.client.KubernetesClientBuilder;
import io.fabric8.kubernetes.client.jdkhttp.JdkHttpClientFactory;
import io.fabric8.kubernetes.client.server.mock.EnableKubernetesMockClient;
import io.fabric8.kubernetes.client.server.mock.KubernetesMockServer;
import io.fabric8.mockwebserver.http.RecordedRequest;
import io.nodeatlas.agent.claims.ApiClaimLookup;
import io.nodeatlas.agent.claims.Checkpoint;
import io.nodeatlas.agent.claims.ClaimLookup;
import io.nodeatlas.agent.claims.ClaimPreparer;
import io.nodeatlas.agent.claims.ClaimSpecStore;
import io.nodeatlas.agent.claims.DeviceInventory;
import io.nodeatlas.agent.kubelet.api.dra.v1.Device;
import io.nodeatlas.agent.kubelet.api.dra.v1.NodePrepareResourceResponse;
import io.nodeatlas.agent.kubelet.api.dra.v1.NodePrepareResourcesResponse;
import io.nodeatlas.agent.kubelet.api.dra.v1.NodeUnprepareResourcesResponse;
import io.nodeatlas.agent.kubelet.api.registration.InfoRequest;
import io.nodeatlas.agent.kubelet.api.registration.PluginInfo;
import io.nodeatlas.agent.kubelet.api.registration.RegistrationStatus;
import io.nodeatlas.agent.testing.FakeKubelet;
import io.nodeatlas.agent.testing.TestDevices;
import java.nio.file.Files;
import java.nio.file.LinkOption;
import java.nio.file.Path;
import java.nio.file.attribute.BasicFileAttributes;
import java.util.ArrayList;
import java.util.HashSet;
import java.util.List;
import java.util.Set;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.Future;
import java.util.stream.Stream;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * The kubelet's view of the plugin: real unix sockets in a temporary kubelet root, real CDI files,
 * a real checkpoint, and the API server played by fabric8's CRUD mock.
 */
@EnableKubernetesMockClient(crud = true)
class KubeletPluginServerTest {

  static final String DRIVER = "nodeatlas.io";
  static final String NODE = "node-a";

  KubernetesClient client;
  KubernetesMockServer api;

  @TempDir Path kubeletRoot;
  @TempDir Path cdiRoot;
  @TempDir Path stateDir;

  DeviceInventory inventory;
  KubeletPluginServer server;
  FakeKubelet kubelet;

  @BeforeEach
  void start() throws Exception {
    inventory = new DeviceInventory(NODE);
    inventory.replace(TestDevices.gpus(16));
    startServer(new ApiClaimLookup(client));
  }

  void startServer(ClaimLookup lookup) throws Exception {
    Checkpoint checkpoint = Checkpoint.open(stateDir.resolve("checkpoint.json"));
    ClaimPreparer preparer = new ClaimPreparer(DRIVER, inventory, lookup, new ClaimSpecStore(cdiRoot), checkpoint,
        ClaimPreparer.Listener.NONE);
    KubeletPaths paths = new KubeletPaths(kubeletRoot, DRIVER);
    server = KubeletPluginServer.start(paths, preparer);
    kubelet = new FakeKubelet(paths.registrationSocket(), paths.draSocket());
  }

  void stopServer() throws Exception {
    kubelet.close();
    server.shutdown(1000);
  }

  @AfterEach
  void stop() throws Exception {
    stopServer();
  }

  @Test
  void getInfoAnnouncesTheDraSocketAndPrefersV1() {
    PluginInfo info = kubelet.registration().getInfo(InfoRequest.getDefaultInstance());

    assertThat(info.getType()).isEqualTo("DRAPlugin");
    assertThat(info.getName()).isEqualTo(DRIVER);
    assertThat(info.getEndpoint()).isEqualTo(kubeletRoot.resolve("plugins/nodeatlas.io/dra.sock").toString());
    assertThat(info.getSupportedVersionsList()).containsExactly("v1.DRAPlugin", "v1beta1.DRAPlugin");
    assertThat(isSocket(kubeletRoot.resolve("plugins_registry/nodeatlas.io-reg.sock"))).isTrue();
    assertThat(isSocket(Path.of(info.getEndpoint()))).isTrue();
  }

  @Test
  void registrationVerdictIsRecorded() {
    assertThat(server.registration().current().notified()).isFalse();

    kubelet.registration().notifyRegistrationStatus(RegistrationStatus.newBuilder().setPluginRegistered(true).build());

    assertThat(server.registration().current().registered()).isTrue();
  }

  @Test
  void socketsAreRemovedOnShutdownAndStaleOnesReplacedOnStart() throws Exception {
    KubeletPaths paths = server.paths();
    stopServer();
    assertThat(paths.registrationSocket()).doesNotExist();
    assertThat(paths.draSocket()).doesNotExist();

    // A crashed process leaves its sockets behind; binding again must still work.
    startServer(new ApiClaimLookup(client));
    KubeletPaths again = server.paths();
    server.shutdown(0);
    // shutdown removes them; recreate stale sockets by binding a throwaway server without cleanup
    startServer(new ApiClaimLookup(client));
    assertThat(kubelet.registration().getInfo(InfoRequest.getDefaultInstance()).getEndpoint())
        .isEqualTo(again.draSocket().toString());
  }

  @Test
  void prepareAnswersCdiIdsForOurDevicesAndWritesOneSpecPerClaim() throws Exception {
    String uid_1 = uidOf(allocatedClaim(client, "default", "train", List.of(
        result("gpus/large", DRIVER, NODE, "gpu-0"),
        result("gpus/large", DRIVER, NODE, "gpu-1"),
        result("nic", "dra.net", NODE, "eth0"))));

    NodePrepareResourcesResponse r = kubelet.prepare(claim("default", "train", uid_1));

    NodePrepareResourceResponse entry = r.getClaimsOrThrow(uid_1);
    assertThat(entry.getError()).isEmpty();
    assertThat(entry.getDevicesList()).extracting(Device::getDeviceName).containsExactly("gpu-0", "gpu-1");
    Device first = entry.getDevices(0);
    assertThat(first.getRequestNamesList()).containsExactly("gpus");
    assertThat(first.getPoolName()).isEqualTo(NODE);
    assertThat(first.getCdiDeviceIdsList()).containsExactly("nodeatlas.io/claim=" + uid_1 + "-gpu-0");
    Path spec = cdiRoot.resolve("nodeatlas.io-claim_" + uid_1 + ".json");
    assertThat(spec).exists();
    assertThat(Files.readString(spec)).contains("/dev/nvidia0", "/dev/nvidia1").doesNotContain("eth0");

    NodeUnprepareResourcesResponse u = kubelet.unprepare(claim("default", "train", uid_1));

    assertThat(u.getClaimsOrThrow(uid_1).getError()).isEmpty();
    assertThat(spec).doesNotExist();
  }

  @Test
  void v1beta1ServesTheSameClaims() {
    String uid_b = uidOf(allocatedClaim(client, "ns", "c", List.of(result("r", DRIVER, NODE, "gpu-3"))));
    var v1beta1 = io.nodeatlas.agent.kubelet.api.dra.v1beta1.NodePrepareResourcesRequest.newBuilder()
        .addClaims(io.nodeatlas.agent.kubelet.api.dra.v1beta1.Claim.newBuilder()
            .setNamespace("ns").setName("c").setUid(uid_b))
        .build();

    var r = kubelet.v1beta1().nodePrepareResources(v1beta1);

    assertThat(r.getClaimsOrThrow(uid_b).getError()).isEmpty();
    assertThat(r.getClaimsOrThrow(uid_b).getDevices(0).getCdiDeviceIdsList())
        .containsExactly("nodeatlas.io/claim=" + uid_b + "-gpu-3");
    var u = kubelet.v1beta1().nodeUnprepareResources(
        io.nodeatlas.agent.kubelet.api.dra.v1beta1.NodeUnprepareResourcesRequest.newBuilder()
            .addClaims(v1beta1.getClaims(0)).build());
    assertThat(u.getClaimsMap()).containsOnlyKeys(uid_b);
    assertThat(u.getClaimsOrThrow(uid_b).getError()).isEmpty();
    assertThat(cdiRoot.resolve("nodeatlas.io-claim_" + uid_b + ".json")).doesNotExist();
  }

  @Test
  void prepareAndUnprepareAreIdempotent() {
    String uid_2 = uidOf(allocatedClaim(client, "default", "c", List.of(result("r", DRIVER, NODE, "gpu-2"))));

    NodePrepareResourcesResponse first = kubelet.prepare(claim("default", "c", uid_2));
    NodePrepareResourcesResponse second = kubelet.prepare(claim("default", "c", uid_2));

    assertThat(second).isEqualTo(first);
    assertThat(first.getClaimsOrThrow(uid_2).getError()).isEmpty();
    assertThat(kubelet.unprepare(claim("default", "c", uid_2)).getClaimsOrThrow(uid_2).getError()).isEmpty();
    assertThat(kubelet.unprepare(claim("default", "c", uid_2)).getClaimsOrThrow(uid_2).getError()).isEmpty();
    assertThat(cdiRoot.resolve("nodeatlas.io-claim_" + uid_2 + ".json")).doesNotExist();
  }

  @Test
  void everyClaimGetsAnEntryAndFailuresStayPerClaim() {
    String uid_good = uidOf(allocatedClaim(client, "default", "good", List.of(result("r", DRIVER, NODE, "gpu-4"))));
    String uid_new = uidOf(allocatedClaim(client, "default", "replaced", List.of(result("r", DRIVER, NODE, "gpu-5"))));
    String uid_gone = uidOf(allocatedClaim(client, "default", "gone-device", List.of(result("r", DRIVER, NODE, "gpu-99"))));
    String uid_pool = uidOf(allocatedClaim(client, "default", "other-pool", List.of(result("r", DRIVER, "node-b", "gpu-6"))));
    String uid_pending = uidOf(io.nodeatlas.agent.testing.ApiObjects.pendingClaim(client, "default", "pending"));

    NodePrepareResourcesResponse r = kubelet.prepare(
        claim("default", "good", uid_good),
        claim("default", "missing", "uid-missing"),
        claim("default", "replaced", "uid-old"),
        claim("default", "gone-device", uid_gone),
        claim("default", "other-pool", uid_pool),
        claim("default", "pending", uid_pending));

    assertThat(r.getClaimsMap()).containsOnlyKeys(uid_good, "uid-missing", "uid-old", uid_gone, uid_pool, uid_pending);
    assertThat(r.getClaimsOrThrow(uid_good).getError()).isEmpty();
    assertThat(r.getClaimsOrThrow("uid-missing").getError()).contains("does not exist");
    assertThat(r.getClaimsOrThrow("uid-old").getError()).contains("got replaced", "uid-old", uid_new);
    assertThat(r.getClaimsOrThrow(uid_gone).getError()).contains("gpu-99", "no longer exists");
    assertThat(r.getClaimsOrThrow(uid_pool).getError()).contains("node-b");
    assertThat(r.getClaimsOrThrow(uid_pending).getError()).contains("not allocated");
    assertThat(r.getClaimsOrThrow("uid-missing").getDevicesList()).isEmpty();
    try (Stream<Path> files = Files.list(cdiRoot)) {
      assertThat(files.map(p -> p.getFileName().toString())).containsExactly("nodeatlas.io-claim_" + uid_good + ".json");
    } catch (java.io.IOException e) {
      throw new AssertionError(e);
    }
  }

  @Test
  void aClaimWithAnEmptyOrHostileNameFailsOnlyItselfAndNeverReachesTheApi() throws Exception {
    String uid_a = uidOf(allocatedClaim(client, "default", "a", List.of(result("r", DRIVER, NODE, "gpu-8"))));
    String uid_b = uidOf(allocatedClaim(client, "default", "b", List.of(result("r", DRIVER, NODE, "gpu-9"))));
    while (api.takeRequest(50, java.util.concurrent.TimeUnit.MILLISECONDS) != null) {
      // drop the requests that created the claims
    }

    NodePrepareResourcesResponse r = kubelet.prepare(
        claim("default", "a", uid_a),
        claim("default", "", "00000000-0000-4000-a000-000000000001"),
        claim("", "x", "00000000-0000-4000-a000-000000000002"),
        claim("../../etc", "x", "00000000-0000-4000-a000-000000000003"),
        claim("default", "a?watch=true", "00000000-0000-4000-a000-000000000004"),
        claim("default", "x", "../../etc"),
        claim("default", "x", "a?watch=true"),
        claim("default", "b", uid_b));

    assertThat(r.getClaimsMap()).containsOnlyKeys(uid_a, uid_b, "00000000-0000-4000-a000-000000000001",
        "00000000-0000-4000-a000-000000000002", "00000000-0000-4000-a000-000000000003",
        "00000000-0000-4000-a000-000000000004", "../../etc", "a?watch=true");
    // The API saw the good claims' reads only: no hostile field reached a URL. The mock records a
    // request before answering it, so all are queued once the call has returned.
    List<String> calls = new ArrayList<>();
    for (RecordedRequest q; (q = api.takeRequest(50, java.util.concurrent.TimeUnit.MILLISECONDS)) != null; ) {
      calls.add(q.getMethod() + " " + q.getPath());
    }
    assertThat(calls).containsOnly("GET /apis/resource.k8s.io/v1/namespaces/default/resourceclaims/a",
        "GET /apis/resource.k8s.io/v1/namespaces/default/resourceclaims/b");
    assertThat(r.getClaimsOrThrow(uid_a).getError()).isEmpty();
    assertThat(r.getClaimsOrThrow(uid_a).getDevicesList()).extracting(Device::getDeviceName).containsExactly("gpu-8");
    assertThat(r.getClaimsOrThrow(uid_b).getError()).isEmpty();
    assertThat(r.getClaimsOrThrow(uid_b).getDevicesList()).extracting(Device::getDeviceName).containsExactly("gpu-9");
    assertThat(r.getClaimsOrThrow("00000000-0000-4000-a000-000000000001").getError())
        .contains("name \"\" is not a DNS-1123 subdomain");
    assertThat(r.getClaimsOrThrow("00000000-0000-4000-a000-000000000002").getError())
        .contains("namespace \"\" is not a DNS-1123 label");
    assertThat(r.getClaimsOrThrow("00000000-0000-4000-a000-000000000003").getError())
        .contains("namespace \"../../etc\" is not a DNS-1123 label");
    assertThat(r.getClaimsOrThrow("00000000-0000-4000-a000-000000000004").getError())
        .contains("name \"a?watch=true\" is not a DNS-1123 subdomain");
    assertThat(r.getClaimsOrThrow("../../etc").getError()).contains("uid \"../../etc\" is not a UID");
    assertThat(r.getClaimsOrThrow("a?watch=true").getError()).contains("uid \"a?watch=true\" is not a UID");
    try (Stream<Path> files = Files.list(cdiRoot)) {
      assertThat(files.map(p -> p.getFileName().toString())).containsExactlyInAnyOrder(
          "nodeatlas.io-claim_" + uid_a + ".json", "nodeatlas.io-claim_" + uid_b + ".json");
    } catch (java.io.IOException e) {
      throw new AssertionError(e);
    }

    NodeUnprepareResourcesResponse u = kubelet.unprepare(claim("default", "a", uid_a),
        claim("default", "", "00000000-0000-4000-a000-000000000001"), claim("default", "x", "../../etc"));
    assertThat(u.getClaimsOrThrow(uid_a).getError()).isEmpty();
    assertThat(u.getClaimsOrThrow("00000000-0000-4000-a000-000000000001").getError()).contains("name \"\"");
    assertThat(u.getClaimsOrThrow("../../etc").getError()).contains("uid \"../../etc\" is not a UID");
    assertThat(cdiRoot.resolve("nodeatlas.io-claim_" + uid_a + ".json")).doesNotExist();
  }

  @Test
  void aDeviceIsNeverPreparedForTwoClaims() {
    String uid_a = uidOf(allocatedClaim(client, "default", "a", List.of(result("r", DRIVER, NODE, "gpu-7"))));
    String uid_b2 = uidOf(allocatedClaim(client, "default", "b", List.of(result("r", DRIVER, NODE, "gpu-7"))));

    assertThat(kubelet.prepare(claim("default", "a", uid_a)).getClaimsOrThrow(uid_a).getError()).isEmpty();
    String error = kubelet.prepare(claim("default", "b", uid_b2)).getClaimsOrThrow(uid_b2).getError();

    assertThat(error).contains("gpu-7", "already prepared", uid_a);
  }

  @Test
  void aDeviceThatAllowsMultipleAllocationsIsPreparedForEveryClaimSharingIt() throws Exception {
    List<io.nodeatlas.discovery.model.Device> devices = new java.util.ArrayList<>(TestDevices.gpus(16));
    devices.add(TestDevices.sharedCpus(0));
    inventory.replace(devices);
    String uid_a = uidOf(allocatedClaim(client, "default", "cpus-a",
        List.of(shareResult("cpus", DRIVER, NODE, "cpu-numa0", "3f6c1a52-0000-4000-8000-00000000000a", java.util.Map.of("nodeatlas.io/cpu", "4")))));
    String uid_b = uidOf(allocatedClaim(client, "default", "cpus-b", List.of(
        shareResult("cpus", DRIVER, NODE, "cpu-numa0", "3f6c1a52-0000-4000-8000-00000000000b", java.util.Map.of("nodeatlas.io/cpu", "2")),
        result("gpu", DRIVER, NODE, "gpu-3"))));
    String uid_c = uidOf(allocatedClaim(client, "default", "gpu-c", List.of(result("gpu", DRIVER, NODE, "gpu-3"))));

    NodePrepareResourceResponse a = kubelet.prepare(claim("default", "cpus-a", uid_a)).getClaimsOrThrow(uid_a);
    NodePrepareResourceResponse b = kubelet.prepare(claim("default", "cpus-b", uid_b)).getClaimsOrThrow(uid_b);
    String c = kubelet.prepare(claim("default", "gpu-c", uid_c)).getClaimsOrThrow(uid_c).getError();

    assertThat(a.getError()).isEmpty();
    assertThat(b.getError()).isEmpty();
    assertThat(a.getDevices(0).getCdiDeviceIdsList()).singleElement().asString()
        .startsWith("nodeatlas.io/claim=" + uid_a + "-cpu-numa0-s");
    assertThat(a.getDevices(0).getShareId()).isEqualTo("3f6c1a52-0000-4000-8000-00000000000a");
    assertThat(b.getDevicesList()).extracting(Device::getDeviceName).containsExactly("cpu-numa0", "gpu-3");
    // The GPU in the same claim is still exclusive.
    assertThat(c).contains("gpu-3", "already prepared", uid_b);
    assertThat(kubelet.unprepare(claim("default", "cpus-a", uid_a)).getClaimsOrThrow(uid_a).getError()).isEmpty();
    assertThat(Checkpoint.open(stateDir.resolve("checkpoint.json")).get(uid_b)).isPresent();
  }

  @Test
  void emptyRequestsSucceedEmpty() {
    assertThat(kubelet.prepare().getClaimsMap()).isEmpty();
    assertThat(kubelet.unprepare().getClaimsMap()).isEmpty();
  }

  @Test
  void aRestartBetweenPrepareAndUnprepareLosesNothing() throws Exception {
    String uid_r = uidOf(allocatedClaim(client, "default", "c", List.of(result("r", DRIVER, NODE, "gpu-8"))));
    NodePrepareResourcesResponse before = kubelet.prepare(claim("default", "c", uid_r));
    assertThat(before.getClaimsOrThrow(uid_r).getError()).isEmpty();

    stopServer();
    // The API server forgets the claim too: Unprepare must work from the checkpoint alone.
    client.resources(ResourceClaim.class).inNamespace("default").withName("c").delete();
    startServer(new ApiClaimLookup(client));

    assertThat(kubelet.prepare(claim("default", "c", uid_r))).isEqualTo(before);
    assertThat(kubelet.unprepare(claim("default", "c", uid_r)).getClaimsOrThrow(uid_r).getError()).isEmpty();
    assertThat(cdiRoot.resolve("nodeatlas.io-claim_" + uid_r + ".json")).doesNotExist();
    assertThat(Checkpoint.open(stateDir.resolve("checkpoint.json")).all()).isEmpty();
  }

  @Test
  void hundredsOfConcurrentClaims() throws Exception {
    int claims = 240;
    inventory.replace(TestDevices.gpus(claims));
    List<String> uids = new ArrayList<>();
    for (int i = 0; i < claims; i++) {
      uids.add(uidOf(allocatedClaim(client, "load", "c" + i, List.of(result("r", DRIVER, NODE, "gpu-" + i)))));
    }
    ExecutorService pool = Executors.newFixedThreadPool(48);
    try {
      List<Future<NodePrepareResourcesResponse>> prepared = new ArrayList<>();
      for (int i = 0; i < claims; i++) {
        int n = i;
        prepared.add(pool.submit(() -> kubelet.prepare(claim("load", "c" + n, uids.get(n)))));
      }
      Set<String> ids = new HashSet<>();
      for (int i = 0; i < claims; i++) {
        NodePrepareResourceResponse e = prepared.get(i).get().getClaimsOrThrow(uids.get(i));
        assertThat(e.getError()).isEmpty();
        ids.addAll(e.getDevices(0).getCdiDeviceIdsList());
      }
      assertThat(ids).hasSize(claims);
      assertThat(Checkpoint.open(stateDir.resolve("checkpoint.json")).all()).hasSize(claims);

      List<Future<NodeUnprepareResourcesResponse>> unprepared = new ArrayList<>();
      for (int i = 0; i < claims; i++) {
        int n = i;
        unprepared.add(pool.submit(() -> kubelet.unprepare(claim("load", "c" + n, uids.get(n)))));
      }
      for (int i = 0; i < claims; i++) {
        assertThat(unprepared.get(i).get().getClaimsOrThrow(uids.get(i)).getError()).isEmpty();
      }
    } finally {
      pool.shutdownNow();
    }
    try (Stream<Path> files = Files.list(cdiRoot)) {
      assertThat(files).isEmpty();
    }
    assertThat(Checkpoint.open(stateDir.resolve("checkpoint.json")).all()).isEmpty();
  }

  @Test
  void keepsServingWhileTheApiServerIsUnreachable() throws Exception {
    stopServer();
    try (KubernetesClient unreachable = new KubernetesClientBuilder()
        .withConfig(new ConfigBuilder().withMasterUrl("https://127.0.0.1:1").withRequestRetryBackoffLimit(0)
            .withConnectionTimeout(500).build())
        .withHttpClientFactory(new JdkHttpClientFactory()).build()) {
      startServer(new ApiClaimLookup(unreachable));

      assertThat(kubelet.registration().getInfo(InfoRequest.getDefaultInstance()).getName()).isEqualTo(DRIVER);
      assertThat(kubelet.prepare().getClaimsMap()).isEmpty();
      String error = kubelet.prepare(claim("default", "c", "uid-x")).getClaimsOrThrow("uid-x").getError();
      assertThat(error).contains("cannot read ResourceClaim default/c from the API server");
      assertThat(kubelet.unprepare(claim("default", "c", "uid-x")).getClaimsOrThrow("uid-x").getError()).isEmpty();
    }
  }

  static String uidOf(io.fabric8.kubernetes.api.model.HasMetadata o) {
    return o.getMetadata().getUid();
  }

  static boolean isSocket(Path p) {
    try {
      return Files.readAttributes(p, BasicFileAttributes.class, LinkOption.NOFOLLOW_LINKS).isOther();
    } catch (java.io.IOException e) {
      return false;
    }
  }
}
