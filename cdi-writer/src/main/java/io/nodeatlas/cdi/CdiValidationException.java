package io.nodeatlas.cdi;

import java.util.List;
import java.util.stream.Collectors;

/** A spec we were asked to write is invalid or conflicts with another file; nothing was written. */
public final class CdiValidationException extends Exception {
  private static final long serialVersionUID = 1L;

  private final transient List<CdiProblem> problems;

  public CdiValidationException(List<CdiProblem> problems) {
    super(problems.stream().map(CdiProblem::toString).collect(Collectors.joining("\n")));
    this.problems = List.copyOf(problems);
  }

  public List<CdiProblem> problems() {
    return problems;
  }
}
