package io.nodeatlas.agent.run;

import static io.nodeatlas.agent.testing.Eventually.await;
import static org.assertj.core.api.Assertions.assertThat;

import io.fabric8.kubernetes.api.model.resource.v1.ResourceSlice;
import io.fabric8.kubernetes.client.KubernetesClient;
import io.fabric8.kubernetes.client.server.mock.EnableKubernetesMockClient;
import io.nodeatlas.agent.claims.Checkpoint;
import io.nodeatlas.agent.kubelet.KubeletPaths;
import io.nodeatlas.agent.kubelet.api.dra.v1.NodePrepareResourceResponse;
import io.nodeatlas.agent.kubelet.api.registration.InfoRequest;
import io.nodeatlas.agent.kubelet.api.registration.PluginInfo;
import io.nodeatlas.agent.ops.AgentMetrics;
import io.nodeatlas.agent.testing.ApiObjects;
import io.nodeatlas.agent.testing.FakeKubelet;
import io.nodeatlas.agent.testing.TestDevices;
import java.io.IOException;
import java.nio.channels.FileChannel;
import java.nio.channels.FileLock;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.StandardOpenOption;
import java.time.Clock;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Optional;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.TimeUnit;
import java.util.stream.Stream;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.ValueSource;

/**
 * A rolling update as the kubelet expects it (kubernetes PR 129832, kubeletplugin {@code RollingUpdate}):
 * two agents on one state directory, each with sockets named by its pod UID, both registered and
 * serving, their Prepare and Unprepare serialised by the state directory's call lock. Driven through
 * the real unix-socket gRPC with {@link FakeKubelet}; the API server is the CRUD mock.
 */
@EnableKubernetesMockClient(crud = true)
class RollingUpdateTest {

  KubernetesClient client;

  @TempDir Path dir;

  private final List<Instance> started = new ArrayList<>();

  /** One agent with its loop and a kubelet dialling its own sockets. */
  private final class Instance implements AutoCloseable {
    final Agent agent;
    final Thread loop;
    final KubeletPaths paths;
    final FakeKubelet kubelet;
    boolean closed;

    Instance(String uid) throws Exception {
      this(uid, AgentSettings.DEFAULT_CHECKPOINT_JOURNAL);
    }

    Instance(String uid, boolean journal) throws Exception {
      AgentSettings settings = new AgentSettings("nodeatlas.io", "node-a", dir.resolve("kubelet"), dir.resolve("cdi"),
          dir.resolve("state"), "127.0.0.1", 0, -1, Duration.ofMinutes(10), Duration.ofSeconds(2))
          .withRollingUpdateUid(uid).withCheckpointJournal(journal);
      agent = new Agent(settings, () -> TestDevices.report(TestDevices.gpus(2)), client, s -> { }, Optional.empty(),
          new AgentMetrics("test"), Clock.systemUTC());
      started.add(this);
      agent.start();
      loop = new Thread(agent::run, "agent-loop-" + uid);
      loop.start();
      paths = new KubeletPaths(settings.kubeletRoot(), "nodeatlas.io", uid);
      kubelet = new FakeKubelet(paths.registrationSocket(), paths.draSocket());
      await(agent::hasDiscovered);
    }

    NodePrepareResourceResponse prepare(String name, String uid) {
      return kubelet.prepare(FakeKubelet.claim("default", name, uid)).getClaimsOrThrow(uid);
    }

    String unprepare(String name, String uid) {
      return kubelet.unprepare(FakeKubelet.claim("default", name, uid)).getClaimsOrThrow(uid).getError();
    }

    @Override
    public void close() throws Exception {
      if (closed) {
        return;
      }
      closed = true;
      kubelet.close();
      agent.requestStop();
      loop.join(20_000);
      agent.close();
    }
  }

  @AfterEach
  void stopAll() throws Exception {
    for (Instance i : started) {
      i.close();
    }
  }

