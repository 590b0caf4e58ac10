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
 * {@code src/main/java/io/nodeatlas/cli/TopLevelHelpText.java}.
 */
class TopLevelHelpTest {

  private static final String REGENERATE =
      "the kept help is picocli's --help; rerun TopLevelHelpTest with -Dnodeatlas.help.update=true after changing a command";

  @Test
  void thePlainHelpIsPicoclisHelpOfTheWholeTree() throws Exception {
    String picocli = plainHelp();
    assertThat(picocli).startsWith("Usage: nodeatlas").contains("Commands:").doesNotContain("\u001b[");
    keep();
    assertThat(TopLevelHelp.text(false)).as(REGENERATE).isEqualTo(picocli);
    // Every subcommand is listed, as the tree registers them.
    for (String name : NodeAtlasCommand.SUBCOMMANDS.keySet()) {
      assertThat(TopLevelHelp.text(false)).contains("\n  " + name + " ");
    }
  }

  @Test
  void theColouredHelpIsPicoclisHelpWithAnsiOn() throws Exception {
    String picocli = colouredHelp();
    assertThat(picocli).contains("\u001b[");
    keep();
    assertThat(TopLevelHelp.text(true)).as(REGENERATE).isEqualTo(picocli);
  }

  @Test
  void theKeptTextsAreJavaLiteralsOfTheHelp() {
    String text = "a \"quoted\" \\ line\n\u001b[1mbold\u001b[0m caf\u00e9\n";
    assertThat(literal(text)).isEqualTo(
        "      \"a \\\"quoted\\\" \\\\ line\\n\"\n      + \"\\033[1mbold\\033[0m caf\\u00e9\\n\"");
  }

  private static String plainHelp() {
    Result picocli = NodeAtlasRun.run("--help");
    assertThat(picocli.status()).isZero();
    return picocli.out();
  }

  private static String colouredHelp() {
    CommandLine cl = NodeAtlasCommand.commandLine();
    cl.setColorScheme(CommandLine.Help.defaultColorScheme(CommandLine.Help.Ansi.ON));
    StringWriter out = new StringWriter();
    cl.setOut(new PrintWriter(out));
    assertThat(cl.execute("--help")).isZero();
    return out.toString();
  }

  /** With -Dnodeatlas.help.update=true: writes picocli's two texts as TopLevelHelpText's constants. */
  private static void keep() throws Exception {
    if (!Boolean.getBoolean("nodeatlas.help.update")) {
      return;
    }
    String source = "package io.nodeatlas.cli;\n\n"
        + "/** Written by TopLevelHelpTest with -Dnodeatlas.help.update=true: picocli's top-level help. */\n"
        + "final class TopLevelHelpText {\n\n"
        + "  private TopLevelHelpText() {}\n\n"
        + "  /** Plain, as picocli prints it at its default width. */\n"
        + "  static final String PLAIN =\n" + literal(plainHelp()) + ";\n\n"
        + "  /** In colour (ANSI on). */\n"
        + "  static final String COLOUR =\n" + literal(colouredHelp()) + ";\n"
        + "}\n";
    Files.writeString(Path.of("src/main/java/io/nodeatlas/cli/TopLevelHelpText.java"), source, StandardCharsets.UTF_8);
  }

  /** A Java expression of {@code text}: one string literal a line, joined with {@code +}. */
  static String literal(String text) {
    StringBuilder out = new StringBuilder();
    int start = 0;
    while (start < text.length()) {
      int end = text.indexOf('\n', start);
      end = end < 0 ? text.length() : end + 1;
      out.append(start == 0 ? "      \"" : "\n      + \"");
      for (int i = start; i < end; i++) {
        char c = text.charAt(i);
        if (c == '\\' || c == '"') {
          out.append('\\').append(c);
        } else if (c == '\n') {
          out.append("\\n");
        } else if (c < 0x20 || c == 0x7f) {
          out.append(String.format("\\%03o", (int) c));
        } else if (c > 0x7e) {
          out.append(String.format("\\u%04x", (int) c));
        } else {
          out.append(c);
        }
      }
      out.append('"');
      start = end;
    }
    return start == 0 ? "      \"\"" : out.toString();
  }
}
