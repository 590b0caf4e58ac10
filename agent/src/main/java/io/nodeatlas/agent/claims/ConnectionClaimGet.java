package io.nodeatlas.agent.claims;

import io.nodeatlas.agent.api.ApiConnection;
import io.nodeatlas.agent.api.ApiException;
import java.io.IOException;
import java.io.InputStream;
import java.net.HttpURLConnection;
import java.net.Proxy;
import java.net.SocketTimeoutException;
import java.net.URI;
import java.nio.ByteBuffer;
import java.util.Arrays;
import java.util.List;
import java.util.concurrent.ScheduledExecutorService;
import java.util.concurrent.ScheduledFuture;
import java.util.concurrent.TimeUnit;
import javax.net.ssl.HttpsURLConnection;

/**
 * The claim GET with the agent's own {@link ApiConnection}'s TLS material and token, on the calling
 * thread ({@code HttpURLConnection}, as {@link BlockingClaimGet}: no hand-off between threads, see
 * docs/design/speed-paths.md): the try's time bounds the whole exchange (a timer closes a connection
 * that dribbles), the answer is read up to the bound, a 401 is tried once more when the token changed.
 */
final class ConnectionClaimGet implements ClaimGet {

  private static final int FIRST_READ = 16 << 10;
  private static final ScheduledExecutorService DEADLINES = java.util.concurrent.Executors.newSingleThreadScheduledExecutor(r -> {
    Thread t = new Thread(r, "claim-get-deadline");
    t.setDaemon(true);
    return t;
  });

  private final ApiConnection api;
  private final int maxBytes;
  private final long attemptTimeoutNanos;

  ConnectionClaimGet(ApiConnection api, long attemptTimeoutNanos, int maxBytes) {
    this.api = api;
    this.maxBytes = maxBytes;
    this.attemptTimeoutNanos = attemptTimeoutNanos;
  }

  @Override
  public Answer fetch(String url, long limitNanos, CallBudget budget) {
    if (!url.startsWith(api.base() + "/")) {
      return Answer.failed("not a URL of " + api.base() + ": " + url, false);
    }
    long end = System.nanoTime() + limitNanos;
    String token = api.token();
    Answer a = send(url, token, end, limitNanos, budget);
    if (a.failure() == null && a.code() == 401) {
      String again = api.token();
      if (again != null && !again.equals(token) && !budget.over()) {
        return send(url, again, end, limitNanos, budget); // rotated since: once more with the new one
      }
    }
    return a;
  }

  private Answer send(String url, String token, long end, long limitNanos, CallBudget budget) {
    long left = end - System.nanoTime();
    if (budget.over()) {
      return Answer.failed(budget.why(), false);
    }
    if (left <= 0) {
      return Answer.timedOut(limitNanos, attemptTimeoutNanos, budget);
    }
    Exchange x = new Exchange();
    ScheduledFuture<?> timer = null;
    try {
      HttpURLConnection conn = connection(url, token, left);
      x.open(conn);
      budget.abandoned().thenRun(x::abort);
      // The read timeout restarts with every byte: only this bounds an answer sent a byte at a time.
      timer = DEADLINES.schedule(x::expire, Math.max(1, end - System.nanoTime()), TimeUnit.NANOSECONDS);
      int code = conn.getResponseCode();
      InputStream in = code >= 400 ? conn.getErrorStream() : conn.getInputStream();
      if (in == null) {
        x.finish(null);
        return Answer.of(code, List.of());
      }
      long length = conn.getContentLengthLong();
      if (length > maxBytes) {
        x.abort();
        return Answer.tooLarge(maxBytes);
      }
      byte[] buf = new byte[length >= 0 ? (int) length + 1 : FIRST_READ];
      int n = 0;
      while (true) {
        if (n == buf.length) {
          if (buf.length > maxBytes) {
            x.abort();
            return Answer.tooLarge(maxBytes);
          }
          buf = Arrays.copyOf(buf, (int) Math.min(buf.length + (long) buf.length / 2 + 1, maxBytes + 1L));
        }
        int k = in.read(buf, n, buf.length - n);
        if (k < 0) {
          break;
        }
        n += k;
        if (System.nanoTime() - end > 0) {
          x.abort();
          return Answer.timedOut(limitNanos, attemptTimeoutNanos, budget);
        }
      }
      if (n > maxBytes) {
        x.abort();
        return Answer.tooLarge(maxBytes);
      }
      x.finish(in); // the whole answer is read: the JDK keeps the connection for the next call
      return Answer.of(code, List.of(ByteBuffer.wrap(buf, 0, n)));
    } catch (ApiException e) {
      x.abort();
      return Answer.failed(e.getMessage(), false);
    } catch (IOException | RuntimeException e) {
      x.abort();
      if (budget.abandoned().isDone()) {
        return Answer.failed(budget.why(), false);
      }
      if (e instanceof SocketTimeoutException || x.expired() || System.nanoTime() - end >= 0) {
        return Answer.timedOut(limitNanos, attemptTimeoutNanos, budget);
      }
      return Answer.failed(ClaimGet.describe(e), true);
    } finally {
      if (timer != null) {
        timer.cancel(false);
      }
    }
  }

  /** An unopened GET of {@code url} with the kubeconfig's TLS and {@code token}, bounded by {@code leftNanos}. */
  private HttpURLConnection connection(String url, String token, long leftNanos) throws IOException {
    HttpURLConnection conn = (HttpURLConnection) URI.create(url).toURL().openConnection(Proxy.NO_PROXY);
    if (conn instanceof HttpsURLConnection s) {
      s.setSSLSocketFactory(api.socketFactory());
    }
    conn.setInstanceFollowRedirects(false);
    conn.setUseCaches(false);
    int ms = (int) Math.max(1, Math.min(Integer.MAX_VALUE, TimeUnit.NANOSECONDS.toMillis(leftNanos)));
    conn.setConnectTimeout(ms);
    conn.setReadTimeout(ms);
    conn.setRequestProperty("Accept", "application/json");
    if (token != null && !token.isEmpty()) {
      conn.setRequestProperty("Authorization", "Bearer " + token);
    }
    return conn;
  }

  /** One try's connection: closed when the try fails, never after it is done (the JDK may reuse it). */
  private static final class Exchange {
    private HttpURLConnection conn;
    private boolean done;
    private boolean expired;

    synchronized void open(HttpURLConnection c) {
      conn = c;
    }

    synchronized void abort() {
      if (!done && conn != null) {
        done = true;
        conn.disconnect();
      }
    }

    void expire() {
      synchronized (this) {
        if (done) {
          return;
        }
        expired = true;
      }
      abort();
    }

    synchronized boolean expired() {
      return expired;
    }

    void finish(InputStream in) throws IOException {
      synchronized (this) {
        if (done) {
          return;
        }
        done = true;
      }
      if (in != null) {
        in.close();
      }
    }
  }
}
