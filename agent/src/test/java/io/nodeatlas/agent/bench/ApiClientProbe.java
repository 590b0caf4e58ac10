package io.nodeatlas.agent.bench;

import com.fasterxml.jackson.core.JsonFactory;
import com.fasterxml.jackson.core.JsonGenerator;
import com.fasterxml.jackson.core.JsonParser;
import com.fasterxml.jackson.core.JsonToken;
import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import com.fasterxml.jackson.dataformat.yaml.YAMLMapper;
import io.fabric8.kubernetes.api.model.OwnerReference;
import io.fabric8.kubernetes.api.model.OwnerReferenceBuilder;
import io.fabric8.kubernetes.api.model.resource.v1.DeviceRequestAllocationResult;
import io.fabric8.kubernetes.api.model.resource.v1.ResourceSlice;
import io.fabric8.kubernetes.api.model.resource.v1.ResourceSliceList;
import io.fabric8.kubernetes.client.Config;
import io.fabric8.kubernetes.client.KubernetesClient;
import io.fabric8.kubernetes.client.KubernetesClientBuilder;
import io.fabric8.kubernetes.client.Watcher;
import io.fabric8.kubernetes.client.WatcherException;
import io.fabric8.kubernetes.client.jdkhttp.JdkHttpClientFactory;
import io.fabric8.kubernetes.client.server.mock.KubernetesCrudDispatcher;
import io.fabric8.kubernetes.client.server.mock.KubernetesMockServer;
import io.fabric8.mockwebserver.Context;
import io.fabric8.mockwebserver.MockWebServer;
import io.grpc.Server;
import io.grpc.netty.shaded.io.netty.channel.EventLoopGroup;
import io.grpc.stub.StreamObserver;
import io.nodeatlas.agent.kubelet.UnixSocketServers;
import io.nodeatlas.agent.kubelet.api.registration.InfoRequest;
import io.nodeatlas.agent.kubelet.api.registration.PluginInfo;
import io.nodeatlas.agent.kubelet.api.registration.RegistrationGrpc;
import io.nodeatlas.agent.slices.NodeSlices;
import io.nodeatlas.agent.testing.ApiObjects;
import io.nodeatlas.agent.testing.TestDevices;
import io.nodeatlas.discovery.model.AttributeValue;
import io.nodeatlas.discovery.model.Device;
import java.io.BufferedReader;
import java.io.ByteArrayOutputStream;
import java.io.InputStream;
import java.io.InputStreamReader;
import java.net.URI;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.Future;

/**
 * Measurement probe behind bench/api-client.sh (issue 36, "fewer classes in the agent"): what fabric8's
 * client costs the agent's idle start, against a client of the JDK's {@code java.net.http} for the same
 * calls. Each measured JVM does the agent's API work of an idle start (read the kubeconfig, GET the Node,
 * list the node's ResourceSlices by label, create the slices of 32 GPUs, open a watch on them) beside a
 * kubelet registration server on a unix socket (as {@link LibraryFloor}), prints "ready" and idles; on a
 * line "burst" on stdin it does what a 32-claim burst adds on the API side (32 concurrent claim GETs read
 * with Jackson's streaming parser, one more list of the slices) and prints "done".
 *
 * <p>Modes (the measured ones take {@code <kubeconfig> <socket>}):
 * <ul>
 *   <li>{@code api <url-file>}: fabric8's CRUD mock (another JVM, not measured) holding Node node-a and 32
 *       allocated claims bench/claim-0..31; {@code clean <url-file>} deletes the slices a measured run made;
 *   <li>{@code fabric8}: today's agent: fabric8's client on its JDK transport, the slices from
 *       {@link NodeSlices} (fabric8's model), fabric8's watch;
 *   <li>{@code thin}: {@code java.net.http} and a plain Jackson {@code ObjectMapper} over the same model
 *       classes ({@link NodeSlices} unchanged), the watch an HTTP stream read line by line;
 *   <li>{@code stream}: {@code java.net.http} and Jackson's streaming parser and generator only: no model
 *       classes, no data binding (the slices written field by field).
 * </ul>
 */
public final class ApiClientProbe {

  private static final String DRIVER = "nodeatlas.io";
  private static final String NODE = "node-a";
  private static final int CLAIMS = 32;
  private static final String SELECTOR = "nodeatlas.io%2Fnode%3Dnode-a%2Cnodeatlas.io%2Fdriver%3Dnodeatlas.io";

  private ApiClientProbe() {}

