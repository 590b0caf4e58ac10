package io.nodeatlas.agent.api;

import com.fasterxml.jackson.core.JsonFactory;
import com.fasterxml.jackson.core.JsonParser;
import com.fasterxml.jackson.core.JsonToken;
import io.nodeatlas.agent.kubeconfig.ClientCertificate;
import java.io.IOException;
import java.io.InputStream;
import java.io.OutputStream;
import java.net.HttpURLConnection;
import java.net.Proxy;
import java.net.SocketTimeoutException;
import java.net.URI;
import java.time.Duration;
import java.util.Arrays;
import java.util.function.Supplier;
import javax.net.ssl.HttpsURLConnection;
import javax.net.ssl.KeyManager;
import javax.net.ssl.SSLContext;
import javax.net.ssl.SSLSocketFactory;
import javax.net.ssl.TrustManager;

/**
 * The agent's connection to the API server on the JDK's {@code HttpURLConnection}: the kubeconfig's
 * server, CA and client certificate (re-read when rotated on disk: a new certificate gets a new socket
 * factory, so no kept-alive connection keeps the old one) and bearer token (asked for before every
 * request and again after a 401, as client-go's {@code BearerTokenFile} transport does), every request
 * bounded in time and every answer in size. Calls block the calling thread and share the JDK's
 * keep-alive cache with the claim GET; docs/design/api-client.md has the figures.
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
  /**
   * One socket factory per context: {@code HttpURLConnection} keeps a connection alive for the next call
   * only under the same factory instance (its keep-alive key), and {@link SSLContext#getSocketFactory()}
   * makes a new one on every call.
   */
  private volatile SSLSocketFactory sockets;
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

  /**
   * As {@link #exchange(String, String, byte[], String)} within {@code timeout} (each read waits at most
   * that long, and a body still coming after it is refused), reading at most {@code maxBytes}.
   */
  public Answer exchange(String method, String path, byte[] body, String contentType, Duration timeout, int maxBytes)
      throws ApiException {
    long end = System.nanoTime() + timeout.toNanos();
    HttpURLConnection c = send(method, path, body, contentType, timeout);
    try {
      int code = c.getResponseCode();
      long length = c.getContentLengthLong();
      if (length > maxBytes) {
        c.disconnect();
        throw tooLarge(code, method, path, maxBytes);
      }
      InputStream in = code >= 400 ? c.getErrorStream() : c.getInputStream();
      if (in == null) {
        return new Answer(code, new byte[0]);
      }
      try (in) {
        byte[] b = new byte[Math.min(maxBytes + 1, length >= 0 ? (int) length + 1 : 16 << 10)];
        int n = 0;
        for (int k; (k = in.read(b, n, b.length - n)) >= 0; ) {
          n += k;
          if (System.nanoTime() - end > 0) {
            c.disconnect();
            throw ApiException.noAnswer(base + "/", new SocketTimeoutException("the answer took longer than " + timeout));
          }
          if (n == b.length) {
            if (n > maxBytes) {
              c.disconnect();
              throw tooLarge(code, method, path, maxBytes);
            }
            b = Arrays.copyOf(b, (int) Math.min(n + (long) n / 2 + 1, maxBytes + 1L));
          }
        }
        return new Answer(code, n == b.length ? b : Arrays.copyOf(b, n)); // read to the end: kept alive
      }
    } catch (ApiException e) {
      throw e;
    } catch (IOException e) {
      c.disconnect();
      throw ApiException.noAnswer(base + "/", e);
    }
  }

  private static ApiException tooLarge(int code, String method, String path, int maxBytes) {
    return new ApiException(code, "TooLarge", "the answer to " + method + " " + path + " is larger than " + maxBytes
        + " bytes; refused", null);
  }

  /**
   * Opens a GET whose answer is read as it comes (a watch); a status other than 200 is thrown. The
   * caller closes the stream; each read, the answer's headers included, waits at most {@code timeout}
   * and then throws {@link SocketTimeoutException}.
   */
  public InputStream stream(String path, Duration timeout) throws ApiException {
    HttpURLConnection c = send("GET", path, null, null, timeout);
    try {
      int code = c.getResponseCode();
      if (code == 200) {
        return c.getInputStream();
      }
      byte[] b;
      try (InputStream in = c.getErrorStream()) {
        b = in == null ? new byte[0] : in.readNBytes(Math.min(limits.maxBytes(), 64 << 10));
      }
      throw failure(new Answer(code, b));
    } catch (ApiException e) {
      throw e;
    } catch (IOException e) {
      c.disconnect();
      throw ApiException.noAnswer(base + "/", e);
    }
  }

  /** Sends the request with the current token, and once more with a new one after a 401 when it has changed. */
  private HttpURLConnection send(String method, String path, byte[] body, String contentType, Duration timeout)
      throws ApiException {
    String bearer = token == null ? null : token.get();
    HttpURLConnection c = sendOnce(method, path, body, contentType, timeout, bearer);
    if (status(c) == 401 && token != null) {
      String again = token.get();
      if (again != null && !again.equals(bearer)) { // rotated since: once more with the new one
        drain(c);
        c = sendOnce(method, path, body, contentType, timeout, again);
      }
    }
    return c;
  }

  /** The answer's status, or -1 when it has none (the caller's next call on the connection throws why). */
  private static int status(HttpURLConnection c) {
    try {
      return c.getResponseCode();
    } catch (IOException e) {
      return -1;
    }
  }

  /**
   * One request on {@code HttpURLConnection}: no proxy, no redirect, no cache; a body in fixed-length
   * streaming mode, so the JDK never sends a POST twice on a kept-alive connection the server closed.
   */
  private HttpURLConnection sendOnce(String method, String path, byte[] body, String contentType, Duration timeout,
      String bearer) throws ApiException {
    HttpURLConnection c = null;
    try {
      c = (HttpURLConnection) URI.create(base + path).toURL().openConnection(Proxy.NO_PROXY);
      authorize(c, bearer);
      c.setInstanceFollowRedirects(false);
      c.setUseCaches(false);
      c.setConnectTimeout(millis(limits.connect()));
      c.setReadTimeout(millis(timeout));
      c.setRequestMethod(method);
      if (body != null) {
        c.setRequestProperty("Content-Type", contentType);
        c.setDoOutput(true);
        c.setFixedLengthStreamingMode(body.length);
        try (OutputStream out = c.getOutputStream()) {
          out.write(body);
        }
      }
      return c;
    } catch (ApiException e) {
      throw e;
    } catch (IOException | RuntimeException e) {
      if (c != null) {
        c.disconnect();
      }
      throw ApiException.noAnswer(base + "/", e);
    }
  }

  private static int millis(Duration d) {
    return (int) Math.max(1, Math.min(Integer.MAX_VALUE, d.toMillis()));
  }

  /** Reads what is left of a refused answer, so its connection can serve the next request. */
  private static void drain(HttpURLConnection c) {
    try (InputStream in = c.getErrorStream()) {
      if (in != null) {
        in.readNBytes(64 << 10);
      }
    } catch (IOException e) {
      // the connection is dropped instead of reused
    }
  }

  /**
   * The TLS socket factory with the kubeconfig's CA and client certificate, built again when the
   * certificate was rotated on disk (a new factory, so no kept-alive connection presents the old one).
   */
  private SSLSocketFactory socketFactory() throws ApiException {
    long g = -1;
    if (cert != null) {
      cert.refresh();
      g = cert.generation();
    }
    SSLSocketFactory f = sockets;
    if (f != null && (cert == null || g == generation)) {
      return f;
    }
    synchronized (lock) {
      if (sockets == null || cert != null && g != generation) {
        try {
          SSLContext context = SSLContext.getInstance("TLS");
          context.init(cert == null ? null : new KeyManager[] {cert}, trust, null);
          sockets = context.getSocketFactory();
          generation = g;
        } catch (java.security.GeneralSecurityException e) {
          throw new ApiException(0, null, "cannot set up TLS for " + base + ": " + e.getMessage(), e);
        }
      }
      return sockets;
    }
  }

  /**
   * Sets what every request to the API server carries on a connection opened to it: the TLS socket
   * factory ({@link #socketFactory()}), {@code Accept: application/json} and {@code bearer} (none when
   * null or empty).
   */
  public void authorize(HttpURLConnection c, String bearer) throws ApiException {
    if (c instanceof HttpsURLConnection s) {
      s.setSSLSocketFactory(socketFactory());
    }
    c.setRequestProperty("Accept", "application/json");
    if (bearer != null && !bearer.isEmpty()) {
      c.setRequestProperty("Authorization", "Bearer " + bearer);
    }
  }

  /** The bearer token to send now (null: none); after a 401, asking again gives a rotated one. */
  public String token() {
    return token == null ? null : token.get();
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
