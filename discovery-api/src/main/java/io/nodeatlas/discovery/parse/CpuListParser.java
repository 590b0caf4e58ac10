package io.nodeatlas.discovery.parse;

import io.nodeatlas.discovery.host.HostFs;
import io.nodeatlas.discovery.topology.CpuSet;
import java.util.BitSet;

/**
 * Parses the kernel's CPU/node list format ({@code %*pbl}, e.g. {@code 0-7,16-23}; the empty set is
 * an empty line). Surrounding whitespace and NUL bytes are ignored; anything else that is not a
 * number or a range is rejected. Ids above {@link #MAX_ID} are rejected rather than allocated, since
 * {@code kernel_max} is 8191 on common configs and never above a few hundred thousand.
 */
public final class CpuListParser {

  /** Far above any real NR_CPUS (x86 allows up to 8192, CONFIG_MAXSMP), small enough to keep a bitset cheap. */
  public static final int MAX_ID = 1 << 20;

  private CpuListParser() {}

  public static CpuSet parse(String text) {
    if (text == null) {
      throw new IllegalArgumentException("CPU list is null");
    }
    String s = HostFs.trimValue(text);
    BitSet bits = new BitSet();
    if (s.isEmpty()) {
      return CpuSet.EMPTY;
    }
    int i = 0;
    int n = s.length();
    while (i < n) {
      int start = i;
      long from = 0;
      while (i < n && isDigit(s.charAt(i))) {
        from = checked(from * 10 + (s.charAt(i) - '0'), s);
        i++;
      }
      if (i == start) {
        throw invalid(s, "expected a number at position " + start);
      }
      long to = from;
      if (i < n && s.charAt(i) == '-') {
        i++;
        int toStart = i;
        to = 0;
        while (i < n && isDigit(s.charAt(i))) {
          to = checked(to * 10 + (s.charAt(i) - '0'), s);
          i++;
        }
        if (i == toStart) {
          throw invalid(s, "range without an end at position " + toStart);
        }
        if (to < from) {
          throw invalid(s, "descending range " + from + "-" + to);
        }
      }
      bits.set((int) from, (int) to + 1);
      if (i < n) {
        if (s.charAt(i) != ',') {
          throw invalid(s, "unexpected '" + s.charAt(i) + "' at position " + i);
        }
        i++;
        if (i == n) {
          throw invalid(s, "trailing comma");
        }
      }
    }
    return CpuSet.fromBits(bits);
  }

  private static boolean isDigit(char c) {
    return c >= '0' && c <= '9';
  }

  private static long checked(long value, String s) {
    if (value > MAX_ID) {
      throw invalid(s, "CPU id larger than " + MAX_ID);
    }
    return value;
  }

  private static IllegalArgumentException invalid(String text, String why) {
    String shown = text.length() > 80 ? text.substring(0, 80) + "..." : text;
    return new IllegalArgumentException("not a CPU list (" + why + "): \"" + shown + "\"");
  }
}
