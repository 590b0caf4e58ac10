package io.nodeatlas.agent.claims;

import io.fabric8.kubernetes.client.Config;
import io.fabric8.kubernetes.client.RequestConfig;
import io.fabric8.kubernetes.client.http.BasicBuilder;
import io.fabric8.kubernetes.client.http.HttpClient;
import io.fabric8.kubernetes.client.http.HttpRequest;
import io.fabric8.kubernetes.client.http.HttpResponse;
import io.fabric8.kubernetes.client.http.Interceptor;
import io.fabric8.kubernetes.client.internal.SSLUtils;
import io.fabric8.kubernetes.client.utils.HttpClientUtils;
import io.nodeatlas.agent.kubeconfig.ClientCertificate;
import io.nodeatlas.agent.kubeconfig.KubeconfigAuth;
import java.io.IOException;
import java.net.HttpURLConnection;
import java.net.URI;
import java.util.ArrayList;
import java.util.Collection;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.Optional;
import java.util.TreeMap;
import java.util.concurrent.CancellationException;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.TimeoutException;
import javax.net.ssl.HttpsURLConnection;
import javax.net.ssl.SSLSocketFactory;

/**
 * A claim GET on the calling thread, with the JDK's blocking {@link HttpURLConnection} (HTTP/1.1,
 * connections kept alive between calls by the JDK), for the configurations it can serve exactly as
 * fabric8's client would: the same TLS material ({@link SSLUtils#sslContext(Config)}: CA, client
 * certificate) and the same request headers, made by fabric8's own interceptors
 * ({@link HttpClientUtils#createApplicableInterceptors}: bearer token or basic credentials, custom
 * headers, impersonation, token refresh from the kubeconfig's exec plugin, OIDC provider or service
 * account file), which also get their say after a failed answer (a refreshed token) as in fabric8's
 * client: one more send when one of them asks for it.
 *
 * <p>A speed path beside {@link Fabric8ClaimGet}: bench/prepare.sh's Prepare p99 rows (N=1 and N=32)
 * fail by a fifth more without it (docs/design/speed-paths.md).
 *
 * <p>Time: the try's end closes its connection wherever the try is (connecting, the TLS handshake,
 * the status line and headers, the body), so a server that sends a byte at a time, each within the
 * read timeout, cannot stretch a try past its time. An abandoned call budget closes the connection at
 * once. Size: at most the bound is
 * read, and the connection of an answer over it is closed rather than kept.
 *
 * <p>Not taken (fabric8's client serves these): a proxy, TLS without certificate or host name
 * checks, a TLS server name of its own, and any master URL but {@code http} or {@code https}.
 */
final class BlockingClaimGet implements ClaimGet {

  private final Collection<Interceptor> interceptors;
  private final Interceptor.RequestTags tags;
  private final Tls tls;
  /** Builds the request that the interceptors look at; nothing is sent through it. */
  private final HttpClient requests;
  private final UrlConnectionTry tries;

  private BlockingClaimGet(Collection<Interceptor> interceptors, RequestConfig requestConfig, Tls tls,
      HttpClient requests, long attemptTimeoutNanos, int maxBytes) {
    this.interceptors = interceptors;
    this.tags = new Interceptor.RequestTags() {
      @Override
      public <T> T getTag(Class<T> type) {
        return type == RequestConfig.class ? type.cast(requestConfig) : null;
      }
    };
    this.tls = tls;
    this.requests = requests;
    this.tries = new UrlConnectionTry(attemptTimeoutNanos, maxBytes);
  }

  /**
   * This way for {@code config}, or empty where fabric8's client must serve (see the class comment).
   * {@code factory} makes the clients of a remote token refresh (OIDC), as fabric8's interceptors do.
   */
  static Optional<ClaimGet> of(Config config, RequestConfig requestConfig, HttpClient.Factory factory,
      HttpClient requests, long attemptTimeoutNanos, int maxBytes) {
    String master = config.getMasterUrl() == null ? "" : config.getMasterUrl().toLowerCase(Locale.ROOT);
    boolean https = master.startsWith("https://");
    if (!https && !master.startsWith("http://")) {
      return Optional.empty();
    }
    if (config.getHttpProxy() != null || config.getHttpsProxy() != null || config.isTrustCerts()
        || config.isDisableHostnameVerification() || config.getTlsServerName() != null) {
      return Optional.empty();
    }
    Tls tls = null;
    if (https) {
      try {
        tls = new Tls(config, config.getAdditionalProperties().get(KubeconfigAuth.CLIENT_CERTIFICATE) instanceof ClientCertificate c
            ? c : null);
      } catch (Exception | LinkageError e) {
        return Optional.empty(); // fabric8's client reports the same material's problem on its first call
      }
    }
    Collection<Interceptor> interceptors = HttpClientUtils.createApplicableInterceptors(config, factory).values();
    return Optional.of(new BlockingClaimGet(List.copyOf(interceptors), requestConfig, tls, requests,
        attemptTimeoutNanos, maxBytes));
  }

  /**
   * The TLS of the claim GETs: fabric8's CA and, where the kubeconfig has one, the agent's client
   * certificate ({@link ClientCertificate}, re-read when rotated). A rotated certificate gets a new
   * socket factory, and with it new connections: the JDK keeps alive connections per socket factory,
   * and one kept alive still speaks with the certificate it was opened with.
   */
  private static final class Tls {
    private final javax.net.ssl.TrustManager[] trust;
    private final ClientCertificate cert;
    private volatile SSLSocketFactory factory;
    private volatile long generation;

