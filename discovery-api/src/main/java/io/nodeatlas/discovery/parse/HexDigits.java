package io.nodeatlas.discovery.parse;

/**
 * ASCII hex digits, as the kernel prints them in sysfs (masks, addresses, ids). Character.digit also
 * accepts the fullwidth and other Unicode digits, which no kernel prints, and walks a table per character.
 */
public final class HexDigits {

  private HexDigits() {}

  /** The value of an ASCII hex digit ({@code 0-9 a-f A-F}), else -1. */
  public static int value(char c) {
    if (c >= '0' && c <= '9') {
      return c - '0';
    }
    if (c >= 'a' && c <= 'f') {
      return c - 'a' + 10;
    }
    if (c >= 'A' && c <= 'F') {
      return c - 'A' + 10;
    }
    return -1;
  }

  /** Whether {@code c} is an ASCII hex digit. */
  public static boolean is(char c) {
    return value(c) >= 0;
  }
}
