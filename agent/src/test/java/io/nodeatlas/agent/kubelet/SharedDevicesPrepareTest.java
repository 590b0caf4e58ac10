package io.nodeatlas.agent.kubelet;

import static io.nodeatlas.agent.testing.ApiObjects.allocatedClaim;
import static io.nodeatlas.agent.testing.ApiObjects.shareResult;
import static io.nodeatlas.agent.testing.FakeKubelet.claim;
import static org.assertj.core.api.Assertions.assertThat;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import io.fabric8.kubernetes.client.KubernetesClient;
import io.fabric8.kubernetes.client.server.mock.EnableKubernetesMockClient;
import io.nodeatlas.agent.claims.ApiClaimLookup;
import io.nodeatlas.agent.claims.Checkpoint;
import io.nodeatlas.agent.claims.ClaimPreparer;
import io.nodeatlas.agent.claims.ClaimSpecStore;
import io.nodeatlas.agent.claims.DeviceInventory;
import io.nodeatlas.agent.kubelet.api.dra.v1.Claim;
import io.nodeatlas.agent.kubelet.api.dra.v1.NodePrepareResourceResponse;
import io.nodeatlas.agent.kubelet.api.dra.v1.NodePrepareResourcesResponse;
import io.nodeatlas.agent.testing.FakeKubelet;
import io.nodeatlas.agent.testing.ShareFixtures;
import io.nodeatlas.agent.testing.ShareInvariants;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Random;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.Future;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * Shares of devices that allow multiple allocations (KEP-5075) through the kubelet's sockets: claims
 * allocated by "the scheduler" (fabric8's CRUD mock holds them with shareID and consumedCapacity), CPU
 * choices, the v1 share_id, the claim's CDI spec, the checkpoint across restarts.
 */
@EnableKubernetesMockClient(crud = true)
class SharedDevicesPrepareTest {

  static final String DRIVER = "nodeatlas.io";
  static final String NODE = "node-a";
  static final String HOOK = "/usr/local/libexec/nodeatlas/cpuset-hook";
  static final ObjectMapper JSON = new ObjectMapper();

  KubernetesClient client;
  @TempDir Path kubeletRoot;
  @TempDir Path cdiRoot;
  @TempDir Path stateDir;
  DeviceInventory inventory;
  KubeletPluginServer server;
  FakeKubelet kubelet;

  @BeforeEach
  void start() throws Exception {
    inventory = new DeviceInventory(NODE);
    // CPUs 0 and 16 (node 0) and 8 and 24 (node 1) are reserved for the system: the devices do not list them.
    inventory.replace(ShareInvariants.devices(), ShareFixtures.topology());
    startServer();
  }

  void startServer() throws Exception {
    ClaimPreparer preparer = new ClaimPreparer(DRIVER, inventory, new ApiClaimLookup(client), new ClaimSpecStore(cdiRoot),
        Checkpoint.open(stateDir.resolve("checkpoint.json")), ClaimPreparer.Listener.NONE, HOOK);
    KubeletPaths paths = new KubeletPaths(kubeletRoot, DRIVER);
    server = KubeletPluginServer.start(paths, preparer);
    kubelet = new FakeKubelet(paths.registrationSocket(), paths.draSocket());
  }

  @AfterEach
  void stop() throws Exception {
    kubelet.close();
    server.shutdown(1000);
  }

  String create(String name, Object... results) {
    List<io.fabric8.kubernetes.api.model.resource.v1.DeviceRequestAllocationResult> list = new ArrayList<>();
    for (Object r : results) {
      list.add((io.fabric8.kubernetes.api.model.resource.v1.DeviceRequestAllocationResult) r);
    }
    return allocatedClaim(client, "default", name, list).getMetadata().getUid();
  }

  static Object cpus(int node, String shareId, String count) {
    return shareResult("cpus", DRIVER, NODE, "cpu-numa" + node, shareId, count == null ? null : Map.of("nodeatlas.io/cpu", count));
  }

  static Object pages(int node, String shareId, String bytes) {
    return shareResult("pages", DRIVER, NODE, "hugepages-2mi-numa" + node, shareId, Map.of("nodeatlas.io/memory", bytes));
  }

  @Test
  void twoClaimsShareOneCpuDeviceAndOnePoolWithDisjointCpusAndTheirOwnLimits() throws Exception {
    String a = create("a", cpus(0, "00000000-0000-4000-8000-00000000000a", "4"), pages(0, "00000000-0000-4000-8000-0000000000a2", "16Mi"));
    String b = create("b", cpus(0, "00000000-0000-4000-8000-00000000000b", "3"), pages(0, "00000000-0000-4000-8000-0000000000b2", "8Mi"));

    NodePrepareResourceResponse ra = kubelet.prepare(claim("default", "a", a)).getClaimsOrThrow(a);
    NodePrepareResourceResponse rb = kubelet.prepare(claim("default", "b", b)).getClaimsOrThrow(b);
    assertThat(ra.getError()).isEmpty();
    assertThat(rb.getError()).isEmpty();
    assertThat(ra.getDevicesList()).extracting(d -> d.getDeviceName() + "/" + d.getShareId()).containsExactly(
        "cpu-numa0/00000000-0000-4000-8000-00000000000a", "hugepages-2mi-numa0/00000000-0000-4000-8000-0000000000a2");

    JsonNode specA = JSON.readTree(Files.readAllBytes(cdiRoot.resolve("nodeatlas.io-claim_" + a + ".json")));
    JsonNode specB = JSON.readTree(Files.readAllBytes(cdiRoot.resolve("nodeatlas.io-claim_" + b + ".json")));
    // Whole cores with their siblings, never the reserved CPUs 0 and 16, and the second claim's apart from the
    // first's: its 3 CPUs do not fit in what is left of the first L3 cache (one core), so they come from the next.
    assertThat(env(specA)).contains("NODEATLAS_CPUS=1-2,17-18", "NODEATLAS_NUMA_NODE=0");
    assertThat(env(specB)).contains("NODEATLAS_CPUS=4-5,20", "NODEATLAS_NUMA_NODE=0");
    assertThat(specA.toString()).contains("\"hookName\":\"createRuntime\"", "\"path\":\"" + HOOK + "\"",
        "\"args\":[\"nodeatlas-cpuset-hook\",\"--cpus=1-2,17-18\",\"--mems=0\",\"--hugetlb=2097152:16777216\"]",
        "\"size=16777216\"", "\"pagesize=2M\"");
    assertThat(specB.toString()).contains("--hugetlb=2097152:8388608", "\"size=8388608\"");
    // The device's statement of all its allocatable CPUs is replaced by the share's.
    assertThat(env(specA)).noneMatch(e -> e.equals("NODEATLAS_CPUS=1-7,17-23"));

    // Repeated Prepare answers the same; a restart too, from the checkpoint.
    NodePrepareResourcesResponse again = kubelet.prepare(claim("default", "a", a));
    assertThat(again.getClaimsOrThrow(a)).isEqualTo(ra);
    stop();
    startServer();
    assertThat(kubelet.prepare(claim("default", "a", a)).getClaimsOrThrow(a)).isEqualTo(ra);

    // While both hold their shares, 11 CPUs do not fit; once Unprepare released the first claim's, they do.
    String c = create("c", cpus(0, "00000000-0000-4000-8000-00000000000c", "11"));
    assertThat(kubelet.prepare(claim("default", "c", c)).getClaimsOrThrow(c).getError()).isEqualTo(
        "request cpus on device cpu-numa0: the share no longer fits: it consumes 11 of nodeatlas.io/cpu, and 7 of 14 are left");
    assertThat(kubelet.unprepare(claim("default", "a", a)).getClaimsOrThrow(a).getError()).isEmpty();
    assertThat(kubelet.prepare(claim("default", "c", c)).getClaimsOrThrow(c).getError()).isEmpty();
    JsonNode specC = JSON.readTree(Files.readAllBytes(cdiRoot.resolve("nodeatlas.io-claim_" + c + ".json")));
    assertThat(env(specC)).contains("NODEATLAS_CPUS=1-3,6-7,17-19,21-23");
  }

  @Test
  void badInputIsAClearErrorOfThatClaimOnly() {
    Map<String, String> expected = new LinkedHashMap<>();
    expected.put(create("too-much", cpus(0, "00000000-0000-4000-8000-000000000001", "15")),
        "request cpus on device cpu-numa0: consumedCapacity nodeatlas.io/cpu = 15 exceeds the device's capacity of 14");
    expected.put(create("negative", cpus(0, "00000000-0000-4000-8000-000000000002", "-1")),
        "request cpus on device cpu-numa0: consumedCapacity nodeatlas.io/cpu = -1 is negative");
    expected.put(create("fraction", cpus(0, "00000000-0000-4000-8000-000000000003", "2500m")),
        "request cpus on device cpu-numa0: consumedCapacity nodeatlas.io/cpu = 2.5 is not a whole number of CPUs");
    expected.put(create("no-share-id", cpus(0, null, "2")),
        "request cpus on device cpu-numa0: the device is shared (it allows multiple allocations), but the allocation has no shareID");
    expected.put(create("not-shared", shareResult("nic", DRIVER, NODE, "nic-0", "00000000-0000-4000-8000-000000000005", null)),
        "request nic on device nic-0: the allocation gives it a share (shareID \"00000000-0000-4000-8000-000000000005\","
            + " consumedCapacity []), but the device is not shared (it does not allow multiple allocations)");
    String good = create("good", cpus(1, "00000000-0000-4000-8000-000000000006", "2"));

    List<Claim> all = new ArrayList<>();
    expected.keySet().forEach(uid -> all.add(claim("default", nameOf(uid), uid)));
    all.add(claim("default", "good", good));
    NodePrepareResourcesResponse r = kubelet.prepare(all.toArray(Claim[]::new));
    expected.forEach((uid, error) -> assertThat(r.getClaimsOrThrow(uid).getError()).isEqualTo(error));
    assertThat(r.getClaimsOrThrow(good).getError()).isEmpty();
    assertThat(r.getClaimsOrThrow(good).getDevices(0).getShareId()).isEqualTo("00000000-0000-4000-8000-000000000006");
  }

  String nameOf(String uid) {
    return client.resources(io.fabric8.kubernetes.api.model.resource.v1.ResourceClaim.class).inNamespace("default").list()
        .getItems().stream().filter(c -> c.getMetadata().getUid().equals(uid)).findFirst().orElseThrow().getMetadata().getName();
  }

  @Test
  void hundredsOfConcurrentSharesOnFourDevicesNeverOverlapNorOverflowAndSurviveARestart() throws Exception {
    int claims = 300;
    Random random = new Random(5);
    List<String> uids = new ArrayList<>();
    for (int i = 0; i < claims; i++) {
      int node = random.nextInt(2);
      uids.add(create("s" + i, cpus(node, String.format("00000000-0000-4000-8000-%012d", i), Integer.toString(1 + random.nextInt(3))),
          pages(random.nextInt(2), String.format("00000000-0000-4000-9000-%012d", i), (2 * (1 + random.nextInt(8))) + "Mi")));
    }
    ExecutorService pool = Executors.newFixedThreadPool(32);
    Map<String, NodePrepareResourceResponse> answers = new LinkedHashMap<>();
    try {
      List<Future<NodePrepareResourcesResponse>> calls = new ArrayList<>();
      for (int i = 0; i < claims; i++) {
        int n = i;
        calls.add(pool.submit(() -> kubelet.prepare(claim("default", "s" + n, uids.get(n)))));
      }
      for (int i = 0; i < claims; i++) {
        answers.put(uids.get(i), calls.get(i).get().getClaimsOrThrow(uids.get(i)));
      }
    } finally {
      pool.shutdownNow();
    }
    long ok = answers.values().stream().filter(r -> r.getError().isEmpty()).count();
    // 28 allocatable CPUs cannot hold 300 shares of 1-3: many claims fail, each with the reason.
    assertThat(ok).isBetween(10L, 28L);
    answers.values().stream().filter(r -> !r.getError().isEmpty())
        .forEach(r -> assertThat(r.getError()).contains("the share no longer fits"));
    Checkpoint checkpoint = Checkpoint.open(stateDir.resolve("checkpoint.json"));
    assertThat(checkpoint.all()).hasSize((int) ok);
    ShareInvariants.check(checkpoint.all());

    stop();
    startServer();
    for (int i = 0; i < claims; i++) {
      NodePrepareResourceResponse before = answers.get(uids.get(i));
      if (before.getError().isEmpty()) {
        assertThat(kubelet.prepare(claim("default", "s" + i, uids.get(i))).getClaimsOrThrow(uids.get(i))).isEqualTo(before);
      }
    }
    for (int i = 0; i < claims; i++) {
      assertThat(kubelet.unprepare(claim("default", "s" + i, uids.get(i))).getClaimsOrThrow(uids.get(i)).getError()).isEmpty();
    }
    assertThat(Checkpoint.open(stateDir.resolve("checkpoint.json")).all()).isEmpty();
    // Everything released: one claim can have the whole device again.
    String whole = create("whole", cpus(0, "00000000-0000-4000-8000-ffffffffffff", "14"));
    assertThat(kubelet.prepare(claim("default", "whole", whole)).getClaimsOrThrow(whole).getError()).isEmpty();
  }

  static List<String> env(JsonNode spec) {
    List<String> out = new ArrayList<>();
    spec.at("/devices").forEach(d -> d.at("/containerEdits/env").forEach(e -> out.add(e.asText())));
    return out;
  }
}
