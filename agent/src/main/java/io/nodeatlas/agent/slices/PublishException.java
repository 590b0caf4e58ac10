package io.nodeatlas.agent.slices;

/** Publishing failed this time (API server away, conflict, missing Node); the caller retries with backoff. */
public final class PublishException extends Exception {
  private static final long serialVersionUID = 1L;

  public PublishException(String message, Throwable cause) {
    super(message, cause);
  }
}
