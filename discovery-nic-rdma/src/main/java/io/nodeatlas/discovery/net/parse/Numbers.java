package io.nodeatlas.discovery.net.parse;

/** Decimal and hexadecimal integers as sysfs prints them ({@code %d}, {@code %u}, {@code 0x%x}). */
public final class Numbers {

  private Numbers() {}

  /** A decimal integer within {@code [min, max]}; an optional leading {@code -} (numa_node prints -1). */
  public static long parseDecimal(String what, String text, long min, long max) {
    int i = 0;
    int n = text.length();
    boolean negative = n > 0 && text.charAt(0) == '-';
    if (negative) {
      i = 1;
    }
    if (i >= n || n - i > 19) {
      throw SysfsFormatException.of(what, text, "a decimal number");
    }
    long value = 0;
    for (; i < n; i++) {
      char c = text.charAt(i);
      if (c < '0' || c > '9') {
        throw SysfsFormatException.of(what, text, "a decimal number");
      }
      value = value * 10 + (c - '0');
      if (value < 0) {
        throw SysfsFormatException.of(what, text, "a decimal number in range");
      }
    }
    value = negative ? -value : value;
    if (value < min || value > max) {
      throw SysfsFormatException.of(what, text, "a number between " + min + " and " + max);
    }
    return value;
  }

  public static int parseInt(String what, String text, int min, int max) {
    return (int) parseDecimal(what, text, min, max);
  }

  /** {@code 0x%x}: a hex number with the {@code 0x} prefix the kernel prints (lid, sm_lid, dev_id). */
  public static long parseHex(String what, String text, long max) {
    if (!(text.startsWith("0x") || text.startsWith("0X")) || text.length() < 3 || text.length() > 18) {
      throw SysfsFormatException.of(what, text, "a 0x-prefixed hex number");
    }
    long value = 0;
    for (int i = 2; i < text.length(); i++) {
      int d = Character.digit(text.charAt(i), 16);
      if (d < 0) {
        throw SysfsFormatException.of(what, text, "a 0x-prefixed hex number");
      }
      value = (value << 4) | d;
      if (value < 0 || value > max) {
        throw SysfsFormatException.of(what, text, "a hex number up to 0x" + Long.toHexString(max));
      }
    }
    return value;
  }
}
