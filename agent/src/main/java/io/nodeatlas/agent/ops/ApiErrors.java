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
    if (!(t instanceof KubernetesClientException e)) {
      return root(t);
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
      m.append(m.length() > 0 ? " (" + root(e.getCause()) + ")" : "no answer: " + root(e.getCause()));
    }
    if (m.length() == 0) {
      m.append(e.getMessage());
    }
    return oneLine(m.toString());
  }

  /** The innermost cause, as {@code Class: message}. */
  private static String root(Throwable t) {
    Throwable r = t;
    for (int depth = 0; r.getCause() != null && r.getCause() != r && depth < 16; depth++) {
      r = r.getCause();
    }
    String msg = r.getMessage();
    return r.getClass().getSimpleName() + (msg == null || msg.isBlank() ? "" : ": " + msg);
  }

  private static String oneLine(String s) {
    String flat = s.replaceAll("[\\r\\n\\t]+", " ").replaceAll("\\p{Cntrl}", "");
    return flat.length() > 500 ? flat.substring(0, 500) + "…" : flat;
  }
}
