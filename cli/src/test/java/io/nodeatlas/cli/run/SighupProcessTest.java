package io.nodeatlas.cli.run;

import static org.assertj.core.api.Assertions.assertThat;

import io.nodeatlas.cli.Main;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.List;
import java.util.concurrent.TimeUnit;
import java.util.function.Predicate;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * {@code nodeatlas run} as a real process: the start-up summary names each source and why it is
 * unavailable, and SIGHUP re-reads the config file and discovers with what it now says (here: another
 * source list); a config file that no longer reads keeps the running settings.
 */
class SighupProcessTest {

  static final Duration WAIT = Duration.ofSeconds(90);

  @TempDir Path dir;

  @Test
  void sighupReReadsTheConfigFileAndDiscoversAgain() throws Exception {
    Path hostRoot = Files.createDirectories(dir.resolve("host"));
    Path config = Files.writeString(dir.resolve("config.yaml"), "sources: cpu-numa\n");
    Path log = dir.resolve("agent.log");
    ProcessBuilder pb = new ProcessBuilder(List.of(
        Path.of(System.getProperty("java.home"), "bin", "java").toString(), "-Xmx64m",
        "-cp", System.getProperty("java.class.path"), Main.class.getName(), "run",
        "--standalone", "--config", config.toString(), "--host-root", hostRoot.toString(),
        "--cdi-root", dir.resolve("cdi").toString(), "--state-dir", dir.resolve("state").toString()))
        .redirectErrorStream(true).redirectOutput(log.toFile());
    pb.environment().remove("NOTIFY_SOCKET");
    pb.environment().remove("NODEATLAS_SOURCES");
    Process p = pb.start();
    try {
      // The summary at the default level: the source, its state and the reason (an empty host has no sysfs).
      String first = awaitLine(log, l -> l.contains("discovered sources=[cpu-numa: "), p);
      assertThat(first).contains("devices=0", "byType={}");
      assertThat(first).containsPattern("cpu-numa: (unavailable|failed) \\(.+\\)");

      Files.writeString(config, "sources: nic-rdma\n");
      signal(p, "HUP");
      awaitLine(log, l -> l.contains("configuration re-read"), p);
      awaitLine(log, l -> l.contains("discovered sources=[nic-rdma: "), p);

      // A file that no longer reads: said so, and the agent goes on with what it runs.
      Files.writeString(config, "resyncInterval: [not, a, duration\n");
      signal(p, "HUP");
      assertThat(awaitLine(log, l -> l.contains("cannot re-read the configuration"), p)).contains("keeping the running one");
      assertThat(p.isAlive()).isTrue();

      p.destroy();
      assertThat(p.waitFor(WAIT.toSeconds(), TimeUnit.SECONDS)).isTrue();
      assertThat(p.exitValue()).as(Files.readString(log)).isZero();
    } finally {
      p.destroyForcibly();
    }
  }

  private static void signal(Process p, String name) throws Exception {
    Process kill = new ProcessBuilder("kill", "-" + name, Long.toString(p.pid())).start();
    assertThat(kill.waitFor(WAIT.toSeconds(), TimeUnit.SECONDS)).isTrue();
    assertThat(kill.exitValue()).isZero();
  }

  /** The first log line {@code wanted} accepts, waiting for it (bounded by {@link #WAIT}; the process ending ends the wait). */
  private static String awaitLine(Path log, Predicate<String> wanted, Process p) throws Exception {
    java.util.concurrent.atomic.AtomicReference<String> found = new java.util.concurrent.atomic.AtomicReference<>();
    io.nodeatlas.agent.testing.Eventually.await("a log line", WAIT, () -> {
      try {
        if (Files.exists(log)) {
          for (String line : Files.readAllLines(log)) {
            if (wanted.test(line)) {
              found.set(line);
              return true;
            }
          }
        }
      } catch (java.io.IOException e) {
        throw new java.io.UncheckedIOException(e);
      }
      if (!p.isAlive()) {
        throw new AssertionError("no such log line; the agent exited");
      }
      return false;
    }, () -> {
      try {
        return Files.exists(log) ? Files.readString(log) : "";
      } catch (java.io.IOException e) {
        return "(log unreadable: " + e + ")";
      }
    });
    return found.get();
  }
}
