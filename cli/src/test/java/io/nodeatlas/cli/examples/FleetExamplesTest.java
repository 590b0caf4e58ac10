package io.nodeatlas.cli.examples;

import static io.nodeatlas.cli.testing.NodeAtlasRun.run;
import static org.assertj.core.api.Assertions.assertThat;

import io.nodeatlas.cli.testing.NodeAtlasRun.Result;
import io.nodeatlas.cli.testing.Repo;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.regex.Matcher;
import java.util.regex.Pattern;
import org.junit.jupiter.api.Test;

/**
 * The fleet examples run as written: every {@code console} block of {@code examples/fleet/README.md} and of
 * the README's fleet section is a {@code ./nodeatlas} command (run from the repository root) and its exact
 * output; each is run here and must print exactly that. Regenerate the saved nodes and the outputs with
 * {@code -Dnodeatlas.examples.write=true}.
 */
class FleetExamplesTest {

  static final Path ROOT = Repo.root();
  static final Pattern BLOCK = Pattern.compile("```console\n\\$ \\./nodeatlas ([^\n]*)\n(.*?)```", Pattern.DOTALL);
  static final boolean WRITE = Boolean.getBoolean("nodeatlas.examples.write");

  @Test
  void theSavedFleetNodesAreCurrent() throws Exception {
    for (Map.Entry<String, String> doc : ExampleNodes.fleetDocuments().entrySet()) {
      Path file = ROOT.resolve("examples/fleet/nodes").resolve(doc.getKey());
      if (WRITE) {
        Files.createDirectories(file.getParent());
        Files.writeString(file, doc.getValue());
      }
      assertThat(file).as("regenerate with -Dnodeatlas.examples.write=true").hasContent(doc.getValue());
    }
  }

  @Test
  void theFleetReadmeShowsWhatTheCommandsPrint() throws Exception {
    checkBlocks(ROOT.resolve("examples/fleet/README.md"), 4);
  }

  @Test
  void theReadmesFleetSectionShowsWhatTheCommandsPrint() throws Exception {
    checkBlocks(ROOT.resolve("README.md"), 1);
  }

  static void checkBlocks(Path readme, int atLeast) throws Exception {
    String text = Files.readString(readme);
    Matcher m = BLOCK.matcher(text);
    StringBuilder rewritten = new StringBuilder();
    int blocks = 0;
    List<String> wrong = new ArrayList<>();
    while (m.find()) {
      blocks++;
      List<String> args = new ArrayList<>();
      for (String a : m.group(1).trim().split(" +")) {
        args.add(a.startsWith("examples/") || a.startsWith("deploy/") ? ROOT.resolve(a).toString() : a);
      }
      Result r = run(args.toArray(String[]::new));
      String shown = r.out().replace(ROOT + "/", "");
      if (!shown.equals(m.group(2))) {
        wrong.add("./nodeatlas " + m.group(1) + "\n--- README\n" + m.group(2) + "--- printed (exit " + r.status() + ")\n"
            + shown + r.err());
      }
      m.appendReplacement(rewritten, Matcher.quoteReplacement("```console\n$ ./nodeatlas " + m.group(1) + "\n" + shown + "```"));
    }
    m.appendTail(rewritten);
    if (WRITE) {
      Files.writeString(readme, rewritten.toString());
      return;
    }
    assertThat(blocks).as(readme + ": console blocks").isGreaterThanOrEqualTo(atLeast);
    assertThat(wrong).as(readme + ": regenerate with -Dnodeatlas.examples.write=true").isEmpty();
  }
}
