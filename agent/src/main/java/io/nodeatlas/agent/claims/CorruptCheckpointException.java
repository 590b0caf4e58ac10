package io.nodeatlas.agent.claims;

import java.nio.file.Path;

/**
 * The checkpoint exists but cannot be used: unparsable, another kind of file, a format version this
 * agent cannot read, a checksum mismatch, or a link or special file where the file should be. The
 * agent stops rather than start afresh: a fresh start would forget prepared claims whose CDI specs
 * and devices are still in use. The file is never overwritten.
 */
public final class CorruptCheckpointException extends Exception {
  private static final long serialVersionUID = 1L;

  private final transient Path file;

  public CorruptCheckpointException(Path file, String reason, Throwable cause) {
    super("checkpoint " + file + " cannot be used (" + reason + "); it was left untouched. Inspect it, then move it "
        + "aside to start with no prepared claims (claims in it will then not be unprepared by nodeatlas)", cause);
    this.file = file;
  }

  public Path file() {
    return file;
  }
}
