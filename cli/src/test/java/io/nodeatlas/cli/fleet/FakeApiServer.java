package io.nodeatlas.cli.fleet;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import com.fasterxml.jackson.databind.node.ArrayNode;
import com.fasterxml.jackson.databind.node.ObjectNode;
import com.sun.net.httpserver.HttpExchange;
import com.sun.net.httpserver.HttpServer;
import java.io.IOException;
import java.io.OutputStream;
import java.net.InetAddress;
import java.net.InetSocketAddress;
import java.net.URLDecoder;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.function.Function;

/**
 * A stand-in for the API server's list calls (the one part of a cluster that cannot run here): collections
 * served in pages of at most {@link #pageSize} items whatever {@code limit} asks (the API allows fewer),
 * with {@code continue} tokens, every request recorded; or a handler of the test's own for a path.
 */
final class FakeApiServer implements AutoCloseable {

  static final ObjectMapper JSON = new ObjectMapper();

  final Map<String, List<JsonNode>> collections = new ConcurrentHashMap<>();
  final Map<String, Function<HttpExchange, byte[]>> special = new ConcurrentHashMap<>();
  final List<String> requests = new CopyOnWriteArrayList<>();
  volatile int pageSize = 2;
  private final HttpServer server;

  FakeApiServer() throws IOException {
    server = HttpServer.create(new InetSocketAddress(InetAddress.getLoopbackAddress(), 0), 0);
    server.createContext("/", this::handle);
    server.start();
  }

  String url() {
    return "http://127.0.0.1:" + server.getAddress().getPort();
  }

  /** A kubeconfig for this server, without credentials. */
  Path kubeconfig(Path dir) throws IOException {
    return Files.writeString(dir.resolve("kubeconfig"), """
        apiVersion: v1
        kind: Config
        clusters: [{name: fake, cluster: {server: "%s"}}]
        users: [{name: reader, user: {}}]
        contexts: [{name: fake, context: {cluster: fake, user: reader}}]
        current-context: fake
        """.formatted(url()));
  }

  private void handle(HttpExchange ex) throws IOException {
    String path = ex.getRequestURI().getPath();
    requests.add(ex.getRequestURI().toString());
    Map<String, String> query = new HashMap<>();
    String raw = ex.getRequestURI().getRawQuery();
    if (raw != null) {
      for (String kv : raw.split("&")) {
        int eq = kv.indexOf('=');
        query.put(kv.substring(0, eq), URLDecoder.decode(kv.substring(eq + 1), StandardCharsets.UTF_8));
      }
    }
    byte[] body;
    int code = 200;
    if (special.containsKey(path)) {
      body = special.get(path).apply(ex);
      if (body == null) {
        return;
      }
    } else if (collections.containsKey(path)) {
      List<JsonNode> all = collections.get(path);
      int from = query.containsKey("continue") ? Integer.parseInt(query.get("continue").substring("at-".length())) : 0;
      int limit = Math.min(pageSize, Integer.parseInt(query.getOrDefault("limit", "1000000")));
      int to = Math.min(all.size(), from + limit);
      ObjectNode page = JSON.createObjectNode().put("apiVersion", "v1").put("kind", "List");
      ObjectNode meta = page.putObject("metadata").put("resourceVersion", "42");
      if (to < all.size()) {
        meta.put("continue", "at-" + to);
      }
      ArrayNode items = page.putArray("items");
      all.subList(from, to).forEach(items::add);
      body = JSON.writeValueAsBytes(page);
    } else {
      code = 404;
      body = ("{\"kind\":\"Status\",\"apiVersion\":\"v1\",\"status\":\"Failure\",\"reason\":\"NotFound\",\"message\":\"the "
          + "server could not find the requested resource\",\"code\":404}").getBytes(StandardCharsets.UTF_8);
    }
    ex.getResponseHeaders().add("Content-Type", "application/json");
    ex.sendResponseHeaders(code, body.length);
    try (OutputStream out = ex.getResponseBody()) {
      out.write(body);
    }
  }

  /** The recorded requests for {@code path}. */
  List<String> requestsFor(String path) {
    List<String> out = new ArrayList<>();
    requests.stream().filter(r -> r.startsWith(path + "?") || r.equals(path)).forEach(out::add);
    return out;
  }

  @Override
  public void close() {
    server.stop(0);
  }
}