  public static void main(String[] args) throws Exception {
    if (args[0].equals("api")) {
      api(Path.of(args[1]));
      return;
    }
    if (args[0].equals("clean")) { // between measured runs: the mock holds no slices again
      String url = Files.readString(Path.of(args[1])).trim();
      HttpResponse<String> r = HttpClient.newHttpClient().send(HttpRequest.newBuilder(URI.create(url
          + (url.endsWith("/") ? "" : "/") + "apis/resource.k8s.io/v1/resourceslices?labelSelector=" + SELECTOR)).DELETE().build(),
          HttpResponse.BodyHandlers.ofString());
      if (r.statusCode() != 200) {
        throw new IllegalStateException("clean: HTTP " + r.statusCode());
      }
      return;
    }
    Path kubeconfig = Path.of(args[1]);
    Server server = registration(Path.of(args[2]));
    Runnable burst = switch (args[0]) {
      case "fabric8" -> fabric8(kubeconfig);
      case "thin" -> thin(kubeconfig, false);
      case "stream" -> thin(kubeconfig, true);
      default -> throw new IllegalArgumentException("api, fabric8, thin or stream, not " + args[0]);
    };
    System.out.println("ready");
    System.out.flush();
    BufferedReader in = new BufferedReader(new InputStreamReader(System.in, StandardCharsets.UTF_8));
    for (String line; (line = in.readLine()) != null; ) {
      if (line.equals("burst")) {
        burst.run();
        System.out.println("done");
        System.out.flush();
      }
    }
    server.shutdownNow();
    System.exit(0);
  }

  private static void api(Path urlFile) throws Exception {
    KubernetesMockServer api = new KubernetesMockServer(new Context(), new MockWebServer(), new HashMap<>(),
        new KubernetesCrudDispatcher(), false);
    api.init();
    KubernetesClient client = api.createClient();
    ApiObjects.node(client, NODE);
    for (int c = 0; c < CLAIMS; c++) {
      List<DeviceRequestAllocationResult> results = new ArrayList<>();
      for (int d = 0; d < 8; d++) {
        results.add(ApiObjects.result("gpus", DRIVER, NODE, "gpu-" + (c * 8 + d)));
      }
      ApiObjects.allocatedClaim(client, "bench", "claim-" + c, results);
    }
    Path tmp = urlFile.resolveSibling(urlFile.getFileName() + ".tmp");
    Files.writeString(tmp, client.getConfiguration().getMasterUrl());
    Files.move(tmp, urlFile, java.nio.file.StandardCopyOption.ATOMIC_MOVE);
    Thread.currentThread().join();
  }

  private static Server registration(Path socket) throws Exception {
    EventLoopGroup group = UnixSocketServers.newEventLoopGroup(1);
    RegistrationGrpc.RegistrationImplBase registration = new RegistrationGrpc.RegistrationImplBase() {
      @Override
      public void getInfo(InfoRequest request, StreamObserver<PluginInfo> response) {
        response.onNext(PluginInfo.newBuilder().setType("DRAPlugin").setName(DRIVER)
            .setEndpoint("/var/lib/kubelet/plugins/nodeatlas.io/dra.sock").addSupportedVersions("v1.DRAPlugin").build());
        response.onCompleted();
      }
    };
    return UnixSocketServers.start(socket, group, null, List.of(registration));
  }

  private static List<Device> devices() {
    return TestDevices.gpus(CLAIMS * 8);
  }

  // ---- fabric8: the agent today ----

  private static Runnable fabric8(Path kubeconfig) throws Exception {
    Config cfg = Config.fromKubeconfig(null, Files.readString(kubeconfig), kubeconfig.toString());
    KubernetesClient client = new KubernetesClientBuilder().withConfig(cfg)
        .withHttpClientFactory(new JdkHttpClientFactory()).build();
    String uid = client.nodes().withName(NODE).get().getMetadata().getUid();
    OwnerReference owner = owner(uid);
    var existing = client.resources(ResourceSlice.class).withLabel(NodeSlices.LABEL_NODE, NODE)
        .withLabel(NodeSlices.LABEL_DRIVER, DRIVER).list();
    if (!existing.getItems().isEmpty()) {
      throw new IllegalStateException("slices exist already");
    }
    for (ResourceSlice s : new NodeSlices(DRIVER, NODE).build(devices(), false, 1, Optional.of(owner)).slices()) {
      client.resource(s).create();
    }
    client.resources(ResourceSlice.class).withLabel(NodeSlices.LABEL_NODE, NODE).withLabel(NodeSlices.LABEL_DRIVER, DRIVER)
        .watch(new Watcher<>() {
          @Override
          public void eventReceived(Action action, ResourceSlice resource) {}

          @Override
          public void onClose(WatcherException cause) {}
        });
    String base = client.getMasterUrl().toString();
    io.fabric8.kubernetes.client.http.HttpClient http = client.getHttpClient();
    return () -> burst(path -> {
      var response = http.sendAsync(http.newHttpRequestBuilder().uri(base + path).build(), InputStream.class).get();
      return response.body();
    }, () -> client.resources(ResourceSlice.class).withLabel(NodeSlices.LABEL_NODE, NODE)
        .withLabel(NodeSlices.LABEL_DRIVER, DRIVER).list().getItems().size());
  }

