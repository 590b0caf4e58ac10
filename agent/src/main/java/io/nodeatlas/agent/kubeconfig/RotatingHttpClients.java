package io.nodeatlas.agent.kubeconfig;

import io.fabric8.kubernetes.client.http.AsyncBody;
import io.fabric8.kubernetes.client.http.HttpClient;
import io.fabric8.kubernetes.client.http.HttpRequest;
import io.fabric8.kubernetes.client.http.HttpResponse;
import io.fabric8.kubernetes.client.http.Interceptor;
import io.fabric8.kubernetes.client.http.TlsVersion;
import io.fabric8.kubernetes.client.http.WebSocket;
import java.net.InetSocketAddress;
import java.nio.ByteBuffer;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.TimeUnit;
import java.util.function.UnaryOperator;
import javax.net.ssl.KeyManager;
import javax.net.ssl.TrustManager;

/**
 * fabric8's HTTP clients, made again when the client certificate changes on disk, as client-go closes
 * its connections when its certificate rotates (transport's {@code dynamicClientCert}): a connection
 * kept alive, or an HTTP/2 connection that carries every call, would otherwise present the certificate
 * it was opened with until it closes, and every call on it would get 401 once that one expired. The
 * next request after a change goes on a new client (new connections, the new certificate); requests
 * already running on the old one (a watch) finish there.
 */
public final class RotatingHttpClients implements HttpClient.Factory {

  private final HttpClient.Factory delegate;
  private final ClientCertificate certificate;

  public RotatingHttpClients(HttpClient.Factory delegate, ClientCertificate certificate) {
    this.delegate = delegate;
    this.certificate = certificate;
  }

  @Override
  public HttpClient.Builder newBuilder() {
    return new Builder(delegate.newBuilder());
  }

  /** Sets up the wrapped builder; {@link #build} makes a client that builds it again after a rotation. */
  private final class Builder implements HttpClient.Builder {
    private final HttpClient.Builder inner;
    private KeyManager[] keyManagers;
    private TrustManager[] trustManagers;

    Builder(HttpClient.Builder inner) {
      this.inner = inner;
    }

    @Override
    public HttpClient build() {
      return new Rotating(this::fresh, certificate);
    }

    /**
     * A client with a TLS context of its own: a context's session cache would resume the old session on
     * a new connection, and a resumed session keeps the certificate it was made with.
     */
    private HttpClient fresh() {
      if (keyManagers != null) {
        inner.sslContext(keyManagers, trustManagers);
      }
      return inner.build();
    }

    @Override
    public HttpClient.Builder connectTimeout(long connectTimeout, TimeUnit unit) {
      inner.connectTimeout(connectTimeout, unit);
      return this;
    }

    @Override
    public HttpClient.Builder addOrReplaceInterceptor(String name, Interceptor interceptor) {
      inner.addOrReplaceInterceptor(name, interceptor);
      return this;
    }

    @Override
    public HttpClient.Builder authenticatorNone() {
      inner.authenticatorNone();
      return this;
    }

    @Override
    public HttpClient.Builder sslContext(KeyManager[] keyManagers, TrustManager[] trustManagers) {
      this.keyManagers = keyManagers;
      this.trustManagers = trustManagers;
      inner.sslContext(keyManagers, trustManagers);
      return this;
    }

    @Override
    public HttpClient.Builder followAllRedirects() {
      inner.followAllRedirects();
      return this;
    }

    @Override
    public HttpClient.Builder proxyAddress(InetSocketAddress proxyAddress) {
      inner.proxyAddress(proxyAddress);
      return this;
    }

    @Override
    public HttpClient.Builder proxyAuthorization(String credentials) {
      inner.proxyAuthorization(credentials);
      return this;
    }

    @Override
    public HttpClient.Builder tlsVersions(TlsVersion... tlsVersions) {
      inner.tlsVersions(tlsVersions);
      return this;
    }

    @Override
    public HttpClient.Builder tlsServerName(String serverName) {
      inner.tlsServerName(serverName);
      return this;
    }

    @Override
    public HttpClient.Builder preferHttp11() {
      inner.preferHttp11();
      return this;
    }

    @Override
    public HttpClient.Builder proxyType(HttpClient.ProxyType type) {
      inner.proxyType(type);
      return this;
    }

    @Override
    public HttpClient.Builder tag(Object value) {
      inner.tag(value);
      return this;
    }
  }

  /** A client that is {@code make}'s latest, made again once the certificate changed. */
  private static final class Rotating implements HttpClient {
    private final java.util.function.Supplier<HttpClient> make;
    private final ClientCertificate certificate;
    private volatile HttpClient current;
    private volatile long generation;

    Rotating(java.util.function.Supplier<HttpClient> make, ClientCertificate certificate) {
      this.make = make;
      this.certificate = certificate;
      this.generation = certificate.generation();
      this.current = make.get();
    }

    HttpClient current() {
      certificate.refresh();
      long g = certificate.generation();
      if (g != generation) {
        synchronized (this) {
          if (g != generation) {
            current = make.get();
            generation = g;
          }
        }
      }
      return current;
    }

    @Override
    public void close() {
      current.close();
    }

    @Override
    public DerivedClientBuilder newBuilder() {
      return new Derived(this, new ArrayList<>());
    }

    @Override
    public <T> CompletableFuture<HttpResponse<T>> sendAsync(HttpRequest request, Class<T> type) {
      return current().sendAsync(request, type);
    }

    @Override
    public CompletableFuture<HttpResponse<AsyncBody>> consumeBytes(HttpRequest request,
        AsyncBody.Consumer<List<ByteBuffer>> consumer) {
      return current().consumeBytes(request, consumer);
    }

    @Override
    public WebSocket.Builder newWebSocketBuilder() {
      return current().newWebSocketBuilder();
    }

    @Override
    public HttpRequest.Builder newHttpRequestBuilder() {
      return current().newHttpRequestBuilder();
    }

    @Override
    public boolean isClosed() {
      return current.isClosed();
    }
  }

  /** A derived client (tags, interceptors of one kind of call): derived again from the root's latest client. */
  private static final class Derived implements HttpClient.DerivedClientBuilder {
    private final Rotating root;
    private final List<UnaryOperator<HttpClient.DerivedClientBuilder>> steps;

    Derived(Rotating root, List<UnaryOperator<HttpClient.DerivedClientBuilder>> steps) {
      this.root = root;
      this.steps = steps;
    }

    @Override
    public HttpClient build() {
      List<UnaryOperator<HttpClient.DerivedClientBuilder>> recorded = List.copyOf(steps);
      return new Rotating(() -> {
        HttpClient.DerivedClientBuilder b = root.current().newBuilder();
        for (UnaryOperator<HttpClient.DerivedClientBuilder> step : recorded) {
          b = step.apply(b);
        }
        return b.build();
      }, root.certificate);
    }

    @Override
    public HttpClient.DerivedClientBuilder addOrReplaceInterceptor(String name, Interceptor interceptor) {
      steps.add(b -> b.addOrReplaceInterceptor(name, interceptor));
      return this;
    }

    @Override
    public HttpClient.DerivedClientBuilder authenticatorNone() {
      steps.add(HttpClient.DerivedClientBuilder::authenticatorNone);
      return this;
    }

    @Override
    public HttpClient.DerivedClientBuilder tag(Object value) {
      steps.add(b -> b.tag(value));
      return this;
    }
  }
}
