package io.nodeatlas.agent.api;

import com.fasterxml.jackson.core.JsonFactory;
import com.fasterxml.jackson.core.JsonParser;
import com.fasterxml.jackson.core.JsonToken;
import io.nodeatlas.agent.kubeconfig.ClientCertificate;
import java.io.IOException;
import java.io.InputStream;
import java.net.URI;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.time.Duration;
import java.util.function.Supplier;
import javax.net.ssl.KeyManager;
import javax.net.ssl.SSLContext;
import javax.net.ssl.TrustManager;

/**
 * The agent's connection to the API server on the JDK's {@code java.net.http} client: the kubeconfig's
 * server, CA and client certificate (re-read when rotated on disk: a new certificate gets a new client,
 * so no pooled connection keeps the old one) and bearer token (asked for before every request and again
 * after a 401, as client-go's {@code BearerTokenFile} transport does), every request bounded in time and
 * every answer in size. Calls block the calling thread; docs/design/api-client.md has the figures.
 */
public final class ApiConnection {

  /** Connect and per-request time, and the largest answer read (3 MiB: k8s.io/apiserver's MaxRequestBodyBytes). */
  public record Limits(Duration connect, Duration request, int maxBytes) {
    public static final Limits DEFAULT = new Limits(Duration.ofSeconds(10), Duration.ofSeconds(60), 3 << 20);

    public Limits {
      if (connect.isNegative() || connect.isZero() || request.isNegative() || request.isZero() || maxBytes < 1) {
        throw new IllegalArgumentException("invalid limits " + connect + " " + request + " " + maxBytes);
      }
    }
  }

  /** An answer's status and body (at most {@link Limits#maxBytes}). */
  public record Answer(int code, byte[] body) {}

  private final URI server;
  private final String base;
  private final TrustManager[] trust;
  private final ClientCertificate cert;
  private final Supplier<String> token;
  private final Limits limits;
  private final JsonFactory json = new JsonFactory();
  private final Object lock = new Object();
  private volatile HttpClient http;
  /**
   * One socket factory per context: {@code HttpURLConnection} keeps a connection alive for the next call
   * only under the same factory instance (its keep-alive key), and {@link SSLContext#getSocketFactory()}
   * makes a new one on every call.
   */
  private volatile javax.net.ssl.SSLSocketFactory sockets;
  private long generation;

  /**
   * @param trust the CA's trust managers, null for the JDK's default trust store
   * @param cert the client certificate, or null
   * @param token the bearer token's source, or null
   */
  public ApiConnection(URI server, TrustManager[] trust, ClientCertificate cert, Supplier<String> token, Limits limits) {
    String scheme = server.getScheme();
    if (!"https".equals(scheme) && !"http".equals(scheme) || server.getHost() == null) {
      throw new IllegalArgumentException("the API server's URL must be http(s)://host[:port], not " + server);
    }
    String s = server.toString();
    this.server = server;
    this.base = s.endsWith("/") ? s.substring(0, s.length() - 1) : s;
    this.trust = trust;
    this.cert = cert;
    this.token = token;
    this.limits = limits;
  }

  /** Trust managers that trust the CA certificates of {@code pem} (a kubeconfig's {@code certificate-authority}). */
  public static TrustManager[] trusting(byte[] pem) throws java.security.GeneralSecurityException, IOException {
    java.security.KeyStore store = java.security.KeyStore.getInstance(java.security.KeyStore.getDefaultType());
    store.load(null, null);
    int i = 0;
    for (java.security.cert.Certificate c : java.security.cert.CertificateFactory.getInstance("X.509")
        .generateCertificates(new java.io.ByteArrayInputStream(pem))) {
      store.setCertificateEntry("ca-" + i++, c);
    }
    if (i == 0) {
      throw new java.security.cert.CertificateException("no certificate in the CA's PEM text");
    }
    javax.net.ssl.TrustManagerFactory f = javax.net.ssl.TrustManagerFactory.getInstance(
        javax.net.ssl.TrustManagerFactory.getDefaultAlgorithm());
    f.init(store);
    return f.getTrustManagers();
  }

  /** The server's URL without a trailing slash: a request's URL is this and its path. */
  public String base() {
    return base;
  }

  /** The API server's URL, for messages. */
  public URI server() {
    return server;
  }

  public Limits limits() {
    return limits;
  }

  /**
   * Sends {@code method path} with a JSON {@code body} (null: none) and reads the whole answer; an answer
   * other than 2xx is thrown as {@link ApiException} with the server's Status.
   */
  public byte[] call(String method, String path, byte[] body) throws ApiException {
    return call(method, path, body, "application/json");
  }

  /** As {@link #call(String, String, byte[])} with the body's content type (a patch's). */
  public byte[] call(String method, String path, byte[] body, String contentType) throws ApiException {
    Answer a = exchange(method, path, body, contentType);
    if (a.code() / 100 != 2) {
      throw failure(a);
    }
    return a.body();
  }

  /** Sends the request and reads the answer, whatever its status. */
  public Answer exchange(String method, String path, byte[] body, String contentType) throws ApiException {
    return exchange(method, path, body, contentType, limits.request(), limits.maxBytes());
  }

