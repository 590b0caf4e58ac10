package io.nodeatlas.discovery.accel.parse;

import io.nodeatlas.discovery.host.Excerpt;

/**
 * A character device number as a sysfs {@code dev} attribute prints it: {@code "226:128"}
 * ({@code drivers/base/core.c}, {@code dev_show()}: {@code print_dev_t}, {@code "%u:%u\n"}). The
 * kernel's {@code dev_t} has a 12-bit major and a 20-bit minor ({@code include/linux/kdev_t.h},
 * {@code MINORBITS}), so anything larger is not a device number.
 */
public record DevNumber(long major, long minor) {

  /** The largest major a {@code dev_t} holds (12 bits). */
  public static final long MAX_MAJOR = (1L << 12) - 1;
  /** The largest minor a {@code dev_t} holds (20 bits). */
  public static final long MAX_MINOR = (1L << 20) - 1;

  public DevNumber {
    if (major < 0 || major > MAX_MAJOR || minor < 0 || minor > MAX_MINOR) {
      throw new IllegalArgumentException("device number " + major + ":" + minor + " is outside dev_t");
    }
  }

  /** Parses {@code MAJOR:MINOR} in decimal, the only form the kernel prints. */
  public static DevNumber parse(String text) {
    int colon = text.indexOf(':');
    if (colon < 0 || text.indexOf(':', colon + 1) >= 0) {
      throw new IllegalArgumentException("not \"major:minor\": " + Excerpt.of(text));
    }
    long major = decimal(text, 0, colon, 4);
    long minor = decimal(text, colon + 1, text.length(), 7);
    if (major < 0 || minor < 0) {
      throw new IllegalArgumentException("not \"major:minor\": " + Excerpt.of(text));
    }
    return new DevNumber(major, minor);
  }

  @Override
  public String toString() {
    return major + ":" + minor;
  }

  /** The decimal number in {@code s[from, to)} of 1..maxDigits digits, or -1. */
  private static long decimal(String s, int from, int to, int maxDigits) {
    if (to - from < 1 || to - from > maxDigits) {
      return -1;
    }
    long v = 0;
    for (int i = from; i < to; i++) {
      char c = s.charAt(i);
      if (c < '0' || c > '9') {
        return -1;
      }
      v = v * 10 + (c - '0');
    }
    return v;
  }
}
