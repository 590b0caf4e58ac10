package io.nodeatlas.cli;

import static org.assertj.core.api.Assertions.assertThat;

import io.nodeatlas.cli.testing.NodeAtlasRun;
import io.nodeatlas.cli.testing.NodeAtlasRun.Result;
import java.io.PrintWriter;
import java.io.StringWriter;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import org.junit.jupiter.api.Test;
import picocli.CommandLine;

/**
 * The top-level help {@link HotPath} prints is what picocli prints for the whole command tree, plain
 * and in colour. When a subcommand or its description changes, run this test with
 * {@code -Dnodeatlas.help.update=true} to write picocli's answers into
 * {@code src/main/resources/io/nodeatlas/cli/}.
 */
class TopLevelHelpTest {

  private static final String REGENERATE =
      "the kept help is picocli's --help; rerun TopLevelHelpTest with -Dnodeatlas.help.update=true after changing a command";

  @Test
  void thePlainHelpIsPicoclisHelpOfTheWholeTree() throws Exception {
    Result picocli = NodeAtlasRun.run("--help");
    assertThat(picocli.status()).isZero();
    assertThat(picocli.out()).startsWith("Usage: nodeatlas").contains("Commands:").doesNotContain("\u001b[");
    keep(TopLevelHelp.PLAIN, picocli.out());
    assertThat(TopLevelHelp.text(false)).as(REGENERATE).isEqualTo(picocli.out());
    // Every subcommand is listed, as the tree registers them.
    for (String name : NodeAtlasCommand.SUBCOMMANDS.keySet()) {
      assertThat(TopLevelHelp.text(false)).contains("\n  " + name + " ");
    }
  }

  @Test
  void theColouredHelpIsPicoclisHelpWithAnsiOn() throws Exception {
    CommandLine cl = NodeAtlasCommand.commandLine();
    cl.setColorScheme(CommandLine.Help.defaultColorScheme(CommandLine.Help.Ansi.ON));
    StringWriter out = new StringWriter();
    cl.setOut(new PrintWriter(out));
    assertThat(cl.execute("--help")).isZero();
    assertThat(out.toString()).contains("\u001b[");
    keep(TopLevelHelp.COLOUR, out.toString());
    assertThat(TopLevelHelp.text(true)).as(REGENERATE).isEqualTo(out.toString());
  }

  private static void keep(String resource, String text) throws Exception {
    if (Boolean.getBoolean("nodeatlas.help.update")) {
      Files.writeString(Path.of("src/main/resources/io/nodeatlas/cli", resource), text, StandardCharsets.UTF_8);
    }
  }
}
