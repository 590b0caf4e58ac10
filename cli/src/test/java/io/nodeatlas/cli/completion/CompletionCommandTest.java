package io.nodeatlas.cli.completion;

import static org.assertj.core.api.Assertions.assertThat;

import io.nodeatlas.cli.testing.NodeAtlasRun;
import io.nodeatlas.cli.testing.NodeAtlasRun.Result;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.List;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.Assumptions;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/** {@code nodeatlas completion bash|zsh}, sourced by a real bash and a real zsh that then complete a line. */
class CompletionCommandTest {

  @TempDir Path dir;

  private Path script(String shell) throws Exception {
    Result r = NodeAtlasRun.run("completion", shell);
    assertThat(r.status()).as(r.err()).isZero();
    Path file = dir.resolve("nodeatlas." + shell);
    Files.writeString(file, r.out());
    return file;
  }

  /** What the completion function offers for {@code words}, the last being the word under the cursor. */
  private static List<String> complete(String shell, Path script, String... words) throws Exception {
    StringBuilder array = new StringBuilder();
    for (String w : words) {
      array.append(" '").append(w).append('\'');
    }
    String line = String.join(" ", words);
    String body = "COMP_WORDS=(" + array + "); COMP_CWORD=" + (words.length - 1) + "; COMP_LINE='" + line
        + "'; COMP_POINT=${#COMP_LINE}; _complete_nodeatlas; printf '%s\\n' \"${COMPREPLY[@]}\"";
    // zsh runs a bash completion function the way its bashcompinit does: in sh emulation.
    String program = shell.equals("zsh")
        ? "source " + script + " && f() { emulate -L sh; setopt kshglob noshglob braceexpand; " + body + "; }; f"
        : "source " + script + " && " + body;
    Process p = new ProcessBuilder(shell, "-c", program).redirectErrorStream(false).start();
    assertThat(p.waitFor(60, TimeUnit.SECONDS)).isTrue();
    String err = new String(p.getErrorStream().readAllBytes(), StandardCharsets.UTF_8);
    assertThat(p.exitValue()).as(err).isZero();
    return new String(p.getInputStream().readAllBytes(), StandardCharsets.UTF_8).lines().toList();
  }

  @Test
  void bashCompletesCommandsFlagsAndValues() throws Exception {
    Path script = script("bash");
    assertThat(complete("bash", script, "nodeatlas", "disc")).containsExactly("discover");
    assertThat(complete("bash", script, "nodeatlas", "sli")).containsExactly("slices");
    assertThat(complete("bash", script, "nodeatlas", "discover", "--sou")).containsExactly("--sources");
    assertThat(complete("bash", script, "nodeatlas", "discover", "--out")).containsExactly("--output");
    assertThat(complete("bash", script, "nodeatlas", "discover", "-o", "")).contains("json", "yaml", "table", "tree", "svg");
    assertThat(complete("bash", script, "nodeatlas", "cdi", "gen")).containsExactly("generate");
  }

  @Test
  void zshSourcesTheSameScriptAndCompletes() throws Exception {
    Assumptions.assumeTrue(Files.isExecutable(Path.of("/usr/bin/zsh")) || Files.isExecutable(Path.of("/bin/zsh")),
        "zsh is not installed (.ci/run installs it)");
    Path script = script("zsh");
    // zsh filters the offered words by the prefix itself; the function offers them all.
    assertThat(complete("zsh", script, "nodeatlas", "disc")).contains("discover", "slices", "completion");
    assertThat(complete("zsh", script, "nodeatlas", "discover", "--sou")).contains("--sources", "--output");
  }

  @Test
  void anotherShellIsBadUsage() {
    Result r = NodeAtlasRun.run("completion", "fish");
    assertThat(r.status()).isEqualTo(2);
    assertThat(r.err()).contains("bash or zsh");
  }
}
