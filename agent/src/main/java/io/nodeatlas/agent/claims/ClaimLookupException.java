package io.nodeatlas.agent.claims;

/** A claim could not be read or is not in a state we may prepare; the message goes to the kubelet. */
public final class ClaimLookupException extends Exception {
  private static final long serialVersionUID = 1L;

  public ClaimLookupException(String message) {
    super(message);
  }

  public ClaimLookupException(String message, Throwable cause) {
    super(message, cause);
  }
}
