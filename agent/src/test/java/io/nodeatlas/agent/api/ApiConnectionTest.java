package io.nodeatlas.agent.api;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import com.sun.net.httpserver.HttpExchange;
import com.sun.net.httpserver.HttpHandler;
import com.sun.net.httpserver.HttpServer;
import com.sun.net.httpserver.HttpsConfigurator;
import com.sun.net.httpserver.HttpsExchange;
import com.sun.net.httpserver.HttpsParameters;
import com.sun.net.httpserver.HttpsServer;
import io.nodeatlas.agent.kubeconfig.ClientCertificate;
import io.nodeatlas.agent.kubeconfig.TokenFile;
import io.nodeatlas.agent.testing.TestPki;
import io.nodeatlas.agent.testing.TestPki.KeyKind;
import java.io.OutputStream;
import java.net.InetAddress;
import java.net.InetSocketAddress;
import java.net.ServerSocket;
import java.net.URI;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.StandardCopyOption;
import java.time.Duration;
import javax.net.ssl.SSLContext;
import javax.net.ssl.SSLParameters;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/** The agent's own connection to the API server: TLS with the kubeconfig's material, tokens, bounds, errors. */
public class ApiConnectionTest {

  @TempDir
  Path dir;

  private static final ApiConnection.Limits SMALL = new ApiConnection.Limits(Duration.ofSeconds(10), Duration.ofSeconds(20), 1024);

  /** An HTTP(S) server of the test's own on loopback, answering every request with {@code handler}. */
  public static HttpServer server(SSLContext tls, HttpHandler handler) throws Exception {
    return server(tls, true, handler);
  }

  /**
   * As {@link #server(SSLContext, HttpHandler)}; with TLS, {@code needClientAuth} takes only clients with a
   * certificate of the CA, else a client without one is taken too.
   */
  public static HttpServer server(SSLContext tls, boolean needClientAuth, HttpHandler handler) throws Exception {
    InetSocketAddress loopback = new InetSocketAddress(InetAddress.getLoopbackAddress(), 0);
    HttpServer s;
    if (tls == null) {
      s = HttpServer.create(loopback, 16);
    } else {
      HttpsServer https = HttpsServer.create(loopback, 16);
      https.setHttpsConfigurator(new HttpsConfigurator(tls) {
        @Override
        public void configure(HttpsParameters params) {
          SSLParameters p = tls.getDefaultSSLParameters();
          if (needClientAuth) {
            p.setNeedClientAuth(true);
          } else {
            p.setWantClientAuth(true); // asks, and takes a client without one too
          }
          params.setSSLParameters(p);
        }
      });
      s = https;
    }
    s.setExecutor(java.util.concurrent.Executors.newCachedThreadPool());
    s.createContext("/", ex -> {
      try (ex) {
        handler.handle(ex);
      }
    });
    s.start();
    return s;
  }

  public static URI url(HttpServer s) {
    return URI.create((s instanceof HttpsServer ? "https" : "http") + "://127.0.0.1:" + s.getAddress().getPort());
  }

  public static void send(HttpExchange ex, int code, String body) throws java.io.IOException {
    byte[] b = body.getBytes(StandardCharsets.UTF_8);
    ex.getResponseHeaders().set("Content-Type", "application/json");
    ex.sendResponseHeaders(code, b.length == 0 ? -1 : b.length);
    if (b.length > 0) {
      try (OutputStream out = ex.getResponseBody()) {
        out.write(b);
      }
    }
  }

  @Test
  void presentsTheKubeconfigsClientCertificateAndTheRotatedOneAfterARotation() throws Exception {
    TestPki pki = new TestPki(dir.resolve("pki"));
    TestPki.Client first = pki.client("node-1", KeyKind.EC_SEC1, "system:node:node-a-1");
    TestPki.Client second = pki.client("node-2", KeyKind.RSA_PKCS1, "system:node:node-a-2");
    Path cert = Files.copy(first.cert(), dir.resolve("client.crt"));
    Path key = Files.copy(first.key(), dir.resolve("client.key"));
    HttpServer s = server(pki.serverContext(), ex -> send(ex, 200,
        "\"" + ((HttpsExchange) ex).getSSLSession().getPeerPrincipal().getName() + "\""));
    try {
      ClientCertificate client = ClientCertificate.load(new ClientCertificate.Source("client-certificate " + cert, cert, null),
          new ClientCertificate.Source("client-key " + key, key, null));
      ApiConnection api = new ApiConnection(url(s), ApiConnection.trusting(pki.caPem().getBytes(StandardCharsets.US_ASCII)),
          client, null, SMALL);
      assertThat(new String(api.call("GET", "/api/v1/nodes/node-a", null), StandardCharsets.UTF_8))
          .contains("CN=system:node:node-a-1");

      // Rotated as a kubelet or cert-manager does: new files renamed over the old ones.
      Files.move(Files.copy(second.key(), dir.resolve("client.key.new")), key, StandardCopyOption.ATOMIC_MOVE,
          StandardCopyOption.REPLACE_EXISTING);
      Files.move(Files.copy(second.cert(), dir.resolve("client.crt.new")), cert, StandardCopyOption.ATOMIC_MOVE,
          StandardCopyOption.REPLACE_EXISTING);
      assertThat(new String(api.call("GET", "/api/v1/nodes/node-a", null), StandardCharsets.UTF_8))
          .as("the next request, not only the next connection, presents the new certificate")
          .contains("CN=system:node:node-a-2");
    } finally {
      s.stop(0);
    }
  }