  private String claim(String name, String device) {
    return ApiObjects.allocatedClaim(client, "default", name,
        List.of(ApiObjects.result("gpus", "nodeatlas.io", "node-a", device))).getMetadata().getUid();
  }

  /** Whether the checkpoint in the state directory has a journal now (format v3.0). */
  private boolean journaled() throws IOException {
    try (Stream<Path> files = Files.list(dir.resolve("state"))) {
      return files.anyMatch(f -> f.getFileName().toString().startsWith("checkpoint.json.journal-"));
    }
  }

  private String checkpoint() throws Exception {
    return new String(Checkpoint.document(dir.resolve("state/checkpoint.json")), StandardCharsets.UTF_8);
  }

  @ParameterizedTest(name = "journal={0}")
  @ValueSource(booleans = {false, true})
  void bothRegisterBesideEachOtherServeAndAnswerTheClaimsTheOtherPrepared(boolean journal) throws Exception {
    ApiObjects.node(client, "node-a");
    String train = claim("train", "gpu-1");
    String second = claim("second", "gpu-1");
    Instance old = new Instance("0ld-pod", journal);
    await(() -> old.agent.leading() && client.resources(ResourceSlice.class).list().getItems().size() == 1);
    Instance neu = new Instance("n3w-pod", journal);

    // The helper's names: <driver>-<uid>-reg.sock and dra-<uid>.sock, each announced by its own registration.
    assertThat(old.paths.registrationSocket()).hasFileName("nodeatlas.io-0ld-pod-reg.sock").exists();
    assertThat(neu.paths.registrationSocket()).hasFileName("nodeatlas.io-n3w-pod-reg.sock").exists();
    assertThat(old.paths.draSocket()).isEqualTo(dir.resolve("kubelet/plugins/nodeatlas.io/dra-0ld-pod.sock")).exists();
    assertThat(neu.paths.draSocket()).isEqualTo(dir.resolve("kubelet/plugins/nodeatlas.io/dra-n3w-pod.sock")).exists();
    PluginInfo oldInfo = old.kubelet.registration().getInfo(InfoRequest.getDefaultInstance());
    PluginInfo newInfo = neu.kubelet.registration().getInfo(InfoRequest.getDefaultInstance());
    assertThat(oldInfo.getEndpoint()).isEqualTo(old.paths.draSocket().toString());
    assertThat(newInfo.getEndpoint()).isEqualTo(neu.paths.draSocket().toString());
    // Publishing moves to the newer instance; the older one keeps serving calls.
    await(() -> neu.agent.leading() && !old.agent.leading());

    NodePrepareResourceResponse byOld = old.prepare("train", train);
    assertThat(byOld.getError()).isEmpty();
    // The new instance knows what the old one prepared: the same ids, and the device stays taken.
    NodePrepareResourceResponse byNew = neu.prepare("train", train);
    assertThat(byNew.getError()).isEmpty();
    assertThat(byNew.getDevices(0).getCdiDeviceIdsList()).isEqualTo(byOld.getDevices(0).getCdiDeviceIdsList());
    assertThat(neu.prepare("second", second).getError()).contains("gpu-1", "already prepared");
    // Unprepared by the new one, the device is free for the old one.
    assertThat(neu.unprepare("train", train)).isEmpty();
    assertThat(old.prepare("second", second).getError()).isEmpty();
    assertThat(checkpoint()).contains(second).doesNotContain(train);
    assertThat(journaled()).as("a journal beside the checkpoint").isEqualTo(journal);
  }

