package io.nodeatlas.agent.ops;

import io.fabric8.kubernetes.api.model.Status;
import io.fabric8.kubernetes.client.KubernetesClientException;

/**
 * An API call's failure as one line that says what happened: the HTTP status and the API server's own
 * {@code Status} (reason and message, {@code meta/v1 Status}), or, when no answer came, the cause
 * (connection refused, timeout, TLS). fabric8's own text ("An error has occurred.", "Operation: [get]
 * ... failed.") names neither.
 */
public final class ApiErrors {

  private ApiErrors() {}

  public static String describe(Throwable t) {
    return describe(t, null);
  }

  /**
   * The same, naming {@code server} (the API server's URL, null: unknown) when no answer came from it,
   * so an unreachable server is reported where it is: {@code no answer from https://10.0.0.1:6443/:
   * connection refused}.
   */
  public static String describe(Throwable t, java.net.URL server) {
    String from = server == null ? "" : " from " + server;
    if (!(t instanceof KubernetesClientException e)) {
      return server == null ? root(t) : "no answer" + from + ": " + root(t);
    }
    StringBuilder m = new StringBuilder();
    Status status = e.getStatus();
    if (e.getCode() > 0) {
      m.append("HTTP ").append(e.getCode());
    }
    if (status != null && status.getReason() != null && !status.getReason().isBlank()) {
      m.append(m.length() > 0 ? " " : "").append(status.getReason());
    }
    String said = status != null && status.getMessage() != null && !status.getMessage().isBlank() ? status.getMessage() : null;
    if (said != null) {
      m.append(m.length() > 0 ? ": " : "").append(said);
    }
    if (e.getCause() != null) {
      m.append(m.length() > 0 ? " (" + root(e.getCause()) + ")" : "no answer" + from + ": " + root(e.getCause()));
    }
    if (m.length() == 0) {
      m.append(e.getMessage());
    }
    return oneLine(m.toString());
  }

  /** The innermost cause as words, without Java class names: {@code connection refused}, {@code unknown host api.x}. */
  private static String root(Throwable t) {
    Throwable r = t;
    for (int depth = 0; r.getCause() != null && r.getCause() != r && depth < 16; depth++) {
      r = r.getCause();
    }
    String msg = r.getMessage() == null || r.getMessage().isBlank() ? null : r.getMessage();
    if (r instanceof java.net.UnknownHostException) {
      return "unknown host" + (msg == null ? "" : " " + msg);
    }
    if (r instanceof java.net.SocketTimeoutException || r instanceof java.net.http.HttpTimeoutException) {
      return "timed out" + (msg == null ? "" : " (" + msg + ")");
    }
    if (r instanceof javax.net.ssl.SSLException) {
      return "TLS failed" + (msg == null ? "" : ": " + msg);
    }
    if (r instanceof java.nio.channels.ClosedChannelException) {
      return "connection closed";
    }
    if (r instanceof java.net.ConnectException) {
      return msg == null ? "connection refused" : msg.toLowerCase(java.util.Locale.ROOT);
    }
    if (msg != null) {
      return msg;
    }
    // No message: the class's name as words (EOFException: "EOF").
    return r.getClass().getSimpleName().replaceAll("(Exception|Error)$", "").replaceAll("([a-z])([A-Z])", "$1 $2")
        .toLowerCase(java.util.Locale.ROOT);
  }

  private static String oneLine(String s) {
    String flat = s.replaceAll("[\\r\\n\\t]+", " ").replaceAll("\\p{Cntrl}", "");
    return flat.length() > 500 ? flat.substring(0, 500) + "…" : flat;
  }
}
