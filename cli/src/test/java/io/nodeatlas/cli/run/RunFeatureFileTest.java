package io.nodeatlas.cli.run;

import static org.assertj.core.api.Assertions.assertThat;

import io.nodeatlas.cli.Main;
import io.nodeatlas.cli.testing.NodeAtlasRun;
import io.nodeatlas.cli.testing.Repo;
import java.io.BufferedReader;
import java.io.InputStreamReader;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.List;
import java.util.concurrent.LinkedBlockingQueue;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * {@code run --features-dir}: the agent writes the NFD feature file from the devices of the discovery it
 * publishes, the same file {@code nodeatlas labels} prints for them.
 */
class RunFeatureFileTest {

  @TempDir Path dir;

  @Test
  void theAgentWritesTheLabelsOfWhatItPublishes() throws Exception {
    String hgx = Repo.root().resolve("examples/nodes/hgx-01.json").toString();
    Path featuresD = Files.createDirectories(dir.resolve("features.d"));
    List<String> cmd = List.of(Path.of(System.getProperty("java.home"), "bin", "java").toString(), "-Xmx96m",
        "--enable-native-access=ALL-UNNAMED", "-cp", System.getProperty("java.class.path"), Main.class.getName(),
        "run", "--standalone", "--replay-report", hgx, "--features-dir", featuresD.toString(),
        "--cdi-root", dir.resolve("cdi").toString(), "--state-dir", dir.resolve("state").toString());
    Process p = new ProcessBuilder(cmd).redirectErrorStream(true).start();
    LinkedBlockingQueue<String> lines = new LinkedBlockingQueue<>();
    Thread reader = new Thread(() -> {
      try (BufferedReader r = new BufferedReader(new InputStreamReader(p.getInputStream(), StandardCharsets.UTF_8))) {
        for (String line; (line = r.readLine()) != null; ) {
          lines.add(line);
        }
      } catch (java.io.IOException e) {
        // the process ended
      }
      lines.add("<end>");
    });
    reader.setDaemon(true);
    reader.start();
    StringBuilder log = new StringBuilder();
    try {
      long deadline = System.nanoTime() + TimeUnit.SECONDS.toNanos(90);
      String wrote = null;
      while (wrote == null) {
        String line = lines.poll(Math.max(0, deadline - System.nanoTime()), TimeUnit.NANOSECONDS);
        assertThat(line).as("no feature file within 90 s:\n" + log).isNotNull().isNotEqualTo("<end>");
        log.append(line).append('\n');
        if (line.contains("wrote NFD feature file")) {
          wrote = line;
        }
      }
      assertThat(wrote).contains("file=" + featuresD.resolve("nodeatlas")).contains("labels=14");
      assertThat(featuresD.resolve("nodeatlas")).hasContent(NodeAtlasRun.run("labels", "--discovered", hgx).out());
    } finally {
      p.destroy();
      p.waitFor(30, TimeUnit.SECONDS);
      p.destroyForcibly();
    }
  }
}
