package io.nodeatlas.agent.claims;

import io.fabric8.kubernetes.client.http.AsyncBody;
import io.fabric8.kubernetes.client.http.HttpClient;
import io.fabric8.kubernetes.client.http.HttpRequest;
import io.fabric8.kubernetes.client.http.HttpResponse;
import java.nio.ByteBuffer;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.CancellationException;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.TimeoutException;

/**
 * A claim GET through fabric8's HTTP client, for every configuration {@link BlockingClaimGet} does not
 * take (proxies, TLS without verification): the bytes are counted as they arrive and the read stops
 * past the bound; the JDK client's own request timeout ends at the headers, so the whole try is waited
 * for with its time limit.
 */
final class Fabric8ClaimGet implements ClaimGet {

  private final HttpClient http;
  private final long attemptTimeoutNanos;
  private final int maxBytes;

  /** {@code http}: a client whose own retries are off (the lookup's are bounded by the call's budget). */
  Fabric8ClaimGet(HttpClient http, long attemptTimeoutNanos, int maxBytes) {
    this.http = http;
    this.attemptTimeoutNanos = attemptTimeoutNanos;
    this.maxBytes = maxBytes;
  }

  @Override
  public Answer fetch(String url, long limitNanos, CallBudget budget) {
    long end = System.nanoTime() + limitNanos;
    HttpRequest request = http.newHttpRequestBuilder().uri(url).header("Accept", "application/json")
        .timeout(Math.max(1, TimeUnit.NANOSECONDS.toMillis(limitNanos)), TimeUnit.MILLISECONDS).build();
    BoundedBody body = new BoundedBody(maxBytes);
    CompletableFuture<HttpResponse<AsyncBody>> sent = http.consumeBytes(request, body);
    HttpResponse<AsyncBody> response = null;
    try {
      response = budget.await(sent, end);
      response.body().consume();
      budget.await(response.body().done(), end);
      if (body.tooLarge) {
        return Answer.tooLarge(maxBytes);
      }
      return Answer.of(response.code(), body.chunks);
    } catch (TimeoutException e) {
      cancel(sent, response);
      return Answer.timedOut(limitNanos, attemptTimeoutNanos, budget);
    } catch (CancellationException e) {
      cancel(sent, response);
      return Answer.failed(budget.why(), false);
    } catch (InterruptedException e) {
      Thread.currentThread().interrupt();
      cancel(sent, response);
      return Answer.failed("interrupted", false);
    } catch (ExecutionException e) {
      cancel(sent, response);
      if (body.tooLarge) {
        return Answer.tooLarge(maxBytes);
      }
      Throwable cause = e.getCause() == null ? e : e.getCause();
      return Answer.failed(ClaimGet.describe(cause), true);
    }
  }

  private static void cancel(CompletableFuture<HttpResponse<AsyncBody>> sent, HttpResponse<AsyncBody> response) {
    if (response != null) {
      response.body().cancel();
    }
    sent.cancel(true);
  }

  /** Collects the answer's chunks, and stops reading once they exceed the bound. */
  private static final class BoundedBody implements AsyncBody.Consumer<List<ByteBuffer>> {
    private final int maxBytes;
    private final List<ByteBuffer> chunks = new ArrayList<>();
    private long bytes;
    private volatile boolean tooLarge;

    BoundedBody(int maxBytes) {
      this.maxBytes = maxBytes;
    }

    @Override
    public void consume(List<ByteBuffer> buffers, AsyncBody body) {
      synchronized (this) {
        for (ByteBuffer b : buffers) {
          bytes += b.remaining();
          if (bytes > maxBytes) {
            tooLarge = true;
            chunks.clear();
            body.cancel();
            return;
          }
          // The client may reuse its buffers: keep a copy of exactly what arrived.
          ByteBuffer copy = ByteBuffer.allocate(b.remaining());
          copy.put(b).flip();
          chunks.add(copy);
        }
      }
      body.consume();
    }
  }
}
