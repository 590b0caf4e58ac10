package io.nodeatlas.cli;

import static org.assertj.core.api.Assertions.assertThat;

import io.nodeatlas.cli.testing.NodeAtlasRun;
import java.util.List;
import org.junit.jupiter.api.Test;

class NodeAtlasCommandTest {

  @Test
  void helpListsEveryCommand() {
    NodeAtlasRun.Result r = NodeAtlasRun.run("--help");
    assertThat(r.status()).isZero();
    assertThat(r.out()).contains("discover").contains("cdi").contains("match").contains("run").contains("help");
  }

  @Test
  void aRunRegistersOnlyTheCommandItNames() {
    assertThat(NodeAtlasCommand.commandLineFor("discover", "-o", "table").getSubcommands().keySet())
        .containsExactlyInAnyOrder("discover", "help");
    assertThat(NodeAtlasCommand.commandLineFor("--version").getSubcommands().keySet())
        .containsExactlyInAnyOrder("discover", "cdi", "match", "slices", "pools", "run", "doctor", "labels", "completion", "help");
  }

  @Test
  void noCommandIsBadUsage() {
    NodeAtlasRun.Result r = NodeAtlasRun.run();
    assertThat(r.status()).isEqualTo(2);
    assertThat(r.err()).contains("a command is required");
  }

  @Test
  void unknownCommandIsBadUsage() {
    NodeAtlasRun.Result r = NodeAtlasRun.run("discovr");
    assertThat(r.status()).isEqualTo(2);
    assertThat(r.err()).contains("discovr");
  }

  @Test
  void formatsAreCaseInsensitiveWhenOnlyOneCommandIsRegistered() throws Exception {
    NodeAtlasRun.Result r = NodeAtlasRun.runProcess(java.util.Map.of(), null,
        "discover", "--sources", "cpu-numa", "--host-root", "/nonexistent-root", "-o", "JSON");
    // The host root check runs after option parsing: reaching it proves "JSON" was accepted.
    assertThat(r.status()).isEqualTo(2);
    assertThat(r.err()).contains("--host-root /nonexistent-root is not a directory");
  }

  @Test
  void aMisspeltCommandOrFlagGetsTheOneItMeant() {
    NodeAtlasRun.Result command = NodeAtlasRun.run("discovr");
    assertThat(command.status()).isEqualTo(2);
    assertThat(command.err()).startsWith("nodeatlas: 'discovr' is not a command of 'nodeatlas'\n"
        + "Did you mean 'nodeatlas discover'?\n");

    NodeAtlasRun.Result sub = NodeAtlasRun.run("cdi", "generat");
    assertThat(sub.status()).isEqualTo(2);
    assertThat(sub.err()).contains("Did you mean 'nodeatlas cdi generate'?");

    NodeAtlasRun.Result flag = NodeAtlasRun.run("discover", "--sourcse=cpu-numa");
    assertThat(flag.status()).isEqualTo(2);
    assertThat(flag.err()).startsWith("nodeatlas: unknown option '--sourcse' for 'nodeatlas discover'\n"
        + "Did you mean '--sources'?\n");

    NodeAtlasRun.Result swapped = NodeAtlasRun.run("slices", "--drvier-name", "x");
    assertThat(swapped.err()).contains("Did you mean '--driver-name'?");

    NodeAtlasRun.Result value = NodeAtlasRun.run("discover", "-o", "tabel");
    assertThat(value.status()).isEqualTo(2);
    assertThat(value.err()).contains("Did you mean 'table'?");

    NodeAtlasRun.Result source = NodeAtlasRun.run("discover", "--sources", "cpu-numa,gpx", "-o", "tree");
    assertThat(source.status()).isEqualTo(2);
    assertThat(source.err()).contains("unknown source 'gpx' (did you mean 'gpu'?); installed sources: ");

    // Nothing close: no guess.
    NodeAtlasRun.Result far = NodeAtlasRun.run("frobnicate");
    assertThat(far.err()).doesNotContain("Did you mean");
  }

  @Test
  void dashOIsAlsoSpeltOutputAsInKubectl() {
    String hgx = io.nodeatlas.cli.testing.Repo.root().resolve("examples/nodes/hgx-01.json").toString();
    NodeAtlasRun.Result slices = NodeAtlasRun.run("slices", "--discovered", hgx, "--output", "json");
    assertThat(slices.status()).as(slices.err()).isZero();
    assertThat(slices.out()).startsWith("{").contains("\"kind\" : \"List\"");
    NodeAtlasRun.Result discover = NodeAtlasRun.run("discover", "--discovered", hgx, "--output=tree");
    assertThat(discover.status()).as(discover.err()).isZero();
    assertThat(discover.out()).containsPattern("^Machine +hgx-01");
    for (String command : List.of("discover", "slices", "match")) {
      assertThat(NodeAtlasRun.run(command, "--help").out()).as(command).contains("-o, --output, --format=FORMAT");
    }
  }
}
