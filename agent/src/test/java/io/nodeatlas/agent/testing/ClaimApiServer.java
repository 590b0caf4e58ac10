package io.nodeatlas.agent.testing;

import com.sun.net.httpserver.HttpExchange;
import com.sun.net.httpserver.HttpServer;
import java.io.IOException;
import java.io.OutputStream;
import java.net.InetAddress;
import java.net.InetSocketAddress;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.List;
import java.util.Map;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.atomic.AtomicInteger;

/**
 * An API server of the test's own, for what the CRUD mock cannot do: per claim it answers at once,
 * never answers (the request is held until {@link #close()}), or answers a claim of any size, streamed
 * so that the test's own heap never holds it. For an agent process it also serves the node and an
 * empty, writable ResourceSlice collection. Requests are served concurrently, over HTTP or (with a
 * TLS context) HTTPS. It also serves as an HTTP proxy to itself: a request in absolute form (what a
 * client sends to a proxy) is answered as the same request sent directly, and counted.
 */
public final class ClaimApiServer implements AutoCloseable {

  /** How this server answers one claim's GET. */
  public sealed interface Behaviour permits Answer, Hang, Huge, Dribble, Raw {}

  /** Answers the claim, allocated to {@code devices} of pool node-a, padded with {@code padBytes} of annotation. */
  public record Answer(String uid, List<String> devices, int padBytes) implements Behaviour {}

  /** Accepts the request and never answers it. */
  public record Hang() implements Behaviour {}

  /** Answers a claim of {@code bytes} bytes (an annotation that size), streamed. */
  public record Huge(String uid, long bytes) implements Behaviour {}

  /** Answers 200 with {@code json} as it is. */
  public record Raw(String json) implements Behaviour {}

  /** Answers 200 and then sends the claim's body one byte every {@code everyMillis}, never ending it. */
  public record Dribble(long everyMillis) implements Behaviour {}

  private static final String CLAIMS = "/apis/resource.k8s.io/v1/namespaces/default/resourceclaims/";
  private final HttpServer server;
  private final ExecutorService executor = Executors.newCachedThreadPool(r -> {
    Thread t = new Thread(r, "claim-api");
    t.setDaemon(true);
    return t;
  });
  private final Map<String, Behaviour> claims = new ConcurrentHashMap<>();
  private final CountDownLatch closed = new CountDownLatch(1);
  private final AtomicInteger claimRequests = new AtomicInteger();
  private final java.util.concurrent.atomic.AtomicReference<String> claimAuthorization =
      new java.util.concurrent.atomic.AtomicReference<>();
  private final CountDownLatch sliceWritten = new CountDownLatch(1);
  private final AtomicInteger proxiedClaimRequests = new AtomicInteger();
  private final java.util.Set<Integer> claimClientPorts = ConcurrentHashMap.newKeySet();
  private final java.util.concurrent.atomic.AtomicReference<String> acceptedToken =
      new java.util.concurrent.atomic.AtomicReference<>();
  private final String scheme;
  private final java.util.concurrent.atomic.AtomicReference<String> acceptedClient =
      new java.util.concurrent.atomic.AtomicReference<>();
  private final AtomicInteger refusedClients = new AtomicInteger();

  public ClaimApiServer() throws IOException {
    this(null);
  }

  /** With {@code tls}, an HTTPS server presenting that context's certificate. */
  public ClaimApiServer(javax.net.ssl.SSLContext tls) throws IOException {
    this(tls, false);
  }

  /**
   * With {@code tls}, an HTTPS server presenting that context's certificate; with {@code needClientAuth},
   * it takes only clients whose certificate that context trusts, as the API server's {@code --client-ca-file}.
   */
  public ClaimApiServer(javax.net.ssl.SSLContext tls, boolean needClientAuth) throws IOException {
    InetSocketAddress loopback = new InetSocketAddress(InetAddress.getLoopbackAddress(), 0);
    if (tls == null) {
      server = HttpServer.create(loopback, 64);
      scheme = "http";
    } else {
      com.sun.net.httpserver.HttpsServer https = com.sun.net.httpserver.HttpsServer.create(loopback, 64);
      https.setHttpsConfigurator(new com.sun.net.httpserver.HttpsConfigurator(tls) {
        @Override
        public void configure(com.sun.net.httpserver.HttpsParameters params) {
          javax.net.ssl.SSLParameters p = tls.getDefaultSSLParameters();
          p.setNeedClientAuth(needClientAuth);
          params.setSSLParameters(p);
        }
      });
      server = https;
      scheme = "https";
    }
    server.setExecutor(executor);
    server.createContext("/", this::handle);
    server.start();
  }

  public void claim(String name, Behaviour b) {
    claims.put(name, b);
  }

  /** Claim GETs received so far (every try counts). */
  public int claimRequests() {
    return claimRequests.get();
  }

