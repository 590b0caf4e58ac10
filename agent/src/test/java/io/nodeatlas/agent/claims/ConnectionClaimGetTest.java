package io.nodeatlas.agent.claims;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import io.nodeatlas.agent.api.ApiConnection;
import io.nodeatlas.agent.kubeconfig.KubeconfigConnection;
import io.nodeatlas.agent.testing.ClaimApiServer;
import io.nodeatlas.agent.testing.TestPki;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.StandardCopyOption;
import java.time.Duration;
import java.util.List;
import java.util.Map;
import org.assertj.core.groups.Tuple;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/** The claim GET on the agent's own connection: credentials, keep-alive, bounds in size and time, TLS. */
class ConnectionClaimGetTest {

  private static final ClaimRef TRAIN = new ClaimRef("default", "train", "uid-train");

  @TempDir Path dir;

  private static KubeconfigConnection.Read connection(Path kubeconfig) throws Exception {
    return KubeconfigConnection.read(kubeconfig, Map.of(), ApiConnection.Limits.DEFAULT).orElseThrow();
  }

  private static ApiClaimLookup lookup(KubeconfigConnection.Read r, ApiClaimLookup.Limits limits) {
    return new ApiClaimLookup(r.connection(), r.credentials(), limits);
  }

  private static void assertTrainDevices(ApiClaimLookup lookup) throws ClaimLookupException {
    assertThat(lookup.allocation(TRAIN)).extracting(AllocatedDevice::driver, AllocatedDevice::pool, AllocatedDevice::device)
        .containsExactly(Tuple.tuple("nodeatlas.io", "node-a", "gpu-0"), Tuple.tuple("nodeatlas.io", "node-a", "gpu-1"));
  }

  @Test
  void readsWithTheKubeconfigsTokenOnOneKeptAliveConnection() throws Exception {
    try (ClaimApiServer api = new ClaimApiServer()) {
      api.claim("train", new ClaimApiServer.Answer("uid-train", List.of("gpu-0", "gpu-1"), 0));
      ApiClaimLookup lookup = lookup(connection(api.kubeconfig(dir.resolve("kubeconfig"))), ApiClaimLookup.Limits.DEFAULT);
      for (int i = 0; i < 3; i++) {
        assertTrainDevices(lookup);
      }
      assertThat(api.claimRequests()).isEqualTo(3);
      assertThat(api.claimAuthorization()).isEqualTo("Bearer test");
      assertThat(api.claimConnections()).as("one connection, kept alive between reads").isEqualTo(1);
      assertThatThrownBy(() -> lookup.allocation(new ClaimRef("default", "gone", "uid-gone")))
          .hasMessage("ResourceClaim default/gone does not exist");
    }
  }

  @Test
  void readsOverTlsOnOneKeptAliveConnection() throws Exception {
    TestPki pki = new TestPki(dir.resolve("pki"));
    try (ClaimApiServer api = new ClaimApiServer(pki.serverContext())) {
      api.claim("train", new ClaimApiServer.Answer("uid-train", List.of("gpu-0", "gpu-1"), 0));
      ApiClaimLookup lookup = lookup(connection(api.kubeconfig(dir.resolve("kubeconfig"), "test", pki.caPem())),
          ApiClaimLookup.Limits.DEFAULT);
      for (int i = 0; i < 3; i++) {
        assertTrainDevices(lookup);
      }
      assertThat(api.claimRequests()).isEqualTo(3);
      assertThat(api.claimConnections()).as("one TLS connection, kept alive between reads").isEqualTo(1);
    }
  }

  @Test
  void aRefusedTokenIsSentOnceMoreWhenTheTokenFileChangedAndNamesTheCredentialsWhenNot() throws Exception {
    try (ClaimApiServer api = new ClaimApiServer()) {
      api.claim("train", new ClaimApiServer.Answer("uid-train", List.of("gpu-0", "gpu-1"), 0));
      Path token = Files.writeString(dir.resolve("token"), "old");
      Path kubeconfig = Files.writeString(dir.resolve("kubeconfig"), Files.readString(api.kubeconfig(dir.resolve("k0")))
          .replace("token: test", "tokenFile: token"));
      ApiClaimLookup lookup = lookup(connection(kubeconfig), ApiClaimLookup.Limits.DEFAULT);
      api.acceptOnlyToken("new");
      assertThatThrownBy(() -> lookup.allocation(TRAIN)).isInstanceOf(ClaimLookupException.class)
          .hasMessageContaining("HTTP 401").hasMessageContaining(api.url())
          .hasMessageContaining("tokenFile " + token);
      Files.move(Files.writeString(dir.resolve("token.new"), "new"), token, StandardCopyOption.ATOMIC_MOVE,
          StandardCopyOption.REPLACE_EXISTING);
      assertTrainDevices(lookup);
      assertThat(api.claimAuthorization()).isEqualTo("Bearer new");
    }
  }

