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
