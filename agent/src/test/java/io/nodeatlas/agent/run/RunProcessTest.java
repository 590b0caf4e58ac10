package io.nodeatlas.agent.run;

import static org.assertj.core.api.Assertions.assertThat;

import io.nodeatlas.agent.testing.FakeSystemd;
import java.net.URI;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * {@code nodeatlas run} as a real process under a stand-in systemd: READY=1 after start, health and
 * metrics served, STOPPING=1 and exit status 0 on SIGTERM.
 */
class RunProcessTest {

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
        "io.nodeatlas.agent.cli.Main", "run",
        "--standalone", "--host-root", hostRoot.toString(), "--sources", "cpu-numa",
        "--cdi-root", cdi.toString(), "--state-dir", dir.resolve("state").toString(),
        "--http-port", Integer.toString(port), "--http-bind-address", "127.0.0.1", "--log-format", "json"));
    try (FakeSystemd systemd = new FakeSystemd(notify.toString())) {
      ProcessBuilder pb = new ProcessBuilder(cmd).redirectErrorStream(true)
          .redirectOutput(dir.resolve("agent.log").toFile());
      pb.environment().put("NOTIFY_SOCKET", notify.toString());
      pb.environment().put("WATCHDOG_USEC", "2000000");
      pb.environment().remove("KUBECONFIG");
      Process p = pb.start();
      try {
        String ready;
        do {
          ready = systemd.next();
        } while (ready != null && ready.equals("WATCHDOG=1"));
        assertThat(ready).as(log()).startsWith("READY=1\nSTATUS=standalone: ");

        HttpClient http = HttpClient.newHttpClient();
        HttpResponse<String> readyz = http.send(HttpRequest.newBuilder(URI.create("http://127.0.0.1:" + port + "/readyz?verbose"))
            .build(), HttpResponse.BodyHandlers.ofString());
        assertThat(readyz.statusCode()).as(readyz.body()).isEqualTo(200);
        assertThat(readyz.body()).contains("[+]discovered ok", "[+]cdi ok");
        HttpResponse<String> metrics = http.send(HttpRequest.newBuilder(URI.create("http://127.0.0.1:" + port + "/metrics"))
            .build(), HttpResponse.BodyHandlers.ofString());
        assertThat(metrics.body()).contains("nodeatlas_build_info{", "nodeatlas_ready 1.0");

        // The watchdog is petted every WATCHDOG_USEC/2 from the main loop.
        String next;
        do {
          next = systemd.next();
        } while (next != null && !next.equals("WATCHDOG=1"));
        assertThat(next).as(log()).isEqualTo("WATCHDOG=1");

        p.destroy(); // SIGTERM
        assertThat(p.waitFor(30, TimeUnit.SECONDS)).isTrue();
        assertThat(p.exitValue()).as(log()).isZero();
        List<String> rest = new ArrayList<>();
        systemd.received.drainTo(rest);
        assertThat(rest).as(log()).anySatisfy(m -> assertThat(m).startsWith("STOPPING=1"));
        assertThat(Files.readString(dir.resolve("agent.log"))).contains("\"msg\":\"received SIGTERM\"");
      } finally {
        p.destroyForcibly();
      }
    }
  }

  private String log() {
    try {
      return Files.readString(dir.resolve("agent.log"));
    } catch (java.io.IOException e) {
      return e.toString();
    }
  }
}
