package io.nodeatlas.agent.testing;

import com.sun.net.httpserver.HttpExchange;
import com.sun.net.httpserver.HttpServer;
import io.fabric8.kubernetes.client.ConfigBuilder;
import io.fabric8.kubernetes.client.KubernetesClient;
import io.fabric8.kubernetes.client.KubernetesClientBuilder;
import io.fabric8.kubernetes.client.jdkhttp.JdkHttpClientFactory;
import java.io.IOException;
import java.io.InputStream;
import java.net.InetAddress;
import java.net.InetSocketAddress;
import java.net.URI;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.util.List;
import java.util.Set;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.atomic.AtomicInteger;

/**
 * An API server that hangs watches: a plain HTTP front of fabric8's CRUD mock that forwards every
 * request, except that a watch ({@code ?watch=true}) is accepted and never answered, not even with
 * headers, the way a stuck API server or a half-dead proxy behaves. The CRUD mock itself cannot hang.
 */
public final class HangingWatchFront implements AutoCloseable {

  private static final Set<String> HOP_BY_HOP = Set.of("connection", "content-length", "host", "transfer-encoding",
      "upgrade", "keep-alive", "expect", "http2-settings");

  private final HttpServer server;
  private final ExecutorService executor = Executors.newCachedThreadPool(r -> {
    Thread t = new Thread(r, "hanging-front");
    t.setDaemon(true);
    return t;
  });
  private final HttpClient upstream = HttpClient.newBuilder().version(HttpClient.Version.HTTP_1_1).build();
  private final URI mock;
  private final CountDownLatch closed = new CountDownLatch(1);
  private final AtomicInteger watches = new AtomicInteger();

  public HangingWatchFront(KubernetesClient mockClient) throws IOException {
    this.mock = URI.create(mockClient.getConfiguration().getMasterUrl());
    server = HttpServer.create(new InetSocketAddress(InetAddress.getLoopbackAddress(), 0), 64);
    server.setExecutor(executor);
    server.createContext("/", this::handle);
    server.start();
  }

  /** A client of this front, configured as the agent configures its own. */
  public KubernetesClient client() {
    return new KubernetesClientBuilder().withConfig(new ConfigBuilder()
        .withMasterUrl("http://127.0.0.1:" + server.getAddress().getPort())
        .withConnectionTimeout(5_000).withRequestTimeout(10_000).withRequestRetryBackoffLimit(1).build())
        .withHttpClientFactory(new JdkHttpClientFactory()).build();
  }

  /** Watch requests received (and left hanging) so far. */
  public int watches() {
    return watches.get();
  }

  private void handle(HttpExchange ex) throws IOException {
    String query = ex.getRequestURI().getRawQuery();
    if (query != null && query.contains("watch=true")) {
      watches.incrementAndGet();
      try {
        closed.await(); // accepted, never answered
      } catch (InterruptedException e) {
        Thread.currentThread().interrupt();
      }
      ex.close();
      return;
    }
    try (ex) {
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
      try {
        HttpResponse<byte[]> resp = upstream.send(req.build(), HttpResponse.BodyHandlers.ofByteArray());
        resp.headers().map().forEach((name, values) -> {
          if (!HOP_BY_HOP.contains(name.toLowerCase(java.util.Locale.ROOT)) && !name.startsWith(":")) {
            ex.getResponseHeaders().put(name, List.copyOf(values));
          }
        });
        byte[] bytes = resp.body();
        ex.sendResponseHeaders(resp.statusCode(), bytes.length == 0 ? -1 : bytes.length);
        ex.getResponseBody().write(bytes);
      } catch (InterruptedException e) {
        Thread.currentThread().interrupt();
        ex.sendResponseHeaders(503, -1);
      } catch (IOException e) {
        ex.sendResponseHeaders(502, -1);
      }
    }
  }

  @Override
  public void close() {
    closed.countDown();
    server.stop(0);
    executor.shutdownNow();
  }
}
