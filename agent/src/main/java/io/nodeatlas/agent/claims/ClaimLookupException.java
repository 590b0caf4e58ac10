package io.nodeatlas.agent.claims;

/**
 * A claim could not be read or is not in a state we may prepare. Only the message goes on (to the
 * kubelet, in the NodePrepareResources error), so it carries no cause: it says what the cause said.
 */
public final class ClaimLookupException extends Exception {
  private static final long serialVersionUID = 1L;

  public ClaimLookupException(String message) {
    super(message);
  }
}
