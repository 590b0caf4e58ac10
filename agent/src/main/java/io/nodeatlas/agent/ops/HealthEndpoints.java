package io.nodeatlas.agent.ops;

import com.sun.net.httpserver.HttpExchange;
import com.sun.net.httpserver.HttpServer;
import java.io.IOException;
import java.io.OutputStream;
import java.net.InetSocketAddress;
import java.nio.charset.StandardCharsets;
import java.util.LinkedHashMap;
import java.util.Map;
import java.util.concurrent.Executors;
import java.util.function.Supplier;

/**
 * {@code /healthz} (alias {@code /livez}), {@code /readyz} and {@code /metrics} on an opt-in TCP port. Probes read the status code; {@code ?verbose} lists each check as the
 * Kubernetes components do ({@code [+]registered ok}).
 */
public final class HealthEndpoints implements AutoCloseable {

  /**
   * A named check: {@code failure} null means ok, else the reason it fails; {@code note} (null: none) is
   * a detail shown on the check's line when it passes ({@code [+]sharedDevices ok: ...}).
   */
  public record Check(String name, Supplier<String> failure, Supplier<String> note) {
    public Check(String name, Supplier<String> failure) {
      this(name, failure, () -> null);
    }

    /** A check that never fails and only tells something about the agent's state. */
    public static Check note(String name, Supplier<String> note) {
      return new Check(name, () -> null, note);
    }
  }

  private final HttpServer server;

  private HealthEndpoints(HttpServer server) {
    this.server = server;
  }

  public static HealthEndpoints start(String bindAddress, int port, Map<String, Check> liveness,
      Map<String, Check> readiness, AgentMetrics metrics) throws IOException {
    HttpServer server = HttpServer.create(new InetSocketAddress(bindAddress, port), 16);
    server.createContext("/healthz", ex -> checks(ex, liveness));
    server.createContext("/livez", ex -> checks(ex, liveness));
    server.createContext("/readyz", ex -> checks(ex, readiness));
    server.createContext("/metrics", ex -> {
      if (!"GET".equals(ex.getRequestMethod()) && !"HEAD".equals(ex.getRequestMethod())) {
        send(ex, 405, "method not allowed\n", "text/plain; charset=utf-8");
        return;
      }
      send(ex, 200, metrics.scrape(), "text/plain; version=0.0.4; charset=utf-8");
    });
    server.createContext("/", ex -> send(ex, 404, "not found\n", "text/plain; charset=utf-8"));
    server.setExecutor(Executors.newSingleThreadExecutor(r -> {
      Thread t = new Thread(r, "http-endpoints");
      t.setDaemon(true);
      return t;
    }));
    server.start();
    return new HealthEndpoints(server);
  }

  /** The bound port (useful when started on port 0). */
  public int port() {
    return server.getAddress().getPort();
  }

  private static void checks(HttpExchange ex, Map<String, Check> checks) throws IOException {
    boolean verbose = ex.getRequestURI().getQuery() != null && ex.getRequestURI().getQuery().contains("verbose");
    Map<String, String> failures = new LinkedHashMap<>();
    StringBuilder body = new StringBuilder();
    for (Check c : checks.values()) {
      String failure = c.failure().get();
      if (failure == null) {
        String note = c.note().get();
        body.append("[+]").append(c.name()).append(" ok").append(note == null ? "" : ": " + note).append('\n');
      } else {
        failures.put(c.name(), failure);
        body.append("[-]").append(c.name()).append(" failed: ").append(failure).append('\n');
      }
    }
    String summary = failures.isEmpty() ? "ok\n" : "failed: " + String.join(", ", failures.keySet()) + "\n";
    send(ex, failures.isEmpty() ? 200 : 503, verbose || !failures.isEmpty() ? body + summary : summary,
        "text/plain; charset=utf-8");
  }

  private static void send(HttpExchange ex, int status, String body, String type) throws IOException {
    send(ex, status, body.getBytes(StandardCharsets.UTF_8), type);
  }

  private static void send(HttpExchange ex, int status, byte[] body, String type) throws IOException {
    ex.getResponseHeaders().set("Content-Type", type);
    ex.getResponseHeaders().set("X-Content-Type-Options", "nosniff");
    boolean head = "HEAD".equals(ex.getRequestMethod());
    ex.sendResponseHeaders(status, head ? -1 : body.length);
    if (!head) {
      try (OutputStream out = ex.getResponseBody()) {
        out.write(body);
      }
    }
    ex.close();
  }

  @Override
  public void close() {
    server.stop(0);
  }
}
