package io.nodeatlas.cdi;

import static org.assertj.core.api.Assertions.assertThat;

import io.nodeatlas.cdi.spec.SpecFormat;
import io.nodeatlas.discovery.files.AtomicFiles;
import java.io.BufferedReader;
import java.io.IOException;
import java.io.InputStreamReader;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.List;
import java.util.Random;
import java.util.concurrent.TimeUnit;
import java.util.stream.Stream;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * Crash safety of {@link CdiSpecWriter}: a separate JVM ({@link SpecWriterLoop}) rewrites specs in a
 * loop and is killed with SIGKILL ({@link Process#destroyForcibly()}) at random points. After every
 * kill each file a runtime would scan ({@code *.json}/{@code *.yaml}) must parse and validate, and any
 * left-over temporary file must be invisible to runtimes (dot-prefixed, not ending in .json/.yaml). The
 * next writer run cleans those up.
 */
class CdiSpecWriterCrashTest {

  private static final int KILLS = 3;

  @Test
  void killingTheWriterNeverLeavesAPartialOrInvalidSpec(@TempDir Path dir) throws Exception {
    Random random = new Random();
    CdiValidator validator = new CdiValidator();
    for (int kill = 0; kill < KILLS; kill++) {
      Process writer = start(dir);
      try (BufferedReader out = new BufferedReader(new InputStreamReader(writer.getInputStream(), StandardCharsets.UTF_8))) {
        assertThat(out.readLine()).as("writer started").isEqualTo("ready");
        // A random number of completed reconciles, then SIGKILL mid-way through the next one.
        int reconciles = random.nextInt(20);
        for (int i = 0; i < reconciles; i++) {
          assertThat(out.readLine()).as("writer reconciled").isEqualTo("wrote");
        }
        writer.destroyForcibly();
        assertThat(writer.waitFor(10, TimeUnit.SECONDS)).isTrue();
      }
      assertThat(writer.exitValue()).as("killed by SIGKILL").isEqualTo(137);
      List<Path> files = list(dir);
      List<Path> scanned = files.stream().filter(p -> SpecFormat.ofFileName(p.getFileName().toString()).isPresent()).toList();
      assertThat(scanned).extracting(p -> p.getFileName().toString()).contains("nodeatlas.io-gpu.json");
      for (Path p : scanned) {
        assertThat(validator.validateFile(p)).as("after kill %d: %s", kill, p).isEmpty();
      }
      for (Path p : files) {
        String name = p.getFileName().toString();
        if (!scanned.contains(p)) {
          assertThat(name).as("a non-spec file must be one of our hidden temporary files")
              .startsWith(".nodeatlas.io-").contains(AtomicFiles.TEMP_MARKER);
        }
      }
    }
    // A later writer run removes what a killed one left behind.
    CdiSpecGenerator generator = CdiSpecGenerator.builder().build();
    new CdiSpecWriter().reconcile(dir, generator.generate(SyntheticNode.devices()).specs(), generator.ownership());
    assertThat(list(dir)).allSatisfy(p -> assertThat(p.getFileName().toString()).doesNotStartWith("."));
  }

  private static Process start(Path dir) throws IOException {
    String java = Path.of(System.getProperty("java.home"), "bin", "java").toString();
    return new ProcessBuilder(java, "-XX:TieredStopAtLevel=1", "-XX:+UseSerialGC", "-Xshare:auto",
        "-cp", System.getProperty("java.class.path"), SpecWriterLoop.class.getName(), dir.toString())
        .redirectError(ProcessBuilder.Redirect.INHERIT)
        .start();
  }

  private static List<Path> list(Path dir) throws IOException {
    try (Stream<Path> s = Files.list(dir)) {
      return s.sorted().toList();
    }
  }
}
