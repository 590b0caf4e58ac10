package io.nodeatlas.discovery.share;

import java.util.Objects;

/**
 * A family's choice for one share (which CPUs, which GPU instance), as the agent stores it in its
 * checkpoint: opaque text the family alone reads, with the version of the family's own encoding so a
 * newer family can still read what an older one wrote. {@link #NONE} for a share the family places nothing for.
 */
public record Placement(int version, String value) {

  /** Longest value the checkpoint keeps. */
  public static final int MAX_VALUE_CHARS = 4096;

  public static final Placement NONE = new Placement(0, "");

  public Placement {
    Objects.requireNonNull(value, "value");
    if (version < 0 || (version == 0) != value.isEmpty() || value.length() > MAX_VALUE_CHARS) {
      throw new IllegalArgumentException("a placement is a version of at least 1 with text of at most "
          + MAX_VALUE_CHARS + " characters, or none: not v" + version + " of " + value.length() + " characters");
    }
  }

  public boolean empty() {
    return version == 0;
  }
}
