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

  /**
   * Issue 35 item 4: SIGHUP from the first instant, as a reload or a config manager may send it while
   * the agent starts. Started as the launcher starts it (SIGHUP ignored through the JVM's own start),
   * the agent lives through a SIGHUP every few milliseconds until it has discovered, says it got them,
   * acts on them once, and re-reads its configuration on SIGHUP afterwards as always.
   */
  @Test
  void sighupFromTheFirstInstantNeitherEndsTheStartNorLaterReloads() throws Exception {
    Path hostRoot = Files.createDirectories(dir.resolve("host"));
    Path config = Files.writeString(dir.resolve("config.yaml"), "sources: cpu-numa\n");
    Path log = dir.resolve("agent.log");
    String java = Path.of(System.getProperty("java.home"), "bin", "java").toString();
    // The launcher's line for run: trap '' HUP, then exec java.
    ProcessBuilder pb = new ProcessBuilder(List.of("sh", "-c", "trap '' HUP; exec \"$@\"", "sh", java, "-Xmx64m",
        "-cp", System.getProperty("java.class.path"), Main.class.getName(), "run",
        "--standalone", "--config", config.toString(), "--host-root", hostRoot.toString(),
        "--cdi-root", dir.resolve("cdi").toString(), "--state-dir", dir.resolve("state").toString()))
        .redirectErrorStream(true).redirectOutput(log.toFile());
    pb.environment().remove("NOTIFY_SOCKET");
    pb.environment().remove("NODEATLAS_SOURCES");
    Process p = pb.start();
    try {
      // From the launcher's first instruction on (its trap): before, a shell dies of SIGHUP as any does.
      io.nodeatlas.agent.testing.Eventually.await("the launcher's trap", WAIT, () -> hangupHandledOrIgnored(p),
          () -> "SigIgn/SigCgt of " + p.pid());
      int sent = 0;
      long deadline = System.nanoTime() + WAIT.toNanos();
      while (p.isAlive() && !(Files.exists(log) && Files.readString(log).contains("discovered sources="))
          && System.nanoTime() < deadline) {
        // Every few milliseconds (each kill is a fork and exec) from the process's first instant on.
        new ProcessBuilder("kill", "-HUP", Long.toString(p.pid())).start().waitFor();
        sent++;
      }
      assertThat(p.isAlive()).as("alive after %d SIGHUPs while starting; exit %s; log:%n%s", sent,
          p.isAlive() ? "-" : p.exitValue(), Files.readString(log)).isTrue();
      assertThat(sent).isGreaterThan(3);
      awaitLine(log, l -> l.contains("received SIGHUP while starting count="), p);

      Files.writeString(config, "sources: nic-rdma\n");
      signal(p, "HUP");
      awaitLine(log, l -> l.contains("discovered sources=[nic-rdma: "), p);

      p.destroy();
      assertThat(p.waitFor(WAIT.toSeconds(), TimeUnit.SECONDS)).isTrue();
      assertThat(p.exitValue()).as(Files.readString(log)).isZero();
    } finally {
      p.destroyForcibly();
    }
  }

  /** Whether the process ignores or catches SIGHUP now (bit 0 of SigIgn or SigCgt in /proc/PID/status). */
  private static boolean hangupHandledOrIgnored(Process p) {
    try {
      for (String line : Files.readAllLines(Path.of("/proc", Long.toString(p.pid()), "status"))) {
        if (line.startsWith("SigIgn:") || line.startsWith("SigCgt:")) {
          if ((Long.parseUnsignedLong(line.substring(7).strip(), 16) & 1) != 0) {
            return true;
          }
        }
      }
      return false;
    } catch (java.io.IOException e) {
      throw new AssertionError("the process ended before its launcher set its trap", e);
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
