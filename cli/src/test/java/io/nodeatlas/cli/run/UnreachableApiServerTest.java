package io.nodeatlas.cli.run;

import static org.assertj.core.api.Assertions.assertThat;

import io.nodeatlas.cli.Main;
import java.io.BufferedReader;
import java.io.InputStreamReader;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.LinkedBlockingQueue;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/** Issue 31: {@code run} against an API server nobody answers at says which server, in words, not Java class names. */
class UnreachableApiServerTest {

  @TempDir Path dir;

  @Test
  void theUnreachableServerIsNamedByItsUrl() throws Exception {
    int port;
    try (java.net.ServerSocket s = new java.net.ServerSocket(0, 1, java.net.InetAddress.getLoopbackAddress())) {
      port = s.getLocalPort(); // closed again: nothing listens there
    }
    String server = "https://127.0.0.1:" + port;
    Path kubeconfig = dir.resolve("kubeconfig");
    Files.writeString(kubeconfig, "apiVersion: v1\nkind: Config\nclusters:\n- name: c\n  cluster:\n    server: " + server
        + "\n    insecure-skip-tls-verify: true\ncontexts:\n- name: c\n  context: {cluster: c, user: u}\n"
        + "current-context: c\nusers:\n- name: u\n  user: {token: t}\n");
    Path hostRoot = Files.createDirectories(dir.resolve("host"));
    List<String> cmd = new ArrayList<>(List.of(Path.of(System.getProperty("java.home"), "bin", "java").toString(),
        "-Xmx96m", "--enable-native-access=ALL-UNNAMED", "-cp", System.getProperty("java.class.path"), Main.class.getName(),
        "run", "--kubeconfig", kubeconfig.toString(), "--node-name", "node-a", "--host-root", hostRoot.toString(),
        "--sources", "cpu-numa", "--cdi-root", dir.resolve("cdi").toString(), "--state-dir", dir.resolve("state").toString(),
        "--kubelet-root", dir.resolve("kubelet").toString()));
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
      String start = null;
      String failed = null;
      long deadline = System.nanoTime() + TimeUnit.SECONDS.toNanos(90);
      while (failed == null) {
        String line = lines.poll(Math.max(0, deadline - System.nanoTime()), TimeUnit.NANOSECONDS);
        assertThat(line).as("no publish failure within 90 s:\n" + log).isNotNull().isNotEqualTo("<end>");
        log.append(line).append('\n');
        if (line.contains("starting nodeatlas run")) {
          start = line;
        }
        if (line.contains("publish failed")) {
          failed = line;
        }
      }
      assertThat(start).as(log.toString()).contains("API server " + server + "/");
      assertThat(failed).contains("no answer from " + server + "/: ").doesNotContain("Exception");
    } finally {
      p.destroyForcibly();
      p.waitFor(30, TimeUnit.SECONDS);
    }
  }
}
