package io.nodeatlas.cli.run;

import static org.assertj.core.api.Assertions.assertThat;

import io.nodeatlas.agent.testing.FakeSystemd;
import io.nodeatlas.cli.Main;
import java.net.URI;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.TimeUnit;
import java.util.function.Predicate;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * {@code nodeatlas run} as a real process under a stand-in systemd: READY=1 after start, health and
 * metrics served, STOPPING=1 and exit status 0 on SIGTERM.
 */
class RunProcessTest {

  /** Generous: a JVM start on a loaded machine takes seconds, and only a hang should reach this. */
  static final Duration WAIT = Duration.ofSeconds(60);

  /** What the queue gets when the agent process ends, followed by its exit status. */
  static final String EXITED = "<agent exited with status ";

  @TempDir Path dir;

  @Test
  void standaloneRunNotifiesServesAndStopsCleanlyOnSigterm() throws Exception {
    Path hostRoot = Files.createDirectories(dir.resolve("host"));
    Path cdi = dir.resolve("cdi");
    Path notify = dir.resolve("notify.sock");
    int port;
    try (java.net.ServerSocket s = new java.net.ServerSocket(0)) {
      port = s.getLocalPort();
    }
    List<String> cmd = new ArrayList<>(List.of(
        Path.of(System.getProperty("java.home"), "bin", "java").toString(),
        "-Xmx64m", "--enable-native-access=ALL-UNNAMED",
        "-cp", System.getProperty("java.class.path"),
        Main.class.getName(), "run",
        "--standalone", "--host-root", hostRoot.toString(), "--sources", "cpu-numa",
        "--cdi-root", cdi.toString(), "--state-dir", dir.resolve("state").toString(),
        "--http-port", Integer.toString(port), "--log-format", "json"));
    try (FakeSystemd systemd = new FakeSystemd(notify.toString())) {
      ProcessBuilder pb = new ProcessBuilder(cmd).redirectErrorStream(true)
          .redirectOutput(dir.resolve("agent.log").toFile());
      pb.environment().put("NOTIFY_SOCKET", notify.toString());
      pb.environment().put("WATCHDOG_USEC", "2000000");
      pb.environment().remove("KUBECONFIG");
      Process p = pb.start();
      // The process ending is an event too: it wakes the wait below instead of letting it run out.
      p.onExit().thenAccept(exited -> systemd.received.add(EXITED + exited.exitValue()));
      try {
        String ready = awaitMessage(systemd, m -> !m.equals("WATCHDOG=1"), true);
        assertThat(ready).as(log()).startsWith("READY=1\nSTATUS=standalone: ");

        HttpClient http = HttpClient.newHttpClient();
        HttpResponse<String> readyz = http.send(HttpRequest.newBuilder(URI.create("http://127.0.0.1:" + port + "/readyz?verbose"))
            .build(), HttpResponse.BodyHandlers.ofString());
        assertThat(readyz.statusCode()).as(readyz.body()).isEqualTo(200);
        assertThat(readyz.body()).contains("[+]discovered ok", "[+]cdi ok");
        HttpResponse<String> metrics = http.send(HttpRequest.newBuilder(URI.create("http://127.0.0.1:" + port + "/metrics"))
            .build(), HttpResponse.BodyHandlers.ofString());
        assertThat(metrics.body()).contains("nodeatlas_build_info{", "nodeatlas_ready 1.0");

        // No --http-address given: the endpoints listen on loopback only, not on this machine's other addresses.
        for (java.net.InetAddress other : nonLoopbackAddresses()) {
          try (java.net.Socket s = new java.net.Socket()) {
            s.connect(new java.net.InetSocketAddress(other, port), (int) WAIT.toMillis());
            throw new AssertionError("the HTTP port answers on " + other);
          } catch (java.net.ConnectException refused) {
            // As wanted: nothing listens there.
          }
        }

        // The watchdog is petted every WATCHDOG_USEC/2 from the main loop.
        assertThat(awaitMessage(systemd, m -> m.equals("WATCHDOG=1"), true)).as(log()).isEqualTo("WATCHDOG=1");

        p.destroy(); // SIGTERM
        assertThat(p.waitFor(WAIT.toSeconds(), TimeUnit.SECONDS)).as(log()).isTrue();
        assertThat(p.exitValue()).as(log()).isZero();
        // Sent before the exit, so it is on its way even when the exit was noticed first.
        assertThat(awaitMessage(systemd, m -> m.startsWith("STOPPING=1"), false)).as(log()).startsWith("STOPPING=1");
        assertThat(Files.readString(dir.resolve("agent.log"))).contains("\"msg\":\"received SIGTERM\"");
      } finally {
        p.destroyForcibly();
      }
    }
  }

  /**
   * The next message from the process that {@code wanted} accepts, or (when {@code untilExit}) the
   * note that the process exited; waits for that event, bounded by {@link #WAIT} so only a hang fails
   * the test by time.
   */
  private String awaitMessage(FakeSystemd systemd, Predicate<String> wanted, boolean untilExit)
      throws InterruptedException {
    long deadline = System.nanoTime() + WAIT.toNanos();
    while (true) {
      String m = systemd.received.poll(Math.max(0, deadline - System.nanoTime()), TimeUnit.NANOSECONDS);
      if (m == null) {
        throw new AssertionError("no message from the agent within " + WAIT.toSeconds() + " s\n" + log());
      }
      if ((untilExit && m.startsWith(EXITED)) || wanted.test(m)) {
        return m;
      }
    }
  }

  private static List<java.net.InetAddress> nonLoopbackAddresses() throws java.net.SocketException {
    List<java.net.InetAddress> out = new ArrayList<>();
    for (java.net.NetworkInterface nic : java.util.Collections.list(java.net.NetworkInterface.getNetworkInterfaces())) {
      if (nic.isUp() && !nic.isLoopback()) {
        for (java.net.InetAddress a : java.util.Collections.list(nic.getInetAddresses())) {
          if (a instanceof java.net.Inet4Address && !a.isLoopbackAddress()) {
            out.add(a);
          }
        }
      }
    }
    return out;
  }

  private String log() {
    try {
      return Files.readString(dir.resolve("agent.log"));
    } catch (java.io.IOException e) {
      return e.toString();
    }
  }
}
