package io.nodeatlas.discovery.net.parse;

import io.nodeatlas.discovery.parse.HexDigits;

/**
 * Decimal and hexadecimal integers as sysfs prints them ({@code %d}, {@code %u}, {@code 0x%x}).
 * ASCII digits only: {@link Character#digit} would also accept other scripts' digits.
 */
public final class Numbers {

  private Numbers() {}

  /** A decimal integer within {@code [min, max]}; an optional leading {@code -} (numa_node prints -1). */
  public static long parseDecimal(String text, long min, long max) {
    int i = 0;
    int n = text.length();
    boolean negative = n > 0 && text.charAt(0) == '-';
    if (negative) {
      i = 1;
    }
    if (i >= n || n - i > 19) {
      throw Expected.but("a decimal number", text);
    }
    long value = 0;
    for (; i < n; i++) {
      char c = text.charAt(i);
      if (!Expected.isDigit(c)) {
        throw Expected.but("a decimal number", text);
      }
      value = value * 10 + (c - '0');
      if (value < 0) {
        throw Expected.but("a decimal number between " + min + " and " + max, text);
      }
    }
    value = negative ? -value : value;
    if (value < min || value > max) {
      throw Expected.but("a number between " + min + " and " + max, text);
    }
    return value;
  }

  public static int parseInt(String text, int min, int max) {
    return (int) parseDecimal(text, min, max);
  }

  /** {@code 0x%x}: a hex number with the {@code 0x} prefix the kernel prints (lid, sm_lid, dev_id). */
  public static long parseHex(String text, long max) {
    if (!(text.startsWith("0x") || text.startsWith("0X")) || text.length() < 3 || text.length() > 18) {
      throw Expected.but("a 0x-prefixed hex number", text);
    }
    long value = 0;
    for (int i = 2; i < text.length(); i++) {
      int d = HexDigits.value(text.charAt(i));
      if (d < 0) {
        throw Expected.but("a 0x-prefixed hex number", text);
      }
      value = (value << 4) | d;
      if (value < 0 || value > max) {
        throw Expected.but("a hex number up to 0x" + Long.toHexString(max), text);
      }
    }
    return value;
  }
}
