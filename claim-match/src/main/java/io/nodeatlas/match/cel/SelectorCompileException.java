package io.nodeatlas.match.cel;

/**
 * A selector the API server would reject: a CEL syntax or type error, a result that is not a bool, an
 * expression over the length or estimated-cost limit. {@link #line()} and {@link #column()} are 1-based
 * (0 when the error has no position, such as the length limit).
 */
public final class SelectorCompileException extends Exception {
  private static final long serialVersionUID = 1L;

  private final int line;
  private final int column;

  public SelectorCompileException(String message, int line, int column) {
    super(message);
    this.line = line;
    this.column = column;
  }

  public int line() {
    return line;
  }

  public int column() {
    return column;
  }
}
