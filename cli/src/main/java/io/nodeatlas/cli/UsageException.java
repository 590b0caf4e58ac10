package io.nodeatlas.cli;

/** Bad input from the user (an unknown source, a malformed setting): exit status 2 with the message. */
public final class UsageException extends RuntimeException {
  private static final long serialVersionUID = 1L;

  public UsageException(String message) {
    super(message);
  }

  public UsageException(String message, Throwable cause) {
    super(message, cause);
  }
}
