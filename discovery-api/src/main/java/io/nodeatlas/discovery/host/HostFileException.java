package io.nodeatlas.discovery.host;

import java.nio.file.Path;

/**
 * A host file exists but cannot be used: unreadable, not a regular file, too large, or resolving
 * outside the host root. A missing file is not an error (the fact is absent) and is reported as an
 * empty {@code Optional} instead.
 */
public final class HostFileException extends RuntimeException {
  private static final long serialVersionUID = 1L;

  private final transient Path path;
  private final String reason;

  public HostFileException(Path path, String reason, Throwable cause) {
    super("cannot read " + path + ": " + reason, cause);
    this.path = path;
    this.reason = reason;
  }

  public Path path() {
    return path;
  }

  /** Why the file cannot be used, without the path ({@code permission denied}, {@code is a directory}). */
  public String reason() {
    return reason;
  }

  /**
   * The read itself failed with an errno (EINVAL, EIO, EOPNOTSUPP) rather than the file being absent,
   * of the wrong type, forbidden or outside the root. sysfs answers some attributes that way when the
   * fact does not apply (the speed of a down link).
   */
  public boolean isReadError() {
    Throwable cause = getCause();
    return cause instanceof java.io.IOException
        && !(cause instanceof java.nio.file.AccessDeniedException)
        && !(cause instanceof java.nio.file.FileSystemLoopException);
  }

  /** An I/O failure's reason without the path that {@link java.nio.file.FileSystemException} messages repeat. */
  static String ioReason(java.io.IOException e) {
    String m = e.getMessage();
    if (m == null) {
      return e.getClass().getSimpleName();
    }
    if (e instanceof java.nio.file.FileSystemException fse && fse.getReason() != null) {
      return fse.getReason();
    }
    return m;
  }
}
