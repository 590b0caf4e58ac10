package io.nodeatlas.agent.claims;

import java.util.Optional;
import java.util.regex.Matcher;
import java.util.regex.Pattern;

/**
 * The version of the checkpoint's file format, {@code v<major>.<minor>}. A minor version only adds
 * members, which older readers of the same major version keep and skip; a major version changes the
 * meaning of existing members, so only readers of that major version may read it.
 */
public record CheckpointVersion(int major, int minor) implements Comparable<CheckpointVersion> {

  private static final Pattern TEXT = Pattern.compile("^v(0|[1-9][0-9]{0,5})\\.(0|[1-9][0-9]{0,5})$");

  public CheckpointVersion {
    if (major < 0 || minor < 0) {
      throw new IllegalArgumentException("version numbers are not negative");
    }
  }

  /** {@code v2.0} → (2, 0); empty for anything else. */
  public static Optional<CheckpointVersion> parse(String text) {
    Matcher m = text == null ? null : TEXT.matcher(text);
    if (m == null || !m.matches()) {
      return Optional.empty();
    }
    return Optional.of(new CheckpointVersion(Integer.parseInt(m.group(1)), Integer.parseInt(m.group(2))));
  }

  /** Whether a reader of this version can read a file of {@code other}: same major version, any minor. */
  public boolean reads(CheckpointVersion other) {
    return major == other.major;
  }

  @Override
  public int compareTo(CheckpointVersion o) {
    return major != o.major ? Integer.compare(major, o.major) : Integer.compare(minor, o.minor);
  }

  @Override
  public String toString() {
    return "v" + major + "." + minor;
  }
}
