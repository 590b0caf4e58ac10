package io.nodeatlas.discovery.parse;

import io.nodeatlas.discovery.host.HostFs;

/**
 * Parses the sizes the kernel prints into bytes: cache sizes ({@code 48K}, {@code 24576K}), hugepage
 * directory suffixes ({@code 2048kB}), meminfo values ({@code 527958016 kB}) and hugetlbfs mount
 * options ({@code pagesize=2M}, {@code 1024M}, {@code 1G}). The kernel's K, M, G are binary (1024).
 * A bare number is bytes.
 */
public final class SizeParser {

  private SizeParser() {}

  public static long parseBytes(String text) {
    if (text == null) {
      throw new IllegalArgumentException("size is null");
    }
    String s = HostFs.trimValue(text);
    int i = 0;
    while (i < s.length() && s.charAt(i) >= '0' && s.charAt(i) <= '9') {
      i++;
    }
    if (i == 0) {
      throw new IllegalArgumentException("not a size (no leading number): \"" + s + "\"");
    }
    if (i > 18) {
      throw new IllegalArgumentException("size out of range: \"" + s + "\"");
    }
    long number = Long.parseLong(s.substring(0, i));
    String unit = s.substring(i).trim();
    int shift = switch (unit) {
      case "", "B", "b" -> 0;
      case "K", "k", "KB", "kB", "KiB", "kb" -> 10;
      case "M", "m", "MB", "mB", "MiB" -> 20;
      case "G", "g", "GB", "gB", "GiB" -> 30;
      case "T", "t", "TB", "TiB" -> 40;
      default -> throw new IllegalArgumentException("not a size (unknown unit \"" + unit + "\"): \"" + s + "\"");
    };
    if (shift > 0 && number > (Long.MAX_VALUE >> shift)) {
      throw new IllegalArgumentException("size out of range: \"" + s + "\"");
    }
    return number << shift;
  }

  /** A non-negative decimal integer as sysfs prints counters ({@code nr_hugepages}, {@code numa_node} aside). */
  public static long parseCount(String text) {
    if (text == null) {
      throw new IllegalArgumentException("number is null");
    }
    String s = HostFs.trimValue(text);
    if (s.isEmpty() || s.length() > 18) {
      throw new IllegalArgumentException("not a number: \"" + s + "\"");
    }
    for (int i = 0; i < s.length(); i++) {
      if (s.charAt(i) < '0' || s.charAt(i) > '9') {
        throw new IllegalArgumentException("not a number: \"" + s + "\"");
      }
    }
    return Long.parseLong(s);
  }

  /** A signed decimal integer ({@code numa_node} is {@code -1} when unknown). */
  public static long parseSigned(String text) {
    if (text == null) {
      throw new IllegalArgumentException("number is null");
    }
    String s = HostFs.trimValue(text);
    boolean negative = s.startsWith("-");
    long magnitude = parseCount(negative ? s.substring(1) : s);
    return negative ? -magnitude : magnitude;
  }
}
