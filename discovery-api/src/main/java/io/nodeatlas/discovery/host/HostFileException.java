package io.nodeatlas.discovery.host;

import java.nio.file.Path;

/**
 * A host file exists but cannot be used: unreadable, not a regular file, too large. A missing file is
 * not an error (the fact is absent) and is reported as an empty {@code Optional} instead.
 */
public final class HostFileException extends RuntimeException {
  private static final long serialVersionUID = 1L;

  private final transient Path path;

  public HostFileException(Path path, String reason, Throwable cause) {
    super("cannot read " + path + ": " + reason, cause);
    this.path = path;
  }

  public Path path() {
    return path;
  }
}