  /** The {@code Authorization} header of the last claim GET (null when it had none or none came). */
  public String claimAuthorization() {
    return claimAuthorization.get();
  }

  /** The connections claim GETs came on so far (told apart by the client's port). */
  public int claimConnections() {
    return claimClientPorts.size();
  }

  /** Claim GETs that came through a proxy (sent in absolute form) so far. */
  public int proxiedClaimRequests() {
    return proxiedClaimRequests.get();
  }

  /**
   * From now on a claim GET must carry {@code Bearer token}, or it is answered 401 Unauthorized (null:
   * any or none, the default), as the API server answers an expired token.
   */
  public void acceptOnlyToken(String token) {
    acceptedToken.set(token);
  }

  /**
   * From now on every request must come with a client certificate whose subject contains {@code subject}
   * (null: any), or it is answered 401 Unauthorized, as the API server answers an expired certificate.
   */
  public void acceptOnlyClient(String subject) {
    acceptedClient.set(subject);
  }

  /** Requests answered 401 because of their client certificate so far. */
  public int refusedClients() {
    return refusedClients.get();
  }

  /** Waits until an agent wrote its first ResourceSlice (it has discovered its devices); false on timeout. */
  public boolean awaitSlice(long seconds) throws InterruptedException {
    return sliceWritten.await(seconds, java.util.concurrent.TimeUnit.SECONDS);
  }

  public String url() {
    return scheme + "://127.0.0.1:" + server.getAddress().getPort();
  }

  /** A kubeconfig naming this server, written to {@code file}. */
  public Path kubeconfig(Path file) throws IOException {
    return kubeconfig(file, "test", null);
  }

  /**
   * A kubeconfig naming this server, whose user has the bearer token {@code token}; with {@code caPem},
   * the cluster's {@code certificate-authority-data} is that PEM text.
   */
  public Path kubeconfig(Path file, String token, String caPem) throws IOException {
    String ca = caPem == null ? ""
        : ", certificate-authority-data: " + java.util.Base64.getEncoder().encodeToString(caPem.getBytes(StandardCharsets.US_ASCII));
    return Files.writeString(file, """
        apiVersion: v1
        kind: Config
        clusters: [{name: test, cluster: {server: "%s"%s}}]
        users: [{name: test, user: {token: %s}}]
        contexts: [{name: test, context: {cluster: test, user: test}}]
        current-context: test
        """.formatted(url(), ca, token));
  }