  @Test
  void refusesAServerItsCaDidNotSign() throws Exception {
    TestPki pki = new TestPki(dir.resolve("pki"));
    TestPki other = new TestPki(dir.resolve("other"));
    TestPki.Client c = pki.client("node", KeyKind.EC_SEC1, "system:node:node-a");
    HttpServer s = server(pki.serverContext(), ex -> send(ex, 200, "{}"));
    try {
      ApiConnection api = new ApiConnection(url(s), ApiConnection.trusting(other.caPem().getBytes(StandardCharsets.US_ASCII)),
          ClientCertificate.load(new ClientCertificate.Source("cert", c.cert(), null), new ClientCertificate.Source("key", c.key(), null)),
          null, SMALL);
      assertThatThrownBy(() -> api.call("GET", "/api/v1/nodes/node-a", null)).isInstanceOf(ApiException.class)
          .hasMessageStartingWith("no answer from " + url(s) + "/: TLS failed");
    } finally {
      s.stop(0);
    }
  }

  @Test
  void sendsTheTokenFilesTokenAndTheNewOneOnceTheFileIsReplaced() throws Exception {
    java.util.List<String> seen = new java.util.concurrent.CopyOnWriteArrayList<>();
    HttpServer s = server(null, ex -> {
      String auth = ex.getRequestHeaders().getFirst("Authorization");
      seen.add(auth);
      if ("Bearer old".equals(auth)) {
        send(ex, 401, "{\"kind\":\"Status\",\"status\":\"Failure\",\"message\":\"Unauthorized\",\"reason\":\"Unauthorized\",\"code\":401}");
      } else {
        send(ex, 200, "{}");
      }
    });
    try {
      Path token = Files.writeString(dir.resolve("token"), "old\n");
      TokenFile file = TokenFile.open(token, null);
      ApiConnection api = new ApiConnection(url(s), null, null, file::getToken, SMALL);
      assertThatThrownBy(() -> api.call("GET", "/api/v1/nodes/node-a", null)).isInstanceOf(ApiException.class)
          .hasMessage("HTTP 401 Unauthorized: Unauthorized")
          .satisfies(e -> assertThat(((ApiException) e).code()).isEqualTo(401));

      // Rotated as a projected service account token is: a new file renamed over the old.
      Path next = Files.writeString(dir.resolve("token.new"), "new-token\n");
      Files.move(next, token, StandardCopyOption.ATOMIC_MOVE, StandardCopyOption.REPLACE_EXISTING);
      assertThat(api.call("GET", "/api/v1/nodes/node-a", null)).asString().isEqualTo("{}");
      assertThat(seen).containsExactly("Bearer old", "Bearer new-token");
    } finally {
      s.stop(0);
    }
  }

  @Test
  void aRefusedWriteIsSentOnceMoreWithTheRotatedTokenAndItsBodyArrivesOnce() throws Exception {
    java.util.List<String> seen = new java.util.concurrent.CopyOnWriteArrayList<>();
    HttpServer s = server(null, ex -> {
      String auth = ex.getRequestHeaders().getFirst("Authorization");
      String body = new String(ex.getRequestBody().readAllBytes(), StandardCharsets.UTF_8);
      seen.add(ex.getRequestMethod() + " " + auth + " " + body);
      if ("Bearer old".equals(auth)) {
        send(ex, 401, "{\"kind\":\"Status\",\"status\":\"Failure\",\"message\":\"Unauthorized\",\"reason\":\"Unauthorized\",\"code\":401}");
      } else {
        send(ex, 201, body);
      }
    });
    try {
      byte[] slice = "{\"kind\":\"ResourceSlice\"}".getBytes(StandardCharsets.UTF_8);
      ApiConnection stale = new ApiConnection(url(s), null, null, () -> "old", SMALL);
      assertThatThrownBy(() -> stale.call("POST", "/apis/resource.k8s.io/v1/resourceslices", slice))
          .isInstanceOf(ApiException.class).hasMessageStartingWith("HTTP 401")
          .satisfies(e -> assertThat(((ApiException) e).code()).isEqualTo(401));
      // The token is rotated between the request and its refusal: asked again after the 401, it is new.
      java.util.Iterator<String> tokens = java.util.List.of("old", "new-token").iterator();
      ApiConnection api = new ApiConnection(url(s), null, null, () -> tokens.hasNext() ? tokens.next() : "new-token", SMALL);
      assertThat(api.call("POST", "/apis/resource.k8s.io/v1/resourceslices", slice)).isEqualTo(slice);
      assertThat(api.call("PUT", "/apis/resource.k8s.io/v1/resourceslices/a", slice)).isEqualTo(slice);
      assertThat(seen).containsExactly("POST Bearer old {\"kind\":\"ResourceSlice\"}",
          "POST Bearer old {\"kind\":\"ResourceSlice\"}", "POST Bearer new-token {\"kind\":\"ResourceSlice\"}",
          "PUT Bearer new-token {\"kind\":\"ResourceSlice\"}");
    } finally {
      s.stop(0);
    }
  }

