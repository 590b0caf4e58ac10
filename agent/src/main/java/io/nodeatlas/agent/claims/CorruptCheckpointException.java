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

  /**
   * What to do when a newer release wrote what this one refuses: moving the file aside would leave what that
   * release made for its claims (devices made at Prepare, say) to no one.
   */
  public static final String ROLLED_BACK = "If a newer nodeatlas release wrote it (a rollback), run that release again and "
      + "let it unprepare the claims this one cannot read before rolling back (docs/agent.md, \"Rolling back\")";

  private final transient Path file;

  public CorruptCheckpointException(Path file, String reason, Throwable cause) {
    this(file, reason, ROLLED_BACK + "; otherwise inspect it, then move it aside to start with no prepared claims "
        + "(claims in it will then not be unprepared by nodeatlas)", cause);
  }

  private CorruptCheckpointException(Path file, String reason, String whatToDo, Throwable cause) {
    super("checkpoint " + file + " cannot be used (" + reason + "); it was left untouched. " + whatToDo, cause);
    this.file = file;
  }

  /**
   * A file of a major version this agent cannot read: a newer agent wrote it, and only such an agent can
   * unprepare its claims, so the advice is to run one, not to move the file aside.
   */
  static CorruptCheckpointException newerVersion(Path file, CheckpointVersion written, CheckpointVersion oldest,
      CheckpointVersion newest) {
    return new CorruptCheckpointException(file, "written in format " + written + ", which this version of nodeatlas cannot "
        + "read (it reads v" + oldest.major() + ".x to v" + newest.major() + ".x)", "Run a nodeatlas release that reads format " + written
        + " (the one that wrote it, or newer): moving the file aside would leave its prepared claims to no one", null);
  }

  public Path file() {
    return file;
  }
}
