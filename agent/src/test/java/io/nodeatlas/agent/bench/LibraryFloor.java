package io.nodeatlas.agent.bench;

import com.fasterxml.jackson.core.JsonFactory;
import com.fasterxml.jackson.core.JsonParser;
import com.sun.net.httpserver.HttpsConfigurator;
import com.sun.net.httpserver.HttpsServer;
import io.grpc.ManagedChannel;
import io.grpc.Server;
import io.grpc.stub.StreamObserver;
import io.grpc.netty.shaded.io.netty.channel.EventLoopGroup;
import io.nodeatlas.agent.kubelet.UnixSocketServers;
import io.nodeatlas.agent.kubelet.api.registration.InfoRequest;
import io.nodeatlas.agent.kubelet.api.registration.PluginInfo;
import io.nodeatlas.agent.kubelet.api.registration.RegistrationGrpc;
import java.io.InputStream;
import java.io.OutputStream;
import java.net.InetSocketAddress;
import java.net.URI;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.security.KeyStore;
import java.util.List;
import javax.net.ssl.HttpsURLConnection;
import javax.net.ssl.KeyManagerFactory;
import javax.net.ssl.SSLContext;
import javax.net.ssl.TrustManagerFactory;

/**
 * The memory floor of bench/agent-memory.sh (issue 14, row 6): the least a kubelet plugin that talks to
 * a real API server holds, with the libraries the agent is built on and nothing of the agent's own.
 * Its {@code serve} JVM, run with the agent's JVM flags, does three things and then idles:
 * <ul>
 *   <li>serves {@code pluginregistration.Registration} on a unix socket with grpc-java and Netty's epoll
 *       transport, as the agent does for the kubelet (and answers a client's calls);
 *   <li>reads one list from an HTTPS server with the JDK's {@code HttpsURLConnection} (the lightest
 *       client in the JDK, the one the agent's claim read uses; an API server always speaks TLS);
 *   <li>parses that answer with jackson-core's streaming parser (no data binding, no model classes).
 * </ul>
 * No API client library, no watch, no CDI, checkpoint, discovery, metrics or logging set-up: anything
 * the agent does beyond this only adds to it.
 *
 * <p>Modes:
 * <ul>
 *   <li>{@code api <keystore.p12> <password> <port-file>}: the HTTPS server (another JVM, not measured);
 *   <li>{@code serve <socket> <url> <truststore.p12> <password>}: the measured JVM; prints "ready";
 *   <li>{@code call <socket> <calls>}: the kubelet's side, GetInfo {@code calls} times.
 * </ul>
 */
public final class LibraryFloor {

  private LibraryFloor() {}

  public static void main(String[] args) throws Exception {
    switch (args[0]) {
      case "api" -> api(Path.of(args[1]), args[2].toCharArray(), Path.of(args[3]));
      case "serve" -> serve(Path.of(args[1]), URI.create(args[2]), Path.of(args[3]), args[4].toCharArray());
      case "call" -> {
        call(Path.of(args[1]), Integer.parseInt(args[2]));
        System.exit(0);
      }
      default -> throw new IllegalArgumentException("api, serve or call, not " + args[0]);
    }
  }

  /** A list of two ResourceSlices, as an API server answers a list (the floor parses it, never binds it). */
  private static final String SLICE_LIST = "{\"apiVersion\":\"resource.k8s.io/v1\",\"kind\":\"ResourceSliceList\","
      + "\"metadata\":{\"resourceVersion\":\"42\"},\"items\":["
      + "{\"metadata\":{\"name\":\"node-a-nodeatlas.io-x1\",\"resourceVersion\":\"41\"},\"spec\":{\"driver\":\"nodeatlas.io\","
      + "\"nodeName\":\"node-a\",\"pool\":{\"name\":\"node-a\",\"generation\":1,\"resourceSliceCount\":2},"
      + "\"devices\":[{\"name\":\"cpu-0\",\"attributes\":{\"nodeatlas.io/architecture\":{\"string\":\"x86_64\"}},"
      + "\"capacity\":{\"nodeatlas.io/cpus\":{\"value\":\"64\"}}}]}},"
      + "{\"metadata\":{\"name\":\"node-a-nodeatlas.io-x2\",\"resourceVersion\":\"40\"},\"spec\":{\"driver\":\"nodeatlas.io\","
      + "\"nodeName\":\"node-a\",\"pool\":{\"name\":\"node-a\",\"generation\":1,\"resourceSliceCount\":2},"
      + "\"devices\":[{\"name\":\"hugepages-2mi-0\",\"attributes\":{\"nodeatlas.io/numaNode\":{\"int\":0}}}]}}]}";

