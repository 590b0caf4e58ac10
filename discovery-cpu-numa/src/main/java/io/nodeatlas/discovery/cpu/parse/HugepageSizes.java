package io.nodeatlas.discovery.cpu.parse;

import java.util.Locale;

/**
 * Page sizes as the kernel names hugepage pools and as Kubernetes names them. mm/hugetlb.c names the
 * sysfs directories {@code hugepages-<size>kB} (always kB: {@code hugepages-2048kB},
 * {@code hugepages-1048576kB}); the kubelet names the same pools in the most compact binary unit
 * ({@code hugepages-2Mi}, {@code hugepages-1Gi}: the {@code hugepages-} resources of core/v1 and the
 * {@code HugePages-<size>} emptyDir medium), which we reuse. Documentation/admin-guide/mm/hugetlbpage.rst
 * describes the directories.
 */
public final class HugepageSizes {

  private static final String PREFIX = "hugepages-";
  private static final String SUFFIX = "kB";

  private HugepageSizes() {}

  /** The page size in bytes of a pool directory named {@code hugepages-<N>kB}. */
  public static long parseDirName(String name) {
    if (name == null || !name.startsWith(PREFIX) || !name.endsWith(SUFFIX)
        || name.length() <= PREFIX.length() + SUFFIX.length()) {
      throw new IllegalArgumentException("not a hugepage pool directory (hugepages-<N>kB): \"" + shorten(name) + "\"");
    }
    String digits = name.substring(PREFIX.length(), name.length() - SUFFIX.length());
    if (digits.length() > 15) {
      throw new IllegalArgumentException("hugepage size out of range: \"" + shorten(name) + "\"");
    }
    long kb = 0;
    for (int i = 0; i < digits.length(); i++) {
      char c = digits.charAt(i);
      if (c < '0' || c > '9') {
        throw new IllegalArgumentException("not a hugepage pool directory (hugepages-<N>kB): \"" + shorten(name) + "\"");
      }
      kb = kb * 10 + (c - '0');
    }
    if (kb == 0) {
      throw new IllegalArgumentException("hugepage size is zero: \"" + name + "\"");
    }
    return kb << 10;
  }

  /** The Kubernetes quantity of a page size in the largest binary unit that divides it: {@code 2Mi}, {@code 1Gi}, {@code 64Ki}. */
  public static String quantity(long bytes) {
    if (bytes <= 0) {
      throw new IllegalArgumentException("page size must be positive: " + bytes);
    }
    String[] units = {"", "Ki", "Mi", "Gi", "Ti", "Pi", "Ei"};
    int unit = 0;
    long value = bytes;
    while (unit < units.length - 1 && (value & 1023) == 0) {
      value >>= 10;
      unit++;
    }
    return value + units[unit];
  }

  /** The quantity as a DNS label fragment for device names: {@code 2mi}, {@code 1gi}. */
  public static String labelFragment(long bytes) {
    return quantity(bytes).toLowerCase(Locale.ROOT);
  }

  private static String shorten(String s) {
    return s == null ? "null" : s.length() > 80 ? s.substring(0, 80) + "..." : s;
  }
}
