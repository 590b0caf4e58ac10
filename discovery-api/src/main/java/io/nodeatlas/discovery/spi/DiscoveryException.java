package io.nodeatlas.discovery.spi;

/** A source failed as a whole (for example its root directory is unreadable); other sources still run. */
public class DiscoveryException extends Exception {
  private static final long serialVersionUID = 1L;

  public DiscoveryException(String message) {
    super(message);
  }

  public DiscoveryException(String message, Throwable cause) {
    super(message, cause);
  }
}