  /**
   * With a journal the other instance's commits append to it and leave checkpoint.json as it was: the
   * call lock must see the journal change too, or both instances win the device.
   */
  @ParameterizedTest(name = "journal={0}")
  @ValueSource(booleans = {false, true})
  void aCallWaitsWhileTheOtherInstanceHoldsTheLockAndConflictingCallsNeverBothWin(boolean journal) throws Exception {
    ApiObjects.node(client, "node-a");
    Instance old = new Instance("0ld-pod", journal);
    Instance neu = new Instance("n3w-pod", journal);
    String held = claim("held", "gpu-0");

    // The other instance in the middle of a call: its lock on serialize.lock (in this JVM, as a part of
    // the same process; between processes the kernel's fcntl lock does the same).
    CompletableFuture<NodePrepareResourceResponse> waiting;
    try (FileChannel c = FileChannel.open(dir.resolve("state").resolve(CallLock.FILE), StandardOpenOption.WRITE);
        FileLock lock = c.lock()) {
      waiting = CompletableFuture.supplyAsync(() -> neu.prepare("held", held));
      await(() -> neu.agent.callsWaiting() == 1);
      assertThat(checkpoint()).as("nothing done while the lock is held")
          .doesNotContain(held);
    }
    assertThat(waiting.get(60, TimeUnit.SECONDS).getError()).isEmpty();
    assertThat(neu.agent.callsWaiting()).isZero();

    // Two claims on one exclusive device, one sent to each instance at once: exactly one wins, every time,
    // and the checkpoint holds every claim that was answered as prepared.
    for (int round = 0; round < 20; round++) {
      String nameA = "a" + round;
      String nameB = "b" + round;
      String a = claim(nameA, "gpu-1");
      String b = claim(nameB, "gpu-1");
      CompletableFuture<NodePrepareResourceResponse> viaOld = CompletableFuture.supplyAsync(() -> old.prepare(nameA, a));
      CompletableFuture<NodePrepareResourceResponse> viaNew = CompletableFuture.supplyAsync(() -> neu.prepare(nameB, b));
      boolean oldWon = viaOld.get(60, TimeUnit.SECONDS).getError().isEmpty();
      boolean newWon = viaNew.get(60, TimeUnit.SECONDS).getError().isEmpty();
      assertThat(oldWon ^ newWon).as("round %d: old won %s, new won %s", round, oldWon, newWon).isTrue();
      assertThat(checkpoint()).contains(held, oldWon ? a : b).doesNotContain(oldWon ? b : a);
      // Unprepared through the other instance, which must see the winner's record to release the device.
      assertThat(oldWon ? neu.unprepare(nameA, a) : old.unprepare(nameB, b)).isEmpty();
    }
    assertThat(journaled()).as("a journal beside the checkpoint").isEqualTo(journal);
  }

  @Test
  void theNewOneGoneLeavesTheOldServingAndPublishingAndEachRemovesOnlyItsOwnSockets() throws Exception {
    ApiObjects.node(client, "node-a");
    String train = claim("train", "gpu-1");
    Instance old = new Instance("0ld-pod");
    Instance neu = new Instance("n3w-pod");
    await(() -> neu.agent.leading() && !old.agent.leading());
    assertThat(neu.prepare("train", train).getError()).isEmpty();

    // The new instance goes: only its own sockets go with it, and the old one takes publishing back.
    neu.close();
    assertThat(neu.paths.registrationSocket()).doesNotExist();
    assertThat(neu.paths.draSocket()).doesNotExist();
    assertThat(old.paths.registrationSocket()).exists();
    assertThat(old.paths.draSocket()).exists();
    await(old.agent::leading);
    client.resources(ResourceSlice.class).delete();
    await(() -> client.resources(ResourceSlice.class).list().getItems().size() == 1);
    // It still answers, from the checkpoint the new one wrote.
    assertThat(old.unprepare("train", train)).isEmpty();
    assertThat(old.prepare("train", train).getError()).isEmpty();

    // A newer instance again; the older one's shutdown removes its own sockets only.
    Instance newer = new Instance("n3w-pod-2");
    await(() -> newer.agent.leading() && !old.agent.leading());
    old.close();
    assertThat(old.paths.registrationSocket()).doesNotExist();
    assertThat(old.paths.draSocket()).doesNotExist();
    assertThat(newer.paths.registrationSocket()).exists();
    assertThat(newer.paths.draSocket()).exists();
    assertThat(newer.unprepare("train", train)).isEmpty();
  }
}
