package io.nodeatlas.cdi;

/**
 * One reason a CDI spec file is invalid: the file, the device ({@code null} for the spec as a whole),
 * the rule and the message. Messages use the reference library's wording, so they can be
 * matched against a runtime's log.
 */
public record CdiProblem(String file, String device, CdiRule rule, String message) {

  public CdiProblem {
    if (file == null || rule == null || message == null) {
      throw new IllegalArgumentException("a problem needs a file, a rule and a message");
    }
  }

  /** {@code FILE: device "NAME": MESSAGE [rule RULE]}, the line {@code cdi validate} prints. */
  @Override
  public String toString() {
    return file + ": " + (device == null ? "" : "device \"" + device + "\": ") + message + " [rule " + rule.id() + "]";
  }
}