  @Test
  void callsOverTlsShareOneKeptAliveConnection() throws Exception {
    TestPki pki = new TestPki(dir.resolve("pki"));
    java.util.Set<Integer> ports = java.util.concurrent.ConcurrentHashMap.newKeySet();
    HttpServer s = server(pki.serverContext(), false, ex -> {
      ports.add(ex.getRemoteAddress().getPort());
      ex.getRequestBody().readAllBytes();
      send(ex, ex.getRequestMethod().equals("DELETE") ? 404 : 200, "{\"kind\":\"ResourceSliceList\"}");
    });
    try {
      ApiConnection api = new ApiConnection(url(s), ApiConnection.trusting(pki.caPem().getBytes(StandardCharsets.US_ASCII)),
          null, () -> "test", SMALL);
      for (int i = 0; i < 3; i++) {
        api.call("GET", "/apis/resource.k8s.io/v1/resourceslices", null);
        api.call("PUT", "/apis/resource.k8s.io/v1/resourceslices/a", "{}".getBytes(StandardCharsets.UTF_8));
        assertThat(api.exchange("DELETE", "/apis/resource.k8s.io/v1/resourceslices/a", null, null).code()).isEqualTo(404);
      }
      assertThat(ports).as("one TLS connection, kept alive between calls").hasSize(1);
    } finally {
      s.stop(0);
    }
  }

  @Test
  void refusesAnAnswerLargerThanItsBound() throws Exception {
    HttpServer s = server(null, ex -> send(ex, 200, "\"" + "x".repeat(1023) + "\""));
    try {
      ApiConnection api = new ApiConnection(url(s), null, null, null, SMALL);
      assertThatThrownBy(() -> api.call("GET", "/apis/resource.k8s.io/v1/resourceslices", null))
          .isInstanceOf(ApiException.class)
          .hasMessage("the answer to GET /apis/resource.k8s.io/v1/resourceslices is larger than 1024 bytes; refused");
    } finally {
      s.stop(0);
    }
  }

  @Test
  void failuresReadAsApiErrorsWrites() throws Exception {
    HttpServer s = server(null, ex -> send(ex, 409, "{\"kind\":\"Status\",\"apiVersion\":\"v1\",\"status\":\"Failure\","
        + "\"message\":\"resourceslices.resource.k8s.io \\\"node-a-x\\\" already exists\",\"reason\":\"AlreadyExists\",\"code\":409}"));
    try {
      ApiConnection api = new ApiConnection(url(s), null, null, null, SMALL);
      assertThatThrownBy(() -> api.call("POST", "/apis/resource.k8s.io/v1/resourceslices", "{}".getBytes(StandardCharsets.UTF_8)))
          .isInstanceOf(ApiException.class)
          .hasMessage("HTTP 409 AlreadyExists: resourceslices.resource.k8s.io \"node-a-x\" already exists");
    } finally {
      s.stop(0);
    }
    int port;
    try (ServerSocket free = new ServerSocket(0, 1, InetAddress.getLoopbackAddress())) {
      port = free.getLocalPort();
    }
    ApiConnection gone = new ApiConnection(URI.create("http://127.0.0.1:" + port), null, null, null, SMALL);
    assertThatThrownBy(() -> gone.call("GET", "/api/v1/nodes/node-a", null)).isInstanceOf(ApiException.class)
        .hasMessage("no answer from http://127.0.0.1:" + port + "/: connection refused");
  }

  @Test
  void aServerThatNeverAnswersCostsTheRequestTimeOnly() throws Exception {
    java.util.concurrent.CountDownLatch release = new java.util.concurrent.CountDownLatch(1);
    HttpServer s = server(null, ex -> {
      try {
        release.await();
      } catch (InterruptedException e) {
        Thread.currentThread().interrupt();
      }
    });
    try {
      ApiConnection api = new ApiConnection(url(s), null, null, null,
          new ApiConnection.Limits(Duration.ofSeconds(5), Duration.ofMillis(500), 1024));
      long t0 = System.nanoTime();
      assertThatThrownBy(() -> api.call("GET", "/api/v1/nodes/node-a", null)).isInstanceOf(ApiException.class)
          .hasMessageContaining("timed out");
      assertThat(Duration.ofNanos(System.nanoTime() - t0)).isLessThan(Duration.ofSeconds(30));
    } finally {
      release.countDown();
      s.stop(0);
    }
  }
}