    Tls(Config config, ClientCertificate cert) throws Exception {
      this.cert = cert;
      if (cert == null) {
        trust = null;
        factory = SSLUtils.sslContext(config).getSocketFactory();
      } else {
        trust = SSLUtils.trustManagers(config);
        generation = cert.generation();
        factory = SSLUtils.sslContext(new javax.net.ssl.KeyManager[] {cert}, trust).getSocketFactory();
      }
    }

    /** The factory for the next try, after a look at the certificate's files. */
    SSLSocketFactory current() {
      if (cert == null) {
        return factory;
      }
      cert.refresh();
      long g = cert.generation();
      if (g != generation) {
        synchronized (this) {
          if (g != generation) {
            factory = SSLUtils.sslContext(new javax.net.ssl.KeyManager[] {cert}, trust).getSocketFactory();
            generation = g;
          }
        }
      }
      return factory;
    }

    /** Whether the certificate changed since {@code used} was handed out (a 401 may then pass with the new one). */
    boolean changedSince(SSLSocketFactory used) {
      return current() != used;
    }
  }

  @Override
  public Answer fetch(String url, long limitNanos, CallBudget budget) {
    long end = System.nanoTime() + limitNanos;
    Headers headers = new Headers(URI.create(url));
    headers.setHeader("Accept", "application/json");
    HttpRequest request = requests.newHttpRequestBuilder().uri(url).header("Accept", "application/json").build();
    try {
      for (Interceptor i : interceptors) {
        i.before(headers, request, tags);
      }
    } catch (RuntimeException e) {
      // No credentials now (an exec plugin that failed, an unreadable token file): as fabric8's client
      // fails the request, this try fails, and the next may find them.
      return Answer.failed("no credentials for the API server: " + ClaimGet.describe(e), true);
    }
    SSLSocketFactory used = tls == null ? null : tls.current();
    Answer a = send(headers, used, end, limitNanos, budget);
    if (a.failure() == null && !HttpResponse.isSuccessful(a.code())) {
      // As fabric8's client: the interceptors may refresh a token; and a client certificate rotated on
      // disk since this try began is sent once more on a new connection.
      boolean again = retryAfterInterceptors(headers, a, request, end, budget);
      if (a.code() == HttpURLConnection.HTTP_UNAUTHORIZED && tls != null && tls.changedSince(used)) {
        again = !budget.over();
      }
      if (again) {
        a = send(headers, tls == null ? null : tls.current(), end, limitNanos, budget);
      }
    }
    return a;
  }

  /**
   * As fabric8's client after an unsuccessful answer: every interceptor may change the request (a token
   * refreshed after a 401); true when one of them asks for it to be sent again.
   */
  private boolean retryAfterInterceptors(Headers headers, Answer a, HttpRequest request, long end, CallBudget budget) {
    HttpResponse<byte[]> failed = new Failed(a.code(), request);
    boolean again = false;
    for (Interceptor i : interceptors) {
      CompletableFuture<Boolean> f;
      try {
        f = i.afterFailure(headers, failed, tags);
      } catch (RuntimeException e) {
        return false; // no fresh credentials: the answer stands
      }
      try {
        again |= Boolean.TRUE.equals(budget.await(f, end));
      } catch (InterruptedException e) {
        Thread.currentThread().interrupt();
        return false;
      } catch (ExecutionException | TimeoutException | CancellationException e) {
        return false; // no fresh credentials in time: the answer stands
      }
    }
    return again && !budget.over();
  }

  private Answer send(Headers headers, SSLSocketFactory tls, long end, long limitNanos, CallBudget budget) {
    return tries.send(headers.uri, conn -> {
      if (conn instanceof HttpsURLConnection s) {
        s.setSSLSocketFactory(tls);
      }
      headers.values.forEach((name, values) -> values.forEach(v -> conn.addRequestProperty(name, v)));
    }, end, limitNanos, budget);
  }

  /**
   * The request as fabric8's interceptors change it: headers added or replaced (names compared without
   * case, as HTTP does) and, after a failure, perhaps another URI.
   */
  private static final class Headers implements BasicBuilder {
    private final Map<String, List<String>> values = new TreeMap<>(String.CASE_INSENSITIVE_ORDER);
    private URI uri;

    Headers(URI uri) {
      this.uri = uri;
    }

    @Override
    public BasicBuilder uri(URI u) {
      uri = u;
      return this;
    }

    @Override
    public BasicBuilder header(String name, String value) {
      values.computeIfAbsent(name, k -> new ArrayList<>()).add(value);
      return this;
    }

    @Override
    public BasicBuilder setHeader(String name, String value) {
      List<String> one = new ArrayList<>();
      one.add(value);
      values.put(name, one);
      return this;
    }
  }

  /** What the interceptors see of an unsuccessful answer: its status (they read nothing else of it). */
  private record Failed(int code, HttpRequest request) implements HttpResponse<byte[]> {
    @Override
    public byte[] body() {
      return new byte[0];
    }

    @Override
    public Optional<HttpResponse<?>> previousResponse() {
      return Optional.empty();
    }

    @Override
    public List<String> headers(String key) {
      return List.of();
    }

    @Override
    public Map<String, List<String>> headers() {
      return Map.of();
    }
  }
}
