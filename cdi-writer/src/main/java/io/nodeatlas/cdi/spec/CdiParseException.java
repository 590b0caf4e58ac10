package io.nodeatlas.cdi.spec;

/** A file that is not a CDI spec at all (bad JSON/YAML, an unknown field, a wrong type): the runtime skips it whole. */
public final class CdiParseException extends Exception {
  private static final long serialVersionUID = 1L;

  public CdiParseException(String message) {
    super(message);
  }

  public CdiParseException(String message, Throwable cause) {
    super(message, cause);
  }
}
