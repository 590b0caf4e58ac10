package io.nodeatlas.match.claims;

/** Input that the API server would reject or that is not a DeviceClass/ResourceClaim/ResourceClaimTemplate. */
public final class ClaimInputException extends Exception {
  private static final long serialVersionUID = 1L;

  public ClaimInputException(String message) {
    super(message);
  }

  public ClaimInputException(String message, Throwable cause) {
    super(message, cause);
  }
}
