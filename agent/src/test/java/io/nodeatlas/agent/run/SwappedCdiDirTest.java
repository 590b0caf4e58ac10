package io.nodeatlas.agent.run;

import static io.nodeatlas.agent.testing.FakeKubelet.claim;
import static org.assertj.core.api.Assertions.assertThat;

import io.nodeatlas.agent.testing.ClaimApiServer;
import io.nodeatlas.agent.testing.FakeKubelet;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.List;
import java.util.Set;
import java.util.TreeSet;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * Issue 35 item 8: a real agent process whose CDI directory is swapped for a symbolic link to another
 * directory holding a file of the claim spec's name. Unprepare must not delete it there: it fails, the
 * claim stays recorded with its spec, and once the directory is back Unprepare removes both. After
 * {@code kill -9} the checkpoint and the specs agree.
 */
class SwappedCdiDirTest {

  @Test
  void unprepareNeverDeletesThroughACdiDirectorySwappedForALink(@TempDir Path work) throws Exception {
    Path cdi = work.resolve("cdi");
    Path state = work.resolve("state");
    Files.createDirectories(cdi);
    Path elsewhere = Files.createDirectories(work.resolve("elsewhere"));
    Path victim = Files.writeString(elsewhere.resolve("nodeatlas.io-claim_uid-a.json"), "not nodeatlas's file");
    try (ClaimApiServer api = new ClaimApiServer()) {
      api.claim("a", new ClaimApiServer.Answer("uid-a", List.of("gpu-0"), 0));
      Path kubeconfig = api.kubeconfig(work.resolve("kubeconfig"));
      Set<String> recorded = new TreeSet<>();
      Path log = work.resolve("agent.log");
      Process agent = FailedCommitTest.start(List.of(), kubeconfig, work, cdi, state, log);
      Path moved = work.resolve("cdi.real");
      try (FakeKubelet kubelet = FailedCommitTest.kubelet(agent, work, log)) {
        FailedCommitTest.expectOk(kubelet, "a", recorded);
        assertThat(cdi.resolve("nodeatlas.io-claim_uid-a.json")).isRegularFile();

        Files.move(cdi, moved);
        Files.createSymbolicLink(cdi, elsewhere);
        String error = kubelet.unprepare(claim("default", "a", "uid-a")).getClaimsOrThrow("uid-a").getError();
        assertThat(error).contains("symbolic link");
        assertThat(victim).as("the file the link leads to").hasContent("not nodeatlas's file");
        FailedCommitTest.assertAgreement("after the refused Unprepare", state, moved, recorded);
      } finally {
        agent.destroyForcibly().waitFor(30, TimeUnit.SECONDS);
      }
      FailedCommitTest.assertAgreement("after kill -9", state, moved, recorded);

      // The directory back: the kubelet's retried Unprepare removes record and spec.
      Files.delete(cdi);
      Files.move(moved, cdi);
      Path log2 = work.resolve("agent-2.log");
      Process again = FailedCommitTest.start(List.of(), kubeconfig, work, cdi, state, log2);
      try (FakeKubelet kubelet = FailedCommitTest.kubelet(again, work, log2)) {
        assertThat(kubelet.unprepare(claim("default", "a", "uid-a")).getClaimsOrThrow("uid-a").getError()).isEmpty();
        recorded.clear();
        FailedCommitTest.assertAgreement("after Unprepare", state, cdi, recorded);
      } finally {
        again.destroyForcibly().waitFor(30, TimeUnit.SECONDS);
      }
      assertThat(victim).hasContent("not nodeatlas's file");
    }
  }
}
