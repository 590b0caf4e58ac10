package io.nodeatlas.cli.fleet;

import static io.nodeatlas.cli.testing.NodeAtlasRun.run;
import static org.assertj.core.api.Assertions.assertThat;

import io.nodeatlas.cli.testing.NodeAtlasRun.Result;
import io.nodeatlas.cli.testing.Repo;
import java.nio.file.Files;
import java.nio.file.Path;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/** {@code nodeatlas match --discovered} over several saved nodes: files, directories and slice lists. */
class SavedFleetMatchTest {

  static final Path ROOT = Repo.root();
  static final Path NODES = ROOT.resolve("examples/nodes");
  static final String CLASSES = ROOT.resolve("deploy/deviceclasses.yaml").toString();

  @TempDir Path dir;

  @Test
  void aDirectoryOfNodesGivesOneVerdictEachFittingFirstUnderTheSummary() {
    Result r = run("match", "-f", CLASSES, "-f", ROOT.resolve("examples/cpu/claim-arm64.yaml").toString(),
        "--discovered", NODES.toString());
    assertThat(r.status()).as(r.err()).isZero();
    assertThat(r.out().lines().toList()).containsExactly(
        "1 of 2 nodes fit: arm-01",
        "NODE    FITS  DEVICES, OR WHY NOT",
        "arm-01  yes   cpus -> cpu-numa0 (8 nodeatlas.io/cpu, 72 of 80 left)",
        "hgx-01  no    ResourceClaim arm64-cpus: request cpus needs 1 device, this node has 0 matching devices "
            + "(DeviceClass nodeatlas-cpu-arm64 admits none of its 19 devices)");
  }

  @Test
  void noNodeFitsIsExitOneAndJsonKeepsExactBytes() {
    Result r = run("match", "-f", CLASSES, "-f", ROOT.resolve("examples/hugepages/claim-near-nic.yaml").toString(),
        "--discovered", NODES.resolve("hgx-01.json").toString(), NODES.resolve("arm-01.json").toString(), "-o", "json");
    assertThat(r.status()).isZero();
    assertThat(r.out()).contains("\"summary\" : \"1 of 2 nodes fit: hgx-01\"").contains("\"amount\" : \"1073741824\"");
    Result none = run("match", "-f", CLASSES, "-f", ROOT.resolve("examples/hugepages/claim-too-much.yaml").toString(),
        "--discovered", NODES.toString());
    assertThat(none.status()).isEqualTo(1);
    assertThat(none.out()).startsWith("0 of 2 nodes fit\n");
  }

  @Test
  void savedSlicesOfOurDriverAreNodesToo() throws Exception {
    Result slices = run("slices", "--discovered", NODES.resolve("arm-01.json").toString(), "-o", "json");
    Path saved = Files.writeString(dir.resolve("arm-01-slices.json"), slices.out());
    Result r = run("match", "-f", CLASSES, "-f", ROOT.resolve("examples/cpu/claim-arm64.yaml").toString(),
        "--discovered", saved.toString(), NODES.resolve("hgx-01.json").toString());
    assertThat(r.out()).as(r.err()).startsWith("1 of 2 nodes fit: arm-01\n")
        .contains("arm-01  yes   cpus -> cpu-numa0 (8 nodeatlas.io/cpu, 72 of 80 left)");
  }

  @Test
  void aBadFileIsOneUsageError() throws Exception {
    Files.copy(NODES.resolve("arm-01.json"), dir.resolve("arm-01.json"));
    Files.writeString(dir.resolve("broken.json"), "{\"schemaVersion\": \"v0\"}");
    Result r = run("match", "-f", CLASSES, "-f", ROOT.resolve("examples/cpu/claim-arm64.yaml").toString(),
        "--discovered", dir.toString());
    assertThat(r.status()).isEqualTo(2);
    assertThat(r.err()).startsWith("nodeatlas: --discovered " + dir.resolve("broken.json") + ": ")
        .contains("unsupported schemaVersion");
  }
}
