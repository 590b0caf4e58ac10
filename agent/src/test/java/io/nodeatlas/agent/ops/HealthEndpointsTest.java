package io.nodeatlas.agent.ops;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import java.io.InputStream;
import java.net.BindException;
import java.net.Socket;
import java.net.URI;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.nio.charset.StandardCharsets;
import java.time.Duration;
import java.util.LinkedHashMap;
import java.util.Map;
import org.junit.jupiter.api.Test;

/** The health port over real TCP sockets and the JDK's HTTP client. */
class HealthEndpointsTest {

  /** Generous: only a hang should reach it. */
  static final Duration WAIT = Duration.ofSeconds(60);

  final HttpClient http = HttpClient.newBuilder().version(HttpClient.Version.HTTP_1_1).connectTimeout(WAIT).build();

  static HealthEndpoints start(Duration readDeadline) throws Exception {
    Map<String, HealthEndpoints.Check> live = new LinkedHashMap<>();
    live.put("loop", new HealthEndpoints.Check("loop", () -> null));
    Map<String, HealthEndpoints.Check> ready = new LinkedHashMap<>(live);
    ready.put("discovered", new HealthEndpoints.Check("discovered", () -> "no discovery yet"));
    return HealthEndpoints.start("127.0.0.1", 0, live, ready, new AgentMetrics("test"), readDeadline);
  }

  HttpResponse<String> get(HealthEndpoints h, String target) throws Exception {
    return http.send(HttpRequest.newBuilder(URI.create("http://127.0.0.1:" + h.port() + target)).timeout(WAIT).build(),
        HttpResponse.BodyHandlers.ofString());
  }

  @Test
  void idleAndHalfSentConnectionsDoNotStallTheProbes() throws Exception {
    // A deadline far beyond the test: the probes below can only be answered by serving beside the
    // connections that hold on, never by waiting for them to time out.
    try (HealthEndpoints h = start(Duration.ofMinutes(10));
         Socket silent = new Socket("127.0.0.1", h.port());
         Socket halfSent = new Socket("127.0.0.1", h.port())) {
      halfSent.getOutputStream().write("GET /healthz HTTP/1.1\r\nHost: x\r\n".getBytes(StandardCharsets.US_ASCII));
      halfSent.getOutputStream().flush();
      for (int i = 0; i < 20; i++) {
        HttpResponse<String> r = get(h, "/healthz");
        assertThat(r.statusCode()).isEqualTo(200);
        assertThat(r.body()).isEqualTo("ok\n");
      }
      assertThat(get(h, "/readyz").statusCode()).isEqualTo(503);
      assertThat(get(h, "/metrics").body()).contains("nodeatlas_build_info");
      // Both are still open: the answers did not wait for them to be dropped.
      assertStillOpen(silent);
      assertStillOpen(halfSent);
    }
  }

  @Test
  void aConnectionThatNeverFinishesItsRequestIsClosedAtTheDeadline() throws Exception {
    try (HealthEndpoints h = start(Duration.ofMillis(300));
         Socket halfSent = new Socket("127.0.0.1", h.port())) {
      halfSent.getOutputStream().write("GET /healthz HTTP/1.1\r\n".getBytes(StandardCharsets.US_ASCII));
      halfSent.setSoTimeout((int) WAIT.toMillis());
      // The event waited on is the server's close (end of stream), bounded generously.
      assertThat(halfSent.getInputStream().read()).isEqualTo(-1);
      assertThat(get(h, "/healthz").statusCode()).isEqualTo(200);
    }
  }

  @Test
  void onlyTheExactPathsAreEndpoints() throws Exception {
    try (HealthEndpoints h = start(Duration.ofSeconds(30))) {
      assertThat(get(h, "/healthzzz").statusCode()).isEqualTo(404);
      assertThat(get(h, "/healthz/x").statusCode()).isEqualTo(404);
      assertThat(get(h, "/metricsx").statusCode()).isEqualTo(404);
      assertThat(get(h, "/").statusCode()).isEqualTo(404);
      HttpResponse<String> verbose = get(h, "/healthz?verbose");
      assertThat(verbose.statusCode()).isEqualTo(200);
      assertThat(verbose.body()).isEqualTo("[+]loop ok\nok\n");
      assertThat(get(h, "/livez").statusCode()).isEqualTo(200);
      HttpResponse<String> ready = get(h, "/readyz?verbose=1");
      assertThat(ready.statusCode()).isEqualTo(503);
      assertThat(ready.body()).isEqualTo("[+]loop ok\n[-]discovered failed: no discovery yet\nfailed: discovered\n");
      HttpResponse<String> post = http.send(HttpRequest.newBuilder(URI.create("http://127.0.0.1:" + h.port() + "/healthz"))
          .timeout(WAIT).POST(HttpRequest.BodyPublishers.noBody()).build(), HttpResponse.BodyHandlers.ofString());
      assertThat(post.statusCode()).isEqualTo(405);
    }
  }

  @Test
  void bindsTheAddressItIsGivenAndNamesATakenPort() throws Exception {
    try (HealthEndpoints h = start(Duration.ofSeconds(30))) {
      assertThat(h.address().getAddress().isLoopbackAddress()).isTrue();
      assertThatThrownBy(() -> HealthEndpoints.start("127.0.0.1", h.port(), Map.of(), Map.of(), new AgentMetrics("t")))
          .isInstanceOf(BindException.class);
    }
  }

  static void assertStillOpen(Socket s) throws Exception {
    s.setSoTimeout(1);
    InputStream in = s.getInputStream();
    assertThatThrownBy(in::read).isInstanceOf(java.net.SocketTimeoutException.class);
  }
}
