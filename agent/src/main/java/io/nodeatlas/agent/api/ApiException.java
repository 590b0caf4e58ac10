package io.nodeatlas.agent.api;

import java.io.IOException;

/**
 * An API call that failed: the HTTP status with the server's {@code meta/v1 Status} reason and message,
 * or, when no answer came ({@link #code()} 0), the cause. Its message is the line {@code ApiErrors}
 * gives for fabric8's failures: {@code HTTP 409 AlreadyExists: ...}, {@code no answer from URL: connection refused}.
 */
public final class ApiException extends IOException {
  private static final long serialVersionUID = 1L;

  private final int code;
  private final String reason;

  ApiException(int code, String reason, String message, Throwable cause) {
    super(message, cause);
    this.code = code;
    this.reason = reason;
  }

  /** The HTTP status, 0 when no answer came. */
  public int code() {
    return code;
  }

  /** The Status's {@code reason} ({@code NotFound}, {@code Conflict}, {@code Expired}...), or null. */
  public String reason() {
    return reason;
  }

  /** An answer with {@code code} and the Status's reason and message. */
  static ApiException answered(int code, String reason, String said) {
    StringBuilder m = new StringBuilder("HTTP ").append(code);
    if (reason != null && !reason.isBlank()) {
      m.append(' ').append(reason);
    }
    if (said != null && !said.isBlank()) {
      m.append(": ").append(said);
    }
    return new ApiException(code, reason, oneLine(m.toString()), null);
  }

  /** No answer from {@code server}: the cause in words. */
  static ApiException noAnswer(String server, Throwable cause) {
    return new ApiException(0, null, oneLine("no answer from " + server + ": " + root(cause)), cause);
  }

  /**
   * The cause as words, without Java class names: the outermost cause of a known kind ({@code connection
   * refused}, {@code unknown host api.x}, {@code timed out}, {@code TLS failed: } and the innermost reason),
   * else the innermost message.
   */
  static String root(Throwable t) {
    Throwable inner = t;
    for (int depth = 0; inner.getCause() != null && inner.getCause() != inner && depth < 16; depth++) {
      inner = inner.getCause();
    }
    String innerMsg = message(inner);
    Throwable r = t;
    for (int depth = 0; r != null && depth < 16; depth++, r = r.getCause() == r ? null : r.getCause()) {
      String msg = message(r);
      if (r instanceof java.net.UnknownHostException) {
        return "unknown host" + (msg == null ? "" : " " + msg);
      }
      if (r instanceof java.net.SocketTimeoutException) {
        return "timed out" + (msg == null ? "" : " (" + msg + ")");
      }
      if (r instanceof javax.net.ssl.SSLException) {
        return "TLS failed" + (innerMsg == null ? "" : ": " + innerMsg);
      }
      if (r instanceof java.net.ConnectException) {
        return msg == null ? "connection refused" : msg.toLowerCase(java.util.Locale.ROOT);
      }
    }
    if (inner instanceof java.nio.channels.ClosedChannelException) {
      return "connection closed";
    }
    if (innerMsg != null) {
      return innerMsg;
    }
    return inner.getClass().getSimpleName().replaceAll("(Exception|Error)$", "").replaceAll("([a-z])([A-Z])", "$1 $2")
        .toLowerCase(java.util.Locale.ROOT);
  }

  private static String message(Throwable t) {
    return t.getMessage() == null || t.getMessage().isBlank() ? null : t.getMessage();
  }

  private static String oneLine(String s) {
    String flat = s.replaceAll("[\\r\\n\\t]+", " ").replaceAll("\\p{Cntrl}", "");
    return flat.length() > 500 ? flat.substring(0, 500) + "…" : flat;
  }
}
