package io.nodeatlas.agent.bench;

import com.sun.net.httpserver.HttpExchange;
import com.sun.net.httpserver.HttpServer;
import com.sun.net.httpserver.HttpsConfigurator;
import com.sun.net.httpserver.HttpsServer;
import java.io.IOException;
import java.io.InputStream;
import java.io.OutputStream;
import java.net.InetAddress;
import java.net.InetSocketAddress;
import java.net.URI;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import javax.net.ssl.SSLContext;

/**
 * The API server as the agent sees it in the load benchmark: an HTTP or HTTPS front that forwards every
 * request to fabric8's CRUD mock, except that in {@link #instant} mode the GET of a benchmark
 * ResourceClaim is answered at once from the claim's JSON as the mock stored it. The agent runs the
 * same code either way (the same fabric8 client, HTTP request, JSON parsing and checks); only the mock's
 * own time is taken out, so the two modes separate the agent's cost from the mock server's.
 */
final class ApiFront implements AutoCloseable {

  private static final Set<String> HOP_BY_HOP = Set.of("connection", "content-length", "host", "transfer-encoding",
      "upgrade", "keep-alive", "expect", "http2-settings");

  private final HttpServer server;
  private final ExecutorService executor;
  private final HttpClient upstream = HttpClient.newBuilder().version(HttpClient.Version.HTTP_1_1).build();
  private final URI mock;
  private final Map<String, byte[]> claims;
  private volatile boolean instant;

  /** {@code claims}: request path ({@code /apis/resource.k8s.io/v1/namespaces/x/resourceclaims/y}) → JSON. */
  ApiFront(URI mock, Map<String, byte[]> claims) throws IOException {
    this(mock, claims, null);
  }

  /** As {@link #ApiFront(URI, Map)}, over TLS with {@code tls}'s certificate when it is not null. */
  ApiFront(URI mock, Map<String, byte[]> claims, SSLContext tls) throws IOException {
    this.mock = mock;
    this.claims = Map.copyOf(claims);
    // Without TCP_NODELAY the server's separate header and body writes meet the client's delayed ACK
    // and every answer waits ~40 ms (Nagle), which is the front's cost, not the agent's.
    System.setProperty("sun.net.httpserver.nodelay", "true");
    InetSocketAddress loopback = new InetSocketAddress(InetAddress.getLoopbackAddress(), 0);
    if (tls == null) {
      this.server = HttpServer.create(loopback, 256);
    } else {
      HttpsServer https = HttpsServer.create(loopback, 256);
      https.setHttpsConfigurator(new HttpsConfigurator(tls));
      this.server = https;
    }
    this.executor = Executors.newCachedThreadPool(r -> {
      Thread t = new Thread(r, "api-front");
      t.setDaemon(true);
      return t;
    });
    server.setExecutor(executor);
    server.createContext("/", this::handle);
    server.start();
  }

  String url() {
    return (server instanceof HttpsServer ? "https" : "http") + "://127.0.0.1:" + server.getAddress().getPort();
  }

  void instant(boolean on) {
    instant = on;
  }

  private void handle(HttpExchange ex) throws IOException {
    try (ex) {
      byte[] claim = instant && "GET".equals(ex.getRequestMethod()) && ex.getRequestURI().getRawQuery() == null
          ? claims.get(ex.getRequestURI().getRawPath()) : null;
      if (claim != null) {
        ex.getResponseHeaders().add("Content-Type", "application/json");
        ex.sendResponseHeaders(200, claim.length);
        ex.getResponseBody().write(claim);
        return;
      }
      forward(ex);
    }
  }

  private void forward(HttpExchange ex) throws IOException {
    byte[] body;
    try (InputStream in = ex.getRequestBody()) {
      body = in.readAllBytes();
    }
    HttpRequest.Builder req = HttpRequest.newBuilder(mock.resolve(ex.getRequestURI().toString()))
        .method(ex.getRequestMethod(), body.length == 0 ? HttpRequest.BodyPublishers.noBody()
            : HttpRequest.BodyPublishers.ofByteArray(body));
    ex.getRequestHeaders().forEach((name, values) -> {
      if (!HOP_BY_HOP.contains(name.toLowerCase(java.util.Locale.ROOT))) {
        values.forEach(v -> req.header(name, v));
      }
    });
    boolean watch = ex.getRequestURI().getRawQuery() != null && ex.getRequestURI().getRawQuery().contains("watch=");
    try {
      // A watch streams for as long as the agent keeps it: copy it through as it comes.
      HttpResponse<InputStream> resp = upstream.send(req.build(), HttpResponse.BodyHandlers.ofInputStream());
      resp.headers().map().forEach((name, values) -> {
        if (!HOP_BY_HOP.contains(name.toLowerCase(java.util.Locale.ROOT)) && !name.startsWith(":")) {
          ex.getResponseHeaders().put(name, List.copyOf(values));
        }
      });
      try (InputStream in = resp.body()) {
        if (watch) {
          ex.sendResponseHeaders(resp.statusCode(), 0);
          OutputStream out = ex.getResponseBody();
          byte[] buf = new byte[8192];
          for (int n; (n = in.read(buf)) > 0; ) {
            out.write(buf, 0, n);
            out.flush();
          }
        } else {
          byte[] bytes = in.readAllBytes();
          ex.sendResponseHeaders(resp.statusCode(), bytes.length == 0 ? -1 : bytes.length);
          ex.getResponseBody().write(bytes);
        }
      }
    } catch (InterruptedException e) {
      Thread.currentThread().interrupt();
      ex.sendResponseHeaders(503, -1);
    } catch (IOException e) {
      ex.sendResponseHeaders(502, -1);
    }
  }

  @Override
  public void close() {
    server.stop(0);
    executor.shutdownNow();
  }
}
