package io.nodeatlas.cli;

import static org.assertj.core.api.Assertions.assertThat;

import io.nodeatlas.cli.testing.NodeAtlasRun;
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
        .containsExactlyInAnyOrder("discover", "cdi", "match", "slices", "pools", "run", "help");
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
}
