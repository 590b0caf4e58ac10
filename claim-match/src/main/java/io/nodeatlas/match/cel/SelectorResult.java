package io.nodeatlas.match.cel;

import java.util.List;

/**
 * What one selector said about one device. {@link Outcome#ERROR} is a CEL run-time error (a missing
 * attribute, a type mismatch, the cost limit): the scheduler aborts the allocation attempt with it, and
 * nodeatlas counts the device as not matching and reports the error. {@code observed} lists the device
 * values the selector read, in evaluation order, for {@code --explain}.
 */
public record SelectorResult(Outcome outcome, String error, List<Observed> observed, long cost) {

  public enum Outcome {
    MATCH,
    NO_MATCH,
    ERROR
  }

  /** A device field the expression read ({@code device.attributes["nodeatlas.io"].type}) and its value. */
  public record Observed(String path, String value) {}

  public SelectorResult {
    observed = List.copyOf(observed);
  }

  public boolean matched() {
    return outcome == Outcome.MATCH;
  }
}
