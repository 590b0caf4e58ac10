package io.nodeatlas.agent.cli;

import static org.assertj.core.api.Assertions.assertThat;

import org.junit.jupiter.api.Test;

class NodeAtlasCommandTest {

  @Test
  void helpListsEveryCommand() {
    DiscoverCommandTest.Result r = DiscoverCommandTest.run("--help");
    assertThat(r.status()).isZero();
    assertThat(r.out()).contains("discover").contains("cdi").contains("match").contains("run").contains("help");
  }

  @Test
  void aRunRegistersOnlyTheCommandItNames() {
    assertThat(NodeAtlasCommand.commandLineFor("discover", "-o", "table").getSubcommands().keySet())
        .containsExactlyInAnyOrder("discover", "help");
    assertThat(NodeAtlasCommand.commandLineFor("--version").getSubcommands().keySet())
        .containsExactlyInAnyOrder("discover", "cdi", "match", "run", "help");
  }

  @Test
  void noCommandIsBadUsage() {
    DiscoverCommandTest.Result r = DiscoverCommandTest.run();
    assertThat(r.status()).isEqualTo(2);
    assertThat(r.err()).contains("a command is required");
  }

  @Test
  void unknownCommandIsBadUsage() {
    DiscoverCommandTest.Result r = DiscoverCommandTest.run("discovr");
    assertThat(r.status()).isEqualTo(2);
    assertThat(r.err()).contains("discovr");
  }

  @Test
  void formatsAreCaseInsensitiveWhenOnlyOneCommandIsRegistered() throws Exception {
    DiscoverCommandTest.Result r = DiscoverCommandTest.runProcess(java.util.Map.of(), null,
        "discover", "--sources", "cpu-numa", "--host-root", "/nonexistent-root", "-o", "JSON");
    // The host root check runs after option parsing: reaching it proves "JSON" was accepted.
    assertThat(r.status()).isEqualTo(2);
    assertThat(r.err()).contains("--host-root /nonexistent-root is not a directory");
  }
}
