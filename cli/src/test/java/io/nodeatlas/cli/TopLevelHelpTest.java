package io.nodeatlas.cli;

import static org.assertj.core.api.Assertions.assertThat;

import io.nodeatlas.cli.testing.NodeAtlasRun;
import io.nodeatlas.cli.testing.NodeAtlasRun.Result;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import org.junit.jupiter.api.Test;

/**
 * The top-level help {@link HotPath} prints is what picocli prints for the whole command tree. When a
 * subcommand or its description changes, run this test with {@code -Dnodeatlas.help.update=true} to
 * write picocli's answer into {@code src/main/resources/io/nodeatlas/cli/help.txt}.
 */
class TopLevelHelpTest {

  @Test
  void theKeptHelpIsPicoclisHelpOfTheWholeTree() throws Exception {
    Result picocli = NodeAtlasRun.run("--help");
    assertThat(picocli.status()).isZero();
    assertThat(picocli.out()).startsWith("Usage: nodeatlas").contains("Commands:");
    if (Boolean.getBoolean("nodeatlas.help.update")) {
      Files.writeString(Path.of("src/main/resources/io/nodeatlas/cli", TopLevelHelp.RESOURCE), picocli.out(),
          StandardCharsets.UTF_8);
    }
    assertThat(TopLevelHelp.text())
        .as("help.txt is picocli's --help; rerun with -Dnodeatlas.help.update=true after changing a command")
        .isEqualTo(picocli.out());
    // Every subcommand is listed, as the tree registers them.
    for (String name : NodeAtlasCommand.SUBCOMMANDS.keySet()) {
      assertThat(TopLevelHelp.text()).contains("\n  " + name + " ");
    }
  }
}