  private static OwnerReference owner(String uid) {
    return new OwnerReferenceBuilder().withApiVersion("v1").withKind("Node").withName(NODE).withUid(uid)
        .withController(true).build();
  }

  // ---- thin: java.net.http, with (thin) or without (stream) the model classes ----

  private static Runnable thin(Path kubeconfig, boolean stream) throws Exception {
    JsonNode config = new YAMLMapper().readTree(kubeconfig.toFile());
    String server = config.get("clusters").get(0).get("cluster").get("server").asText();
    String token = config.get("users").get(0).get("user").get("token").asText();
    String base = server.endsWith("/") ? server.substring(0, server.length() - 1) : server;
    HttpClient http = HttpClient.newBuilder().connectTimeout(Duration.ofSeconds(5)).build();
    JsonFactory json = new JsonFactory();
    ObjectMapper mapper = stream ? null : new ObjectMapper();
    Get get = path -> http.send(HttpRequest.newBuilder(URI.create(base + path)).header("Authorization", "Bearer " + token)
        .timeout(Duration.ofSeconds(5)).build(), HttpResponse.BodyHandlers.ofInputStream()).body();
    String slices = "/apis/resource.k8s.io/v1/resourceslices";
    String uid;
    try (InputStream in = get.get("/api/v1/nodes/" + NODE)) {
      uid = stringAt(json, in, "uid");
    }
    Count list = () -> {
      try (InputStream in = get.get(slices + "?labelSelector=" + SELECTOR)) {
        if (stream) {
          return countNames(json, in) - 1; // the list's metadata has none; each item's has one
        }
        return mapper.readValue(in, ResourceSliceList.class).getItems().size();
      }
    };
    if (list.count() > 0) {
      throw new IllegalStateException("slices exist already");
    }
    List<byte[]> bodies = new ArrayList<>();
    if (stream) {
      bodies.addAll(streamSlices(json, devices(), uid));
    } else {
      for (ResourceSlice s : new NodeSlices(DRIVER, NODE).build(devices(), false, 1, Optional.of(owner(uid))).slices()) {
        bodies.add(mapper.writeValueAsBytes(s));
      }
    }
    for (byte[] body : bodies) {
      HttpResponse<InputStream> r = http.send(HttpRequest.newBuilder(URI.create(base + slices))
          .header("Authorization", "Bearer " + token).header("Content-Type", "application/json")
          .timeout(Duration.ofSeconds(5)).POST(HttpRequest.BodyPublishers.ofByteArray(body)).build(),
          HttpResponse.BodyHandlers.ofInputStream());
      try (InputStream in = r.body()) {
        if (r.statusCode() != 201 && r.statusCode() != 200) {
          throw new IllegalStateException("create: HTTP " + r.statusCode() + " " + new String(in.readAllBytes(), StandardCharsets.UTF_8));
        }
        if (stream) {
          countNames(json, in);
        } else {
          mapper.readValue(in, ResourceSlice.class);
        }
      }
    }
    // fabric8's CRUD mock serves watches over WebSocket only (an HTTP watch answers 500), as fabric8's
    // client asks; the JDK's WebSocket shares the HttpClient's classes, and each event is parsed as it comes.
    String ws = base.replaceFirst("^http", "ws") + slices + "?watch=true&allowWatchBookmarks=true&labelSelector=" + SELECTOR;
    http.newWebSocketBuilder().header("Authorization", "Bearer " + token).buildAsync(URI.create(ws), new java.net.http.WebSocket.Listener() {
      private final StringBuilder event = new StringBuilder();

      @Override
      public java.util.concurrent.CompletionStage<?> onText(java.net.http.WebSocket socket, CharSequence data, boolean last) {
        event.append(data);
        if (last) {
          try (JsonParser p = json.createParser(event.toString())) {
            while (p.nextToken() != null) {
              // the event's type and object; the agent acts on DELETED only
            }
          } catch (java.io.IOException e) {
            // the probe measures memory, not the events
          }
          event.setLength(0);
        }
        socket.request(1);
        return null;
      }
    }).get();
    return () -> burst(get, list);
  }

