package io.nodeatlas.agent.ops;

import java.io.IOException;
import java.io.InputStream;
import java.io.OutputStream;
import java.net.InetSocketAddress;
import java.net.ServerSocket;
import java.net.Socket;
import java.net.SocketException;
import java.net.SocketTimeoutException;
import java.nio.charset.StandardCharsets;
import java.time.Duration;
import java.util.LinkedHashMap;
import java.util.Map;
import java.util.concurrent.ArrayBlockingQueue;
import java.util.concurrent.RejectedExecutionException;
import java.util.concurrent.ThreadPoolExecutor;
import java.util.concurrent.TimeUnit;
import java.util.function.Supplier;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * {@code /healthz} (alias {@code /livez}), {@code /readyz} and {@code /metrics} on an opt-in TCP port. Probes read the status code; {@code ?verbose} lists each check as the
 * Kubernetes components do ({@code [+]registered ok}).
 *
 * <p>A small HTTP/1.1 server of our own rather than the JDK's {@code com.sun.net.httpserver}: that one
 * can bound a request's time only through JVM-wide system properties ({@code sun.net.httpserver.maxReqTime}),
 * and with them unset a client that opens a connection and sends half a request holds a worker for
 * good, so a probe waits behind it and the kubelet restarts a healthy plugin. Here every connection
 * has a deadline for its request head ({@link #READ_DEADLINE}, read timeouts included), the head is
 * bounded ({@link #MAX_HEAD}), {@link #WORKERS} connections are served at once, {@link #QUEUED} more
 * wait, and any beyond are closed at once. So idle or slow connections delay an answer by at most
 * {@link #READ_DEADLINE}, and only when more than {@link #WORKERS} of them are open together. One
 * request per connection ({@code Connection: close}), as probes and scrapers use it.
 */
public final class HealthEndpoints implements AutoCloseable {

  private static final Logger LOG = LoggerFactory.getLogger(HealthEndpoints.class);

  /** How long a connection has to send its whole request head. */
  static final Duration READ_DEADLINE = Duration.ofSeconds(5);
  /** The largest request head (request line and headers) read; probes send a few hundred bytes. */
  static final int MAX_HEAD = 8 * 1024;
  static final int WORKERS = 4;
  static final int QUEUED = 32;

  /**
   * A named check: {@code failure} null means ok, else the reason it fails; {@code note} (null: none) is
   * a detail shown on the check's line when it passes ({@code [+]sharedDevices ok: ...}).
   */
  public record Check(String name, Supplier<String> failure, Supplier<String> note) {
    public Check(String name, Supplier<String> failure) {
      this(name, failure, () -> null);
    }

    /** A check that never fails and only tells something about the agent's state. */
    public static Check note(String name, Supplier<String> note) {
      return new Check(name, () -> null, note);
    }
  }

  private record Response(int status, byte[] body, String type) {
    static Response text(int status, String body) {
      return new Response(status, body.getBytes(StandardCharsets.UTF_8), "text/plain; charset=utf-8");
    }
  }

  private final ServerSocket socket;
  private final ThreadPoolExecutor workers;
  private final Map<String, Check> liveness;
  private final Map<String, Check> readiness;
  private final AgentMetrics metrics;
  private final Thread acceptor;
  private final Duration readDeadline;

  private HealthEndpoints(ServerSocket socket, Map<String, Check> liveness, Map<String, Check> readiness,
      AgentMetrics metrics, Duration readDeadline) {
    this.socket = socket;
    this.readDeadline = readDeadline;
    this.liveness = liveness;
    this.readiness = readiness;
    this.metrics = metrics;
    this.workers = new ThreadPoolExecutor(WORKERS, WORKERS, 30, TimeUnit.SECONDS, new ArrayBlockingQueue<>(QUEUED), r -> {
      Thread t = new Thread(r, "http-endpoints");
      t.setDaemon(true);
      return t;
    });
    workers.allowCoreThreadTimeOut(true);
    this.acceptor = new Thread(this::acceptLoop, "http-accept");
    acceptor.setDaemon(true);
  }

  /**
   * Binds {@code bindAddress:port} (port 0: any free port) and serves. A port already taken is a
   * {@link java.net.BindException}.
   */
  public static HealthEndpoints start(String bindAddress, int port, Map<String, Check> liveness,
      Map<String, Check> readiness, AgentMetrics metrics) throws IOException {
    return start(bindAddress, port, liveness, readiness, metrics, READ_DEADLINE);
  }

  /** {@link #start(String, int, Map, Map, AgentMetrics)} with another deadline for a request head. */
  public static HealthEndpoints start(String bindAddress, int port, Map<String, Check> liveness,
      Map<String, Check> readiness, AgentMetrics metrics, Duration readDeadline) throws IOException {
    ServerSocket socket = new ServerSocket();
    try {
      socket.bind(new InetSocketAddress(bindAddress, port), 64);
    } catch (IOException e) {
      socket.close();
      throw e;
    }
    // Copies in the caller's order: the verbose listing shows the checks in it.
    HealthEndpoints h = new HealthEndpoints(socket, new LinkedHashMap<>(liveness), new LinkedHashMap<>(readiness), metrics, readDeadline);
    h.acceptor.start();
    return h;
  }

  /** The bound port (useful when started on port 0). */
  public int port() {
    return socket.getLocalPort();
  }

  /** The bound address. */
  public InetSocketAddress address() {
    return (InetSocketAddress) socket.getLocalSocketAddress();
  }

  private void acceptLoop() {
    while (!socket.isClosed()) {
      Socket s;
      try {
        s = socket.accept();
      } catch (IOException e) {
        if (!socket.isClosed()) {
          LOG.debug("http accept failed err=\"{}\"", e.getMessage());
        }
        continue;
      }
      try {
        workers.execute(() -> serve(s));
      } catch (RejectedExecutionException e) {
        // Every worker busy and the queue full: refusing this one keeps the queued probes' wait bounded.
        closeQuietly(s);
      }
    }
  }

  private void serve(Socket s) {
    try (s) {
      String head = readHead(s);
      if (head == null) {
        return;
      }
      Response r = answer(head);
      write(s, r, head.startsWith("HEAD "));
    } catch (IOException e) {
      LOG.debug("http connection dropped err=\"{}\"", e.getMessage());
    }
  }

  /** The request head up to the blank line, or null when the client gave none in time or too much. */
  private String readHead(Socket s) throws IOException {
    long deadline = System.nanoTime() + readDeadline.toNanos();
    InputStream in = s.getInputStream();
    byte[] buf = new byte[MAX_HEAD];
    int n = 0;
    while (n < buf.length) {
      long left = TimeUnit.NANOSECONDS.toMillis(deadline - System.nanoTime());
      if (left <= 0) {
        return null;
      }
      s.setSoTimeout((int) Math.max(1, left));
      int got;
      try {
        got = in.read(buf, n, buf.length - n);
      } catch (SocketTimeoutException e) {
        return null;
      }
      if (got < 0) {
        return null;
      }
      n += got;
      String text = new String(buf, 0, n, StandardCharsets.ISO_8859_1);
      int end = text.indexOf("\r\n\r\n");
      if (end < 0) {
        end = text.indexOf("\n\n");
      }
      if (end >= 0) {
        return text.substring(0, end);
      }
    }
    return null;
  }

  private Response answer(String head) throws IOException {
    int eol = head.indexOf('\n');
    String[] line = (eol < 0 ? head : head.substring(0, eol)).trim().split(" ");
    if (line.length != 3 || !line[2].startsWith("HTTP/1.")) {
      return Response.text(400, "bad request\n");
    }
    String method = line[0];
    String target = line[1];
    int q = target.indexOf('?');
    String path = q < 0 ? target : target.substring(0, q);
    String query = q < 0 ? "" : target.substring(q + 1);
    // Exact paths: /healthzzz or /metrics/x is not an endpoint of ours.
    if (!path.equals("/healthz") && !path.equals("/livez") && !path.equals("/readyz") && !path.equals("/metrics")) {
      return Response.text(404, "not found\n");
    }
    if (!"GET".equals(method) && !"HEAD".equals(method)) {
      return Response.text(405, "method not allowed\n");
    }
    if (path.equals("/metrics")) {
      return new Response(200, metrics.scrape(), "text/plain; version=0.0.4; charset=utf-8");
    }
    return checks(path.equals("/readyz") ? readiness : liveness, hasParameter(query, "verbose"));
  }

  private static boolean hasParameter(String query, String name) {
    for (String p : query.split("&")) {
      int eq = p.indexOf('=');
      if ((eq < 0 ? p : p.substring(0, eq)).equals(name)) {
        return true;
      }
    }
    return false;
  }

  private static Response checks(Map<String, Check> checks, boolean verbose) {
    Map<String, String> failures = new LinkedHashMap<>();
    StringBuilder body = new StringBuilder();
    for (Check c : checks.values()) {
      String failure = c.failure().get();
      if (failure == null) {
        String note = c.note().get();
        body.append("[+]").append(c.name()).append(" ok").append(note == null ? "" : ": " + note).append('\n');
      } else {
        failures.put(c.name(), failure);
        body.append("[-]").append(c.name()).append(" failed: ").append(failure).append('\n');
      }
    }
    String summary = failures.isEmpty() ? "ok\n" : "failed: " + String.join(", ", failures.keySet()) + "\n";
    return Response.text(failures.isEmpty() ? 200 : 503, verbose || !failures.isEmpty() ? body + summary : summary);
  }

  private static void write(Socket s, Response r, boolean head) throws IOException {
    String reason = switch (r.status()) {
      case 200 -> "OK";
      case 400 -> "Bad Request";
      case 404 -> "Not Found";
      case 405 -> "Method Not Allowed";
      case 503 -> "Service Unavailable";
      default -> "Status";
    };
    String headers = "HTTP/1.1 " + r.status() + " " + reason + "\r\n"
        + "Content-Type: " + r.type() + "\r\n"
        + "X-Content-Type-Options: nosniff\r\n"
        + "Content-Length: " + r.body().length + "\r\n"
        + "Connection: close\r\n\r\n";
    OutputStream out = s.getOutputStream();
    out.write(headers.getBytes(StandardCharsets.ISO_8859_1));
    if (!head) {
      out.write(r.body());
    }
    out.flush();
    try {
      s.shutdownOutput();
    } catch (SocketException e) {
      // The client went away after its request; nothing left to tell it.
    }
  }

  private static void closeQuietly(Socket s) {
    try {
      s.close();
    } catch (IOException e) {
      // Closing a refused connection; nothing to do.
    }
  }

  @Override
  public void close() {
    try {
      socket.close();
    } catch (IOException e) {
      // Closing on shutdown.
    }
    workers.shutdownNow();
  }
}
