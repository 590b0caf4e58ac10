package io.nodeatlas.discovery.net.model;

/** A character device number from a sysfs {@code dev} file ({@code "major:minor\n"}, decimal). */
public record DevNumber(long major, long minor) {
  @Override
  public String toString() {
    return major + ":" + minor;
  }
}