  @Test
  void anAnswerLargerThanTheBoundIsRefusedAndTheNextReadWorks() throws Exception {
    try (ClaimApiServer api = new ClaimApiServer()) {
      api.claim("train", new ClaimApiServer.Answer("uid-train", List.of("gpu-0", "gpu-1"), 1_400_000));
      api.claim("huge", new ClaimApiServer.Huge("uid-huge", 5 << 20));
      ApiClaimLookup lookup = lookup(connection(api.kubeconfig(dir.resolve("kubeconfig"))), ApiClaimLookup.Limits.DEFAULT);
      assertTrainDevices(lookup);
      assertThatThrownBy(() -> lookup.allocation(new ClaimRef("default", "huge", "uid-huge")))
          .isInstanceOf(ClaimLookupException.class).hasMessageContaining("larger than 3145728 bytes");
      assertTrainDevices(lookup);
    }
  }

  /** Times the JVM's threads named {@code claim-get-deadline} waited (parked), all together. */
  private static long deadlineThreadWaits() {
    java.lang.management.ThreadMXBean mx = java.lang.management.ManagementFactory.getThreadMXBean();
    long sum = 0;
    for (java.lang.management.ThreadInfo t : mx.getThreadInfo(mx.getAllThreadIds())) {
      if (t != null && t.getThreadName().equals("claim-get-deadline")) {
        sum += t.getWaitedCount();
      }
    }
    return sum;
  }

  @Test
  void aStreamOfReadsDoesNotWakeTheDeadlineThreadForEachRead() throws Exception {
    try (ClaimApiServer api = new ClaimApiServer()) {
      api.claim("train", new ClaimApiServer.Answer("uid-train", List.of("gpu-0", "gpu-1"), 0));
      ApiClaimLookup lookup = lookup(connection(api.kubeconfig(dir.resolve("kubeconfig"))), ApiClaimLookup.Limits.DEFAULT);
      assertTrainDevices(lookup);
      long before = deadlineThreadWaits();
      for (int i = 0; i < 100; i++) {
        assertTrainDevices(lookup);
      }
      // Each read's deadline on a ScheduledThreadPoolExecutor with remove-on-cancel woke its thread: 100 or more.
      assertThat(deadlineThreadWaits() - before).isLessThan(10);
    }
  }

  @Test
  @org.junit.jupiter.api.Timeout(value = 120, threadMode = org.junit.jupiter.api.Timeout.ThreadMode.SEPARATE_THREAD)
  void anAnswerSentAByteAtATimeEndsTheTryAtItsTimeLimit() throws Exception {
    try (ClaimApiServer api = new ClaimApiServer()) {
      api.claim("slow", new ClaimApiServer.Dribble(50));
      ApiClaimLookup.Limits limits = new ApiClaimLookup.Limits(Duration.ofMillis(500), 2, Duration.ZERO, 3 << 20, 8);
      ApiClaimLookup lookup = lookup(connection(api.kubeconfig(dir.resolve("kubeconfig"))), limits);
      assertThatThrownBy(() -> lookup.allocation(new ClaimRef("default", "slow", "uid-slow")))
          .isInstanceOf(ClaimLookupException.class).hasMessageContaining("no complete answer within 500 ms (2 tries)");
      assertThat(api.claimRequests()).isEqualTo(2);
    }
  }

  @Test
  void overTlsTrustingOnlyTheKubeconfigsCertificateAuthority() throws Exception {
    TestPki pki = new TestPki(dir.resolve("pki"));
    TestPki other = new TestPki(dir.resolve("other"));
    try (ClaimApiServer api = new ClaimApiServer(pki.serverContext())) {
      api.claim("train", new ClaimApiServer.Answer("uid-train", List.of("gpu-0", "gpu-1"), 0));
      assertTrainDevices(lookup(connection(api.kubeconfig(dir.resolve("kubeconfig"), "test", pki.caPem())),
          ApiClaimLookup.Limits.DEFAULT));
      ApiClaimLookup wrong = lookup(connection(api.kubeconfig(dir.resolve("other-kubeconfig"), "test", other.caPem())),
          ApiClaimLookup.Limits.DEFAULT);
      assertThatThrownBy(() -> wrong.allocation(TRAIN)).isInstanceOf(ClaimLookupException.class)
          .hasMessageContaining("ResourceClaim default/train");
      assertThat(api.claimRequests()).isEqualTo(1);
    }
  }
}
