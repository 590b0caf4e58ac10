package io.nodeatlas.cli.testing;

import io.fabric8.kubernetes.client.KubernetesClient;
import io.fabric8.kubernetes.client.server.mock.KubernetesCrudDispatcher;
import io.fabric8.kubernetes.client.server.mock.KubernetesMockServer;
import io.fabric8.mockwebserver.Context;
import io.fabric8.mockwebserver.MockWebServer;
import io.nodeatlas.agent.testing.Eventually;
import io.nodeatlas.cli.Main;
import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.function.BooleanSupplier;

/**
 * {@code nodeatlas run} as separate processes, as a node runs it, for tests that kill, restart or update
 * the agent: one API server (fabric8's CRUD mock) and its kubeconfig, node {@code node-a}, and per agent a
 * process on {@code dir}'s kubelet root {@code k}, CDI root {@code cdi} and state directory {@code state},
 * its output in {@code <name>.log}. Closing it kills every agent it started and stops the API server.
 */
public final class AgentProcesses implements AutoCloseable {

  /** Generous: JVM starts on a loaded 2-core machine take seconds; only a hang reaches it. */
  public static final Duration WAIT = Duration.ofSeconds(90);

  private final Path dir;
  private final KubernetesMockServer api;
  private final KubernetesClient client;
  private final Path kubeconfig;
  private final List<Process> processes = new ArrayList<>();

  public AgentProcesses(Path dir) throws IOException {
    this.dir = dir;
    api = new KubernetesMockServer(new Context(), new MockWebServer(), new HashMap<>(), new KubernetesCrudDispatcher(), false);
    api.init();
    client = api.createClient();
    kubeconfig = Files.writeString(dir.resolve("kubeconfig"), """
        apiVersion: v1
        kind: Config
        clusters: [{name: c, cluster: {server: "%s"}}]
        users: [{name: u, user: {token: t}}]
        contexts: [{name: x, context: {cluster: c, user: u}}]
        current-context: x
        """.formatted(client.getConfiguration().getMasterUrl()));
  }

  public KubernetesClient client() {
    return client;
  }

  public Path kubeletRoot() {
    return dir.resolve("k");
  }

  public Path stateDir() {
    return dir.resolve("state");
  }

  /**
   * Starts {@code nodeatlas run} with the common flags and then {@code args}; {@code env} is added to this
   * JVM's environment (a null value removes the variable), less what would point it elsewhere.
   */
  public Process start(String name, Map<String, String> env, String... args) throws IOException {
    List<String> cmd = new ArrayList<>(List.of(
        Path.of(System.getProperty("java.home"), "bin", "java").toString(), "-Xmx128m",
        "-cp", System.getProperty("java.class.path"), Main.class.getName(), "run",
        "--kubeconfig", kubeconfig.toString(), "--node-name", "node-a",
        "--kubelet-root", kubeletRoot().toString(), "--cdi-root", dir.resolve("cdi").toString(),
        "--state-dir", stateDir().toString(), "--resync-interval", "5s", "--drain-timeout", "2s"));
    cmd.addAll(List.of(args));
    ProcessBuilder pb = new ProcessBuilder(cmd).redirectErrorStream(true).redirectOutput(dir.resolve(name + ".log").toFile());
    for (String v : List.of("KUBECONFIG", "NOTIFY_SOCKET", "POD_UID")) {
      pb.environment().remove(v);
    }
    env.forEach((k, v) -> {
      if (v == null) {
        pb.environment().remove(k);
      } else {
        pb.environment().put(k, v);
      }
    });
    Process p = pb.start();
    processes.add(p);
    return p;
  }

  /** Waits up to {@link #WAIT} for {@code condition}; a timeout fails with the agent {@code logName}'s output. */
  public void await(String what, BooleanSupplier condition, String logName) throws InterruptedException {
    Eventually.await(what, WAIT, condition, () -> log(logName));
  }

  /** What agent {@code name} wrote so far. */
  public String log(String name) {
    try {
      return Files.readString(dir.resolve(name + ".log"));
    } catch (IOException e) {
      return e.toString();
    }
  }

  @Override
  public void close() {
    processes.forEach(Process::destroyForcibly);
    api.destroy();
  }
}
