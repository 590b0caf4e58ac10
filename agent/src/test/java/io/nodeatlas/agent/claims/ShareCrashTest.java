package io.nodeatlas.agent.claims;

import static org.assertj.core.api.Assertions.assertThat;

import io.nodeatlas.agent.testing.ShareChurn;
import io.nodeatlas.agent.testing.ShareInvariants;
import java.io.BufferedReader;
import java.io.IOException;
import java.io.InputStreamReader;
import java.nio.charset.StandardCharsets;
import java.nio.file.Path;
import java.util.List;
import java.util.Random;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * Shares survive {@code kill -9}: a separate JVM ({@link ShareChurn}) prepares and unprepares shares
 * from 16 threads and is killed with SIGKILL ({@link Process#destroyForcibly()}) at random points,
 * then restarted on the same state. After every kill the checkpoint holds no CPU in two shares, none
 * outside its device, no capacity exceeded; every recorded claim has its CDI spec; and a restarted
 * agent answers every recorded claim exactly as recorded, twice.
 */
class ShareCrashTest {

  private static final int KILLS = 3;

  @Test
  void killingTheAgentAtRandomPointsNeverDoubleBooksAndRestartsAnswerTheSame(@TempDir Path state, @TempDir Path cdi)
      throws Exception {
    Random random = new Random();
    int recordedAtLeastOnce = 0;
    for (int kill = 0; kill < KILLS; kill++) {
      Process churn = start(state, cdi, random.nextInt(1000));
      try (BufferedReader out = new BufferedReader(new InputStreamReader(churn.getInputStream(), StandardCharsets.UTF_8))) {
        assertThat(out.readLine()).as("churn started").isEqualTo("ready");
        // Kill after a random number of recorded Prepares (each printed as it happens), not after a
        // fixed delay: the kill point stays random however loaded the machine is.
        int prepares = 1 + random.nextInt(40);
        for (int i = 0; i < prepares; i++) {
          assertThat(out.readLine()).as("churn prepared a claim").isEqualTo("prepared");
        }
        churn.destroyForcibly();
        assertThat(churn.waitFor(10, TimeUnit.SECONDS)).isTrue();
      }
      assertThat(churn.exitValue()).as("killed by SIGKILL").isEqualTo(137);

      Checkpoint checkpoint = Checkpoint.open(state.resolve("checkpoint.json"));
      List<PreparedClaim> recorded = List.copyOf(checkpoint.all());
      ShareInvariants.check(recorded);
      recordedAtLeastOnce += recorded.isEmpty() ? 0 : 1;
      for (PreparedClaim c : recorded) {
        assertThat(cdi.resolve("nodeatlas.io-claim_" + c.claim().uid() + ".json")).as("spec of a recorded claim").exists();
      }
      ClaimPreparer restarted = ShareChurn.preparer(state, cdi);
      for (PreparedClaim c : recorded) {
        ClaimResult first = restarted.prepare(List.of(c.claim())).get(c.claim().uid());
        assertThat(first).isEqualTo(ClaimResult.ok(c.devices()));
        assertThat(restarted.prepare(List.of(c.claim())).get(c.claim().uid())).isEqualTo(first);
      }
    }
    assertThat(recordedAtLeastOnce).as("the churn got claims recorded before it was killed").isPositive();
  }

  private static Process start(Path state, Path cdi, int seed) throws IOException {
    String java = Path.of(System.getProperty("java.home"), "bin", "java").toString();
    return new ProcessBuilder(java, "-XX:TieredStopAtLevel=1", "-XX:+UseSerialGC", "-Xshare:auto",
        "-cp", System.getProperty("java.class.path"), ShareChurn.class.getName(), state.toString(), cdi.toString(),
        Integer.toString(seed))
        .redirectError(ProcessBuilder.Redirect.DISCARD)
        .start();
  }
}
