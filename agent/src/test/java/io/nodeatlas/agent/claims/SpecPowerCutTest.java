package io.nodeatlas.agent.claims;

import static org.assertj.core.api.Assertions.assertThat;

import io.nodeatlas.agent.testing.ShareChurn;
import io.nodeatlas.cdi.CdiValidator;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.List;
import java.util.Map;
import java.util.stream.IntStream;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * Claim specs are written without fsync, the checkpoint with: a power cut on a host whose CDI dir is
 * not tmpfs may leave a recorded claim's spec empty, partial or missing. The kubelet prepares the
 * claim again after the reboot (KEP-4381); that Prepare must answer the recorded ids with a valid spec
 * behind them, and leave a spec the cut did not touch as it is.
 */
class SpecPowerCutTest {

  @TempDir Path state;
  @TempDir Path cdi;

  @Test
  void afterAPowerCutPrepareRewritesEveryEmptyPartialOrMissingSpecAndKeepsIntactOnes() throws Exception {
    Checkpoint.open(state.resolve("checkpoint.json")).startBoot("boot-1");
    List<ClaimRef> claims = IntStream.range(0, 4).mapToObj(ShareChurn::ref).toList();
    Map<String, ClaimResult> before = ShareChurn.preparer(state, cdi).prepare(claims);
    before.values().forEach(r -> assertThat(r.failed()).as(r.error()).isFalse());

    // The cut: one spec empty (renamed into place, its data never written), one partial, one gone, one intact.
    Files.write(spec(claims.get(0)), new byte[0]);
    byte[] whole = Files.readAllBytes(spec(claims.get(1)));
    Files.write(spec(claims.get(1)), java.util.Arrays.copyOf(whole, whole.length / 2));
    Files.delete(spec(claims.get(2)));
    Object intact = Files.readAttributes(spec(claims.get(3)), java.nio.file.attribute.BasicFileAttributes.class).fileKey();
    Checkpoint.open(state.resolve("checkpoint.json")).startBoot("boot-2");

    ClaimPreparer restarted = ShareChurn.preparer(state, cdi);
    CdiValidator validator = new CdiValidator();
    for (ClaimRef c : claims) {
      ClaimResult again = restarted.prepare(List.of(c)).get(c.uid());
      assertThat(again).as("claim %s answered as recorded", c.name()).isEqualTo(before.get(c.uid()));
      assertThat(validator.validateFile(spec(c))).as("spec of %s", c.name()).isEmpty();
      String text = Files.readString(spec(c));
      again.devices().forEach(d -> d.cdiDeviceIds().forEach(id ->
          assertThat(text).as("spec of %s defines %s", c.name(), id).contains(id.substring(id.indexOf('=') + 1))));
    }
    assertThat(Files.readAttributes(spec(claims.get(3)), java.nio.file.attribute.BasicFileAttributes.class).fileKey())
        .as("an intact spec is not rewritten").isEqualTo(intact);
  }

  private Path spec(ClaimRef claim) {
    return cdi.resolve("nodeatlas.io-claim_" + claim.uid() + ".json");
  }
}
