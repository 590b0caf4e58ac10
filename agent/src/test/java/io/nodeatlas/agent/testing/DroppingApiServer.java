package io.nodeatlas.agent.testing;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import com.fasterxml.jackson.databind.node.ObjectNode;
import com.sun.net.httpserver.HttpExchange;
import com.sun.net.httpserver.HttpServer;
import io.fabric8.kubernetes.client.ConfigBuilder;
import io.fabric8.kubernetes.client.KubernetesClient;
import io.fabric8.kubernetes.client.KubernetesClientBuilder;
import io.fabric8.kubernetes.client.jdkhttp.JdkHttpClientFactory;
import java.io.IOException;
import java.net.InetSocketAddress;
import java.util.Map;
import java.util.TreeMap;
import java.util.concurrent.atomic.AtomicLong;

/**
 * Just enough of an API server for ResourceSlices, behaving as one whose {@code DRAConsumableCapacity}
 * feature gate is off: it stores slices without {@code allowMultipleAllocations} and without the
 * capacities' {@code requestPolicy} (fields of a disabled gate are dropped on write, without an error)
 * and answers every write with what it stored. One Node ({@code node-a}) exists. Anything else is 404.
 */
public final class DroppingApiServer implements AutoCloseable {

  private static final String SLICES = "/apis/resource.k8s.io/v1/resourceslices";
  private final ObjectMapper json = new ObjectMapper();
  private final Map<String, ObjectNode> slices = new TreeMap<>();
  private final AtomicLong version = new AtomicLong(1);
  private final HttpServer server;

  public DroppingApiServer() throws IOException {
    server = HttpServer.create(new InetSocketAddress("127.0.0.1", 0), 16);
    server.createContext("/", this::handle);
    server.start();
  }

  /** A client of this server, configured as the agent configures its own (no retries to speak of). */
  public KubernetesClient client() {
    return new KubernetesClientBuilder().withConfig(new ConfigBuilder().withMasterUrl("http://127.0.0.1:"
        + server.getAddress().getPort()).withRequestRetryBackoffLimit(0).build())
        .withHttpClientFactory(new JdkHttpClientFactory()).build();
  }

  /** The stored slices, by name. */
  public synchronized Map<String, JsonNode> slices() {
    return new TreeMap<>(slices);
  }

  private synchronized void handle(HttpExchange ex) throws IOException {
    String path = ex.getRequestURI().getPath();
    String method = ex.getRequestMethod();
    String query = ex.getRequestURI().getQuery();
    try {
      if (method.equals("GET") && path.equals("/api/v1/nodes/node-a")) {
        send(ex, 200, json.createObjectNode().put("apiVersion", "v1").put("kind", "Node")
            .set("metadata", json.createObjectNode().put("name", "node-a").put("uid", "uid-node-a")));
      } else if (method.equals("GET") && path.equals(SLICES) && (query == null || !query.contains("watch"))) {
        ObjectNode list = json.createObjectNode().put("apiVersion", "resource.k8s.io/v1").put("kind", "ResourceSliceList");
        list.putObject("metadata").put("resourceVersion", String.valueOf(version.get()));
        slices.values().forEach(list.putArray("items")::add);
        if (!list.has("items")) {
          list.putArray("items");
        }
        send(ex, 200, list);
      } else if (method.equals("POST") && path.equals(SLICES)) {
        ObjectNode slice = store((ObjectNode) json.readTree(ex.getRequestBody()));
        send(ex, 201, slice);
      } else if (method.equals("PUT") && path.startsWith(SLICES + "/")) {
        ObjectNode slice = store((ObjectNode) json.readTree(ex.getRequestBody()));
        send(ex, 200, slice);
      } else if (method.equals("DELETE") && path.startsWith(SLICES + "/")) {
        ObjectNode gone = slices.remove(path.substring(SLICES.length() + 1));
        send(ex, gone == null ? 404 : 200, gone == null ? status(404) : gone);
      } else {
        send(ex, 404, status(404));
      }
    } catch (RuntimeException e) {
      send(ex, 500, status(500));
    }
  }

  /** Stores a slice as a server without the gate does: the KEP-5075 fields are gone. */
  private ObjectNode store(ObjectNode slice) {
    for (JsonNode device : slice.path("spec").path("devices")) {
      ((ObjectNode) device).remove("allowMultipleAllocations");
      for (JsonNode capacity : device.path("capacity")) {
        ((ObjectNode) capacity).remove("requestPolicy");
      }
    }
    ((ObjectNode) slice.get("metadata")).put("resourceVersion", String.valueOf(version.incrementAndGet()));
    slices.put(slice.get("metadata").get("name").asText(), slice);
    return slice;
  }

  private ObjectNode status(int code) {
    return json.createObjectNode().put("apiVersion", "v1").put("kind", "Status").put("status", "Failure").put("code", code);
  }

  private void send(HttpExchange ex, int code, JsonNode body) throws IOException {
    byte[] bytes = json.writeValueAsBytes(body);
    ex.getResponseHeaders().set("Content-Type", "application/json");
    ex.sendResponseHeaders(code, bytes.length);
    try (var out = ex.getResponseBody()) {
      out.write(bytes);
    }
    ex.close();
  }

  @Override
  public void close() {
    server.stop(0);
  }

}