  private static List<byte[]> streamSlices(JsonFactory json, List<Device> devices, String uid) throws Exception {
    List<byte[]> out = new ArrayList<>();
    int perSlice = 128;
    int count = (devices.size() + perSlice - 1) / perSlice;
    for (int i = 0; i < count; i++) {
      ByteArrayOutputStream buf = new ByteArrayOutputStream();
      try (JsonGenerator g = json.createGenerator(buf)) {
        g.writeStartObject();
        g.writeStringField("apiVersion", "resource.k8s.io/v1");
        g.writeStringField("kind", "ResourceSlice");
        g.writeObjectFieldStart("metadata");
        g.writeStringField("name", NODE + "-" + DRIVER + "-" + i);
        g.writeObjectFieldStart("labels");
        g.writeStringField("nodeatlas.io/node", NODE);
        g.writeStringField("nodeatlas.io/driver", DRIVER);
        g.writeEndObject();
        g.writeArrayFieldStart("ownerReferences");
        g.writeStartObject();
        g.writeStringField("apiVersion", "v1");
        g.writeStringField("kind", "Node");
        g.writeStringField("name", NODE);
        g.writeStringField("uid", uid);
        g.writeBooleanField("controller", true);
        g.writeEndObject();
        g.writeEndArray();
        g.writeEndObject();
        g.writeObjectFieldStart("spec");
        g.writeStringField("driver", DRIVER);
        g.writeStringField("nodeName", NODE);
        g.writeObjectFieldStart("pool");
        g.writeStringField("name", NODE);
        g.writeNumberField("generation", 1);
        g.writeNumberField("resourceSliceCount", count);
        g.writeEndObject();
        g.writeArrayFieldStart("devices");
        for (Device d : devices.subList(i * perSlice, Math.min(devices.size(), (i + 1) * perSlice))) {
          g.writeStartObject();
          g.writeStringField("name", d.name());
          g.writeObjectFieldStart("attributes");
          for (Map.Entry<String, AttributeValue> a : d.attributes().entrySet()) {
            g.writeObjectFieldStart(a.getKey());
            Object v = a.getValue().asObject();
            if (v instanceof Long l) {
              g.writeNumberField("int", l);
            } else if (v instanceof Boolean b) {
              g.writeBooleanField("bool", b);
            } else {
              g.writeStringField("string", String.valueOf(v));
            }
            g.writeEndObject();
          }
          g.writeEndObject();
          g.writeObjectFieldStart("capacity");
          for (var c : d.capacity().entrySet()) {
            g.writeObjectFieldStart(c.getKey());
            g.writeStringField("value", c.getValue().toString());
            g.writeEndObject();
          }
          g.writeEndObject();
          g.writeEndObject();
        }
        g.writeEndArray();
        g.writeEndObject();
        g.writeEndObject();
      }
      out.add(buf.toByteArray());
    }
    return out;
  }

  // ---- the burst, common to all modes ----

  interface Get {
    InputStream get(String path) throws Exception;
  }

  interface Count {
    int count() throws Exception;
  }

  private static void burst(Get get, Count list) {
    JsonFactory json = new JsonFactory();
    ExecutorService pool = Executors.newFixedThreadPool(8);
    try {
      List<Future<String>> reads = new ArrayList<>();
      for (int c = 0; c < CLAIMS; c++) {
        String path = "/apis/resource.k8s.io/v1/namespaces/bench/resourceclaims/claim-" + c;
        reads.add(pool.submit(() -> {
          try (InputStream in = get.get(path)) {
            return stringAt(json, in, "uid");
          }
        }));
      }
      for (Future<String> f : reads) {
        if (f.get() == null) {
          throw new IllegalStateException("a claim without a uid");
        }
      }
      if (list.count() < 1) {
        throw new IllegalStateException("no slices listed");
      }
    } catch (Exception e) {
      throw new IllegalStateException(e);
    } finally {
      pool.shutdown();
    }
  }

  /** The first string value of a field named {@code field}, streaming. */
  private static String stringAt(JsonFactory json, InputStream in, String field) throws Exception {
    try (JsonParser p = json.createParser(in)) {
      for (JsonToken t; (t = p.nextToken()) != null; ) {
        if (t == JsonToken.FIELD_NAME && field.equals(p.currentName()) && p.nextToken() == JsonToken.VALUE_STRING) {
          return p.getText();
        }
      }
    }
    return null;
  }

  /** How many fields named {@code name} hold a string (the list's items, by their metadata's name). */
  private static int countNames(JsonFactory json, InputStream in) throws Exception {
    int n = 0;
    try (JsonParser p = json.createParser(in)) {
      for (JsonToken t; (t = p.nextToken()) != null; ) {
        if (t == JsonToken.FIELD_NAME && "resourceVersion".equals(p.currentName())) {
          n++;
        }
      }
    }
    return n;
  }
}