  private static void api(Path keystore, char[] password, Path portFile) throws Exception {
    KeyStore ks = KeyStore.getInstance("PKCS12");
    try (InputStream in = Files.newInputStream(keystore)) {
      ks.load(in, password);
    }
    KeyManagerFactory kmf = KeyManagerFactory.getInstance(KeyManagerFactory.getDefaultAlgorithm());
    kmf.init(ks, password);
    SSLContext tls = SSLContext.getInstance("TLS");
    tls.init(kmf.getKeyManagers(), null, null);
    HttpsServer server = HttpsServer.create(new InetSocketAddress("127.0.0.1", 0), 0);
    server.setHttpsConfigurator(new HttpsConfigurator(tls));
    byte[] body = SLICE_LIST.getBytes(StandardCharsets.UTF_8);
    server.createContext("/", exchange -> {
      exchange.getResponseHeaders().set("Content-Type", "application/json");
      exchange.sendResponseHeaders(200, body.length);
      try (OutputStream out = exchange.getResponseBody()) {
        out.write(body);
      }
    });
    server.start();
    Path tmp = portFile.resolveSibling(portFile.getFileName() + ".tmp");
    Files.writeString(tmp, Integer.toString(server.getAddress().getPort()));
    Files.move(tmp, portFile, java.nio.file.StandardCopyOption.ATOMIC_MOVE);
  }

  private static void serve(Path socket, URI url, Path truststore, char[] password) throws Exception {
    EventLoopGroup group = UnixSocketServers.newEventLoopGroup(1);
    RegistrationGrpc.RegistrationImplBase registration = new RegistrationGrpc.RegistrationImplBase() {
      @Override
      public void getInfo(InfoRequest request, StreamObserver<PluginInfo> response) {
        response.onNext(PluginInfo.newBuilder().setType("DRAPlugin").setName("nodeatlas.io")
            .setEndpoint("/var/lib/kubelet/plugins/nodeatlas.io/dra.sock").addSupportedVersions("v1.DRAPlugin").build());
        response.onCompleted();
      }
    };
    Server server = UnixSocketServers.start(socket, group, null, List.of(registration));

    KeyStore trust = KeyStore.getInstance("PKCS12");
    try (InputStream in = Files.newInputStream(truststore)) {
      trust.load(in, password);
    }
    TrustManagerFactory tmf = TrustManagerFactory.getInstance(TrustManagerFactory.getDefaultAlgorithm());
    tmf.init(trust);
    SSLContext tls = SSLContext.getInstance("TLS");
    tls.init(null, tmf.getTrustManagers(), null);
    HttpsURLConnection connection = (HttpsURLConnection) url.toURL().openConnection();
    connection.setSSLSocketFactory(tls.getSocketFactory());
    int tokens = 0;
    try (InputStream in = connection.getInputStream(); JsonParser parser = new JsonFactory().createParser(in)) {
      while (parser.nextToken() != null) {
        tokens++;
      }
    }
    System.out.println("ready: " + tokens + " JSON tokens read over TLS");
    System.out.flush();
    server.awaitTermination();
  }

  private static void call(Path socket, int calls) {
    EventLoopGroup group = UnixSocketServers.newEventLoopGroup(1);
    ManagedChannel channel = UnixSocketServers.channel(socket, group);
    try {
      for (int i = 0; i < calls; i++) {
        PluginInfo info = RegistrationGrpc.newBlockingStub(channel).getInfo(InfoRequest.getDefaultInstance());
        if (!info.getType().equals("DRAPlugin")) {
          throw new IllegalStateException("unexpected answer " + info);
        }
      }
    } finally {
      channel.shutdownNow();
      group.shutdownGracefully();
    }
  }
}
