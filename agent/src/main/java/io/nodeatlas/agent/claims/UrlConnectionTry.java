package io.nodeatlas.agent.claims;

import io.nodeatlas.agent.api.ApiException;
import io.nodeatlas.agent.claims.ClaimGet.Answer;
import java.io.IOException;
import java.io.InputStream;
import java.net.HttpURLConnection;
import java.net.Proxy;
import java.net.SocketTimeoutException;
import java.net.URI;
import java.nio.ByteBuffer;
import java.util.Arrays;
import java.util.List;
import java.util.concurrent.TimeUnit;

/**
 * One try of a claim GET on the calling thread with the JDK's blocking {@link HttpURLConnection}, for
 * {@link BlockingClaimGet} (fabric8's TLS and headers) and {@link ConnectionClaimGet} (the agent's own
 * connection). The try's end closes its connection wherever the try is (connecting, the TLS handshake,
 * the status line, the body: the read timeout restarts with every byte, so a timer bounds an answer sent
 * a byte at a time); an abandoned call budget closes it at once; at most {@code maxBytes} are read, and
 * a connection is kept alive for the next call only when its whole answer was read.
 */
final class UrlConnectionTry {

  /** The first buffer of an answer of unknown length (chunked): a claim is a few KiB; larger ones grow it. */
  private static final int FIRST_READ = 16 << 10;

  /** Sets a request's TLS and headers on its connection before it is opened. */
  interface Request {
    void apply(HttpURLConnection conn) throws IOException;
  }

  private final long attemptTimeoutNanos;
  private final int maxBytes;
  /**
   * Closes a try's connection at the try's end: one watching thread for all tries, woken only by an end
   * earlier than the one it waits for (the socket timeouts bound each wait on the calling thread).
   */
  final TryDeadlines deadlines = new TryDeadlines("claim-get-deadline");

  UrlConnectionTry(long attemptTimeoutNanos, int maxBytes) {
    this.attemptTimeoutNanos = attemptTimeoutNanos;
    this.maxBytes = maxBytes;
  }

  /** GETs {@code uri}, set up by {@code request}, by {@code end} ({@link System#nanoTime()}). */
  Answer send(URI uri, Request request, long end, long limitNanos, CallBudget budget) {
    long left = end - System.nanoTime();
    if (budget.over()) {
      return Answer.failed(budget.why(), false);
    }
    if (left <= 0) {
      return Answer.timedOut(limitNanos, attemptTimeoutNanos, budget);
    }
    Exchange x = new Exchange();
    boolean watched = false;
    try {
      HttpURLConnection conn = (HttpURLConnection) uri.toURL().openConnection(Proxy.NO_PROXY);
      conn.setInstanceFollowRedirects(false);
      conn.setUseCaches(false);
      int ms = (int) Math.max(1, Math.min(Integer.MAX_VALUE, TimeUnit.NANOSECONDS.toMillis(left)));
      conn.setConnectTimeout(ms);
      conn.setReadTimeout(ms);
      request.apply(conn);
      x.open(conn);
      budget.abandoned().thenRun(x::abort);
      deadlines.watch(x, end);
      watched = true;
      int code = conn.getResponseCode();
      InputStream in = code >= 400 ? conn.getErrorStream() : conn.getInputStream();
      if (in == null) {
        x.finish(null);
        return Answer.of(code, List.of());
      }
      return read(conn, in, x, code, end, limitNanos, budget);
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
      if (watched) {
        deadlines.done(x);
      }
    }
  }

  /**
   * The body, sized by Content-Length where the server sends one (one more byte shows a longer body),
   * else grown by halves: a 1.4 MB claim costs 1.4 MB, not the bound, while it is held.
   */
  private Answer read(HttpURLConnection conn, InputStream in, Exchange x, int code, long end, long limitNanos,
      CallBudget budget) throws IOException {
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
  }

  /**
   * One try's connection: closed when the try fails or the budget is abandoned, but never after the
   * try is done, when the JDK may already have handed the kept-alive connection to another call.
   */
  private static final class Exchange implements TryDeadlines.Expiring {
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

    /** The try's time is over: closes the connection unless the try is done. */
    @Override
    public void expire() {
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

    /** Marks the try done, then closes the answer's stream, which gives the connection back to the JDK. */
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
