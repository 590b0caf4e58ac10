package io.nodeatlas.cli.examples;

import static org.assertj.core.api.Assertions.assertThat;

import io.nodeatlas.cli.testing.NodeAtlasRun;
import io.nodeatlas.cli.testing.NodeAtlasRun.Result;
import io.nodeatlas.cli.testing.Repo;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * Issue 31, "examples that run as written": the commands of examples/README.md and examples/accel/README.md,
 * run from the repository root as printed, and the pictures and specs the saved nodes give.
 */
class ExamplesAsWrittenTest {

  static final Path ROOT = Repo.root();

  @TempDir Path dir;

  /** The {@code ./nodeatlas ...} lines of the first sh block after {@code after} in {@code readme}. */
  static List<List<String>> commands(Path readme, String after) throws Exception {
    String text = Files.readString(readme);
    int from = text.indexOf("```sh", text.indexOf(after));
    String block = text.substring(from + 5, text.indexOf("```", from + 5));
    List<List<String>> out = new ArrayList<>();
    for (String line : block.strip().lines().toList()) {
      String command = line.replaceAll("\\s+#.*$", "").replaceAll("\\s*>.*$", "").strip();
      assertThat(command).startsWith("./nodeatlas ");
      List<String> args = new ArrayList<>();
      for (String word : command.substring("./nodeatlas ".length()).split("\\s+")) {
        // Relative to the repository root, where the README says to run them.
        args.add(word.contains("/") && !word.startsWith("/") ? ROOT.resolve(word).toString() : word);
      }
      out.add(args);
    }
    return out;
  }

  @Test
  void theAccelExampleRunsAsWritten() throws Exception {
    List<List<String>> commands = commands(ROOT.resolve("examples/accel/README.md"), "From the repository root");
    assertThat(commands).hasSize(2);
    Result discover = NodeAtlasRun.run(commands.get(0).toArray(String[]::new));
    assertThat(discover.status()).as(discover.err()).isZero();
    assertThat(discover.out()).containsPattern("accel +(ok|unavailable)");
    Result match = NodeAtlasRun.run(commands.get(1).toArray(String[]::new));
    // Not bad usage: every file it names is where it says; whether it fits depends on the machine.
    assertThat(match.status()).as(match.err()).isIn(0, 1);
    assertThat(match.out()).contains("ResourceClaim amd-gpu-16gi:");
  }

  @Test
  void theSavedNodesDrawTheirTopologyAndGiveCdiSpecs() throws Exception {
    List<List<String>> commands = commands(ROOT.resolve("examples/README.md"), "so every picture and spec");
    assertThat(commands).hasSize(4);
    Result tree = NodeAtlasRun.run(commands.get(0).toArray(String[]::new));
    assertThat(tree.status()).as(tree.err()).isZero();
    assertThat(tree.out()).doesNotContain("no CPU or NUMA topology")
        .contains("2 packages, 2 NUMA nodes, 64 cores, 128 CPUs").contains("NUMA 1").contains("32 × 2 threads");
    Result svg = NodeAtlasRun.run(commands.get(1).toArray(String[]::new));
    assertThat(svg.status()).as(svg.err()).isZero();
    assertThat(svg.out()).startsWith("<?xml").contains("NUMA 0").contains("NUMA 1").contains("gpu-7");

    List<String> cdi = new ArrayList<>(commands.get(2));
    cdi.set(cdi.indexOf("--output-dir") + 1, dir.resolve("cdi").toString());
    Result dry = NodeAtlasRun.run(cdi.toArray(String[]::new));
    assertThat(dry.status()).as(dry.err()).isZero();
    assertThat(dry.out()).contains("would write " + dir.resolve("cdi/nodeatlas.io-gpu.json") + " (nodeatlas.io/gpu, cdiVersion 0.3.0, 9 devices)")
        .contains("would write " + dir.resolve("cdi/nodeatlas.io-rdma.json") + " (nodeatlas.io/rdma, cdiVersion 0.3.0, 4 devices)")
        .contains("\"path\" : \"/dev/nvidia7\"").contains("\"path\" : \"/dev/infiniband/uverbs2\"");
    Result labels = NodeAtlasRun.run(commands.get(3).toArray(String[]::new));
    assertThat(labels.status()).as(labels.err()).isZero();
    assertThat(labels.out()).contains("nodeatlas.io/gpu.count=8");
  }
}