  /** As {@link #exchange(String, String, byte[], String)} within {@code timeout}, reading at most {@code maxBytes}. */
  public Answer exchange(String method, String path, byte[] body, String contentType, Duration timeout, int maxBytes)
      throws ApiException {
    HttpResponse<InputStream> r = send(method, path, body, contentType, timeout);
    try (InputStream in = r.body()) {
      byte[] b = in.readNBytes(maxBytes + 1);
      if (b.length > maxBytes) {
        throw new ApiException(r.statusCode(), "TooLarge", "the answer to " + method + " " + path + " is larger than "
            + maxBytes + " bytes; refused", null);
      }
      return new Answer(r.statusCode(), b);
    } catch (ApiException e) {
      throw e;
    } catch (IOException e) {
      throw ApiException.noAnswer(base + "/", e);
    }
  }

  /**
   * Opens a GET whose answer is read as it comes (a watch); a status other than 200 is thrown. The
   * caller closes the stream; {@code timeout} bounds the time to the answer's headers only.
   */
  public InputStream stream(String path, Duration timeout) throws ApiException {
    HttpResponse<InputStream> r = send("GET", path, null, null, timeout);
    if (r.statusCode() == 200) {
      return r.body();
    }
    byte[] b;
    try (InputStream in = r.body()) {
      b = in.readNBytes(Math.min(limits.maxBytes(), 64 << 10));
    } catch (IOException e) {
      b = new byte[0];
    }
    throw failure(new Answer(r.statusCode(), b));
  }

  private HttpResponse<InputStream> send(String method, String path, byte[] body, String contentType, Duration timeout)
      throws ApiException {
    String bearer = token == null ? null : token.get();
    HttpResponse<InputStream> r = sendOnce(method, path, body, contentType, timeout, bearer);
    if (r.statusCode() == 401 && token != null) {
      String again = token.get();
      if (again != null && !again.equals(bearer)) { // rotated since: once more with the new one
        drain(r);
        r = sendOnce(method, path, body, contentType, timeout, again);
      }
    }
    return r;
  }

  private HttpResponse<InputStream> sendOnce(String method, String path, byte[] body, String contentType, Duration timeout,
      String bearer) throws ApiException {
    HttpRequest.Builder b = HttpRequest.newBuilder(URI.create(base + path)).timeout(timeout)
        .header("Accept", "application/json")
        .method(method, body == null ? HttpRequest.BodyPublishers.noBody() : HttpRequest.BodyPublishers.ofByteArray(body));
    if (body != null) {
      b.header("Content-Type", contentType);
    }
    if (bearer != null && !bearer.isEmpty()) {
      b.header("Authorization", "Bearer " + bearer);
    }
    try {
      return client().send(b.build(), HttpResponse.BodyHandlers.ofInputStream());
    } catch (InterruptedException e) {
      Thread.currentThread().interrupt();
      throw ApiException.noAnswer(base + "/", e);
    } catch (IOException | RuntimeException e) {
      throw ApiException.noAnswer(base + "/", e);
    }
  }

  private static void drain(HttpResponse<InputStream> r) {
    try (InputStream in = r.body()) {
      in.readNBytes(64 << 10);
    } catch (IOException e) {
      // the connection is dropped instead of reused
    }
  }

  /**
   * The TLS socket factory with the same CA and client certificate (rotation included), for a caller on
   * {@code HttpURLConnection} (the claim GET, which must not hand its work between threads).
   */
  public javax.net.ssl.SSLSocketFactory socketFactory() throws ApiException {
    client();
    return sockets;
  }

  /** The bearer token to send now (null: none); after a 401, asking again gives a rotated one. */
  public String token() {
    return token == null ? null : token.get();
  }

  /** The client, built again when the client certificate was rotated on disk. */
  private HttpClient client() throws ApiException {
    long g = -1;
    if (cert != null) {
      cert.refresh();
      g = cert.generation();
    }
    HttpClient c = http;
    if (c != null && (cert == null || g == generation)) {
      return c;
    }
    synchronized (lock) {
      if (http == null || cert != null && g != generation) {
        try {
          SSLContext context = SSLContext.getInstance("TLS");
          context.init(cert == null ? null : new KeyManager[] {cert}, trust, null);
          sockets = context.getSocketFactory();
          http = HttpClient.newBuilder().version(HttpClient.Version.HTTP_1_1).connectTimeout(limits.connect())
              .followRedirects(HttpClient.Redirect.NEVER).sslContext(context).build();
          generation = g;
        } catch (java.security.GeneralSecurityException e) {
          throw new ApiException(0, null, "cannot set up TLS for " + base + ": " + e.getMessage(), e);
        }
      }
      return http;
    }
  }

  /** A non-2xx answer as an exception with the Status's reason and message (meta/v1 Status), when it has them. */
  ApiException failure(Answer a) {
    String reason = null;
    String message = null;
    try (JsonParser p = json.createParser(a.body())) {
      if (p.nextToken() == JsonToken.START_OBJECT) {
        for (JsonToken t = p.nextToken(); t == JsonToken.FIELD_NAME; t = p.nextToken()) {
          String name = p.currentName();
          JsonToken v = p.nextToken();
          if (v == JsonToken.VALUE_STRING && "reason".equals(name)) {
            reason = p.getText();
          } else if (v == JsonToken.VALUE_STRING && "message".equals(name)) {
            message = p.getText();
          } else {
            p.skipChildren();
          }
        }
      }
    } catch (IOException e) {
      // not a Status: the code alone
    }
    return ApiException.answered(a.code(), reason, message);
  }
}