  private void handle(HttpExchange ex) throws IOException {
    try (ex) {
      String path = ex.getRequestURI().getPath();
      String method = ex.getRequestMethod();
      String client = acceptedClient.get();
      if (client != null && !clientSubject(ex).contains(client)) {
        refusedClients.incrementAndGet();
        send(ex, 401, "{\"kind\":\"Status\",\"apiVersion\":\"v1\",\"status\":\"Failure\",\"message\":\"Unauthorized\","
            + "\"reason\":\"Unauthorized\",\"code\":401}");
        return;
      }
      if (method.equals("GET") && path.startsWith(CLAIMS)) {
        String authorization = ex.getRequestHeaders().getFirst("Authorization");
        claimAuthorization.set(authorization);
        claimRequests.incrementAndGet();
        claimClientPorts.add(ex.getRemoteAddress().getPort());
        if (ex.getRequestURI().isAbsolute()) {
          proxiedClaimRequests.incrementAndGet();
        }
        Behaviour b = claims.get(path.substring(CLAIMS.length()));
        String token = acceptedToken.get();
        if (token != null && !("Bearer " + token).equals(authorization)) {
          send(ex, 401, "{\"kind\":\"Status\",\"apiVersion\":\"v1\",\"status\":\"Failure\",\"message\":\"Unauthorized\","
              + "\"reason\":\"Unauthorized\",\"code\":401}");
        } else if (b == null) {
          send(ex, 404, "{\"kind\":\"Status\",\"apiVersion\":\"v1\",\"status\":\"Failure\",\"code\":404}");
        } else if (b instanceof Hang) {
          try {
            closed.await();
          } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
          }
        } else if (b instanceof Answer a) {
          send(ex, 200, claimJson(path.substring(CLAIMS.length()), a.uid(), a.devices(), a.padBytes()));
        } else if (b instanceof Raw r) {
          send(ex, 200, r.json());
        } else if (b instanceof Dribble d) {
          dribble(ex, d);
        } else if (b instanceof Huge h) {
          streamHuge(ex, path.substring(CLAIMS.length()), h);
        }
      } else if (method.equals("GET") && path.equals("/api/v1/nodes/node-a")) {
        send(ex, 200, "{\"apiVersion\":\"v1\",\"kind\":\"Node\",\"metadata\":{\"name\":\"node-a\",\"uid\":\"uid-node-a\"}}");
      } else if (method.equals("GET") && path.equals("/apis/resource.k8s.io/v1/resourceslices")) {
        String q = ex.getRequestURI().getQuery();
        if (q != null && q.contains("watch")) {
          // A watch that ends at once without events (the agent watches again later).
          ex.getResponseHeaders().set("Content-Type", "application/json");
          ex.sendResponseHeaders(200, -1);
        } else {
          send(ex, 200, "{\"apiVersion\":\"resource.k8s.io/v1\",\"kind\":\"ResourceSliceList\",\"metadata\":"
              + "{\"resourceVersion\":\"1\"},\"items\":[]}");
        }
      } else if ((method.equals("POST") || method.equals("PUT")) && path.startsWith("/apis/resource.k8s.io/v1/resourceslices")) {
        String body = new String(ex.getRequestBody().readAllBytes(), StandardCharsets.UTF_8);
        sliceWritten.countDown();
        send(ex, method.equals("POST") ? 201 : 200, body.replaceFirst("\"metadata\"\\s*:\\s*\\{",
            "\"metadata\":{\"resourceVersion\":\"2\",\"uid\":\"slice-uid\","));
      } else {
        send(ex, 404, "{\"kind\":\"Status\",\"apiVersion\":\"v1\",\"status\":\"Failure\",\"code\":404}");
      }
    } catch (IOException e) {
      // The agent gave up on the answer (a refused size, a cancelled call): nothing to do.
    }
  }

  /** The subject of the client certificate the request came with; empty when none. */
  private static String clientSubject(HttpExchange ex) {
    if (ex instanceof com.sun.net.httpserver.HttpsExchange https) {
      try {
        java.security.cert.Certificate[] peer = https.getSSLSession().getPeerCertificates();
        return ((java.security.cert.X509Certificate) peer[0]).getSubjectX500Principal().getName();
      } catch (javax.net.ssl.SSLPeerUnverifiedException e) {
        return "";
      }
    }
    return "";
  }

  /** An allocated claim as the API server answers it (resource.k8s.io/v1 ResourceClaim). */
  public static String claimJson(String name, String uid, List<String> devices, int padBytes) {
    StringBuilder results = new StringBuilder();
    for (String d : devices) {
      if (results.length() > 0) {
        results.append(',');
      }
      results.append("{\"request\":\"gpus\",\"driver\":\"nodeatlas.io\",\"pool\":\"node-a\",\"device\":\"").append(d)
          .append("\"}");
    }
    return "{\"apiVersion\":\"resource.k8s.io/v1\",\"kind\":\"ResourceClaim\",\"metadata\":{\"name\":\"" + name
        + "\",\"namespace\":\"default\",\"uid\":\"" + uid + "\",\"annotations\":{\"pad\":\"" + "x".repeat(padBytes)
        + "\"}},\"spec\":{},\"status\":{\"allocation\":{\"devices\":{\"results\":[" + results + "]}}}}";
  }

  private void dribble(HttpExchange ex, Dribble d) throws IOException {
    ex.getResponseHeaders().set("Content-Type", "application/json");
    ex.sendResponseHeaders(200, 0);
    OutputStream out = ex.getResponseBody();
    try {
      while (!closed.await(d.everyMillis(), java.util.concurrent.TimeUnit.MILLISECONDS)) {
        out.write(' ');
        out.flush();
      }
    } catch (InterruptedException e) {
      Thread.currentThread().interrupt();
    }
  }

  private static void streamHuge(HttpExchange ex, String name, Huge h) throws IOException {
    ex.getResponseHeaders().set("Content-Type", "application/json");
    ex.sendResponseHeaders(200, 0);
    OutputStream out = ex.getResponseBody();
    out.write(("{\"apiVersion\":\"resource.k8s.io/v1\",\"kind\":\"ResourceClaim\",\"metadata\":{\"name\":\"" + name
        + "\",\"namespace\":\"default\",\"uid\":\"" + h.uid() + "\",\"annotations\":{\"pad\":\"")
        .getBytes(StandardCharsets.UTF_8));
    byte[] chunk = "x".repeat(64 * 1024).getBytes(StandardCharsets.US_ASCII);
    for (long sent = 0; sent < h.bytes(); sent += chunk.length) {
      out.write(chunk);
    }
    out.write("\"}},\"spec\":{},\"status\":{\"allocation\":{\"devices\":{\"results\":[]}}}}".getBytes(StandardCharsets.UTF_8));
  }

  private static void send(HttpExchange ex, int code, String body) throws IOException {
    byte[] bytes = body.getBytes(StandardCharsets.UTF_8);
    ex.getResponseHeaders().set("Content-Type", "application/json");
    ex.sendResponseHeaders(code, bytes.length);
    ex.getResponseBody().write(bytes);
  }

  @Override
  public void close() {
    closed.countDown();
    server.stop(0);
    executor.shutdownNow();
  }
}
