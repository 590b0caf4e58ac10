package io.nodeatlas.cdi;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import io.nodeatlas.discovery.model.Device;
import java.nio.file.Path;
import java.util.List;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

class ClaimCdiSpecsTest {

  private static final String UID = "8a3c6f0e-5b1d-4c1e-9f0a-2b7d3e4f5a6b";

  private static Device device(String name) {
    return SyntheticNode.devices().stream().filter(d -> d.name().equals(name)).findFirst().orElseThrow();
  }

  @Test
  void aUidIsAcceptedExactlyWhenItIsAValidCdiNameFragment() {
    // The rule: [A-Za-z0-9]([A-Za-z0-9_.-]*[A-Za-z0-9])?, whole text; every UID of every short string over
    // an alphabet with each kind of character, and some longer ones, against that expression.
    java.util.regex.Pattern rule = java.util.regex.Pattern.compile("[A-Za-z0-9]([A-Za-z0-9_.-]*[A-Za-z0-9])?");
    String alphabet = "aZ09_.-/ \n\u00e9=";
    List<String> samples = new java.util.ArrayList<>(List.of(UID, "", "a", "-", "a-", "-a", "a\n", "ab\n", UID + "\n",
        "a".repeat(300), "x_y.z-0", "\u0661"));
    for (char a : alphabet.toCharArray()) {
      samples.add(String.valueOf(a));
      for (char b : alphabet.toCharArray()) {
        for (char c : alphabet.toCharArray()) {
          samples.add("" + a + b + c);
        }
      }
    }
    ClaimCdiSpecs specs = new ClaimCdiSpecs();
    for (String uid : samples) {
      boolean valid = rule.matcher(uid).matches();
      assertThat(ClaimCdiSpecs.validUid(uid)).as("\"%s\"", uid).isEqualTo(valid);
      if (!valid) {
        assertThatThrownBy(() -> specs.fileName(uid)).isInstanceOf(IllegalArgumentException.class);
      }
    }
  }

  @Test
  void aClaimGetsOneTransientSpecAndOneIdPerDeviceWithEdits() {
    ClaimCdiSpecs.ClaimSpec claim = new ClaimCdiSpecs().forClaim(UID,
        List.of(device("gpu-1"), device("rdma-mlx5-0"), device("numa-0"), device("gpu-1")));
    CdiSpecFile file = claim.file().orElseThrow();
    assertThat(file.fileName()).isEqualTo("nodeatlas.io-claim_" + UID + ".json");
    assertThat(file.spec().kind()).isEqualTo("nodeatlas.io/claim");
    // The UID starts with a digit, so the device names need 0.5.0.
    assertThat(file.spec().cdiVersion()).isEqualTo("0.5.0");
    assertThat(claim.cdiDeviceIds()).containsExactly(
        java.util.Map.entry("gpu-1", List.of("nodeatlas.io/claim=" + UID + "-gpu-1")),
        java.util.Map.entry("numa-0", List.of()),
        java.util.Map.entry("rdma-mlx5-0", List.of("nodeatlas.io/claim=" + UID + "-rdma-mlx5-0")));
    assertThat(claim.allCdiDeviceIds()).containsExactlyElementsOf(file.qualifiedDeviceNames());
    assertThat(file.spec().device(UID + "-gpu-1").orElseThrow().containerEdits().deviceNodes())
        .extracting(n -> n.path()).containsExactly("/dev/nvidia1", "/dev/nvidiactl", "/dev/nvidia-uvm");
    assertThat(new CdiValidator().validate(file.spec(), file.fileName())).isEmpty();
  }

  @Test
  void twoClaimsOfTheSameDeviceDoNotConflictAndStaticReconcileLeavesThemAlone(@TempDir Path dir) throws Exception {
    ClaimCdiSpecs claims = new ClaimCdiSpecs();
    CdiSpecWriter writer = new CdiSpecWriter();
    writer.write(dir, claims.forClaim("uid-a", List.of(device("gpu-0"))).file().orElseThrow());
    writer.write(dir, claims.forClaim("uid-b", List.of(device("gpu-0"))).file().orElseThrow());
    CdiSpecGenerator generator = CdiSpecGenerator.builder().build();
    writer.reconcile(dir, generator.generate(SyntheticNode.devices()).specs(), generator.ownership());
    assertThat(new CdiValidator().scan(List.of(dir)).devices())
        .containsKeys("nodeatlas.io/claim=uid-a-gpu-0", "nodeatlas.io/claim=uid-b-gpu-0", "nodeatlas.io/gpu=gpu-0");
    assertThat(writer.staleFiles(dir, java.util.Set.of("nodeatlas.io-claim_uid-a.json"), claims.ownership()))
        .containsExactly("nodeatlas.io-claim_uid-b.json");
  }

  @Test
  void aClaimWithoutEditsHasNoFileAndABadUidIsRefused() {
    assertThat(new ClaimCdiSpecs().forClaim("u1", List.of(device("numa-1"))).file()).isEmpty();
    assertThatThrownBy(() -> new ClaimCdiSpecs().forClaim("../etc", List.of())).isInstanceOf(IllegalArgumentException.class)
        .hasMessage("claim UID \"../etc\" cannot name a CDI device or file");
  }
}
