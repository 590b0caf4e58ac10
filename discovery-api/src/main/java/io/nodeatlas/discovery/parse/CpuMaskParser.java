package io.nodeatlas.discovery.parse;

import io.nodeatlas.discovery.host.HostFs;
import io.nodeatlas.discovery.topology.CpuSet;
import java.nio.charset.StandardCharsets;
import java.util.BitSet;

/**
 * Parses the kernel's CPU mask format ({@code %*pb}): comma-separated hex groups of 32 bits, most
 * significant first, the first group possibly shorter ({@code 0000,019c6700,00019c67}).
 */
public final class CpuMaskParser {

  private CpuMaskParser() {}

  public static CpuSet parse(String text) {
    if (text == null) {
      throw new IllegalArgumentException("CPU mask is null");
    }
    String s = HostFs.trimValue(text);
    if (s.isEmpty()) {
      throw new IllegalArgumentException("CPU mask is empty");
    }
    CpuSet plain = plainHex(s);
    if (plain != null) {
      return plain;
    }
    // The text as bytes, one per char where it is all Latin-1 (sysfs prints ASCII): the loops below then
    // index an array instead of calling charAt, which matters before the JIT has compiled them (a cold
    // `discover` parses a mask per cache). Other text keeps its chars.
    byte[] ascii = s.getBytes(StandardCharsets.ISO_8859_1);
    if (ascii.length != s.length()) {
      ascii = null;
    }
    int groups = 1;
    for (int i = 0; i < s.length(); i++) {
      if ((ascii != null ? ascii[i] : s.charAt(i)) == ',') {
        groups++;
      }
    }
    if ((long) groups * 32 > CpuListParser.MAX_ID) {
      throw new IllegalArgumentException("CPU mask has too many groups (" + groups + ")");
    }
    // Groups from the right (the lowest CPUs), each into its half of a 64-bit word: a 256-CPU
    // shared_cpu_map is 32 groups, read for every cache, so no split() and no per-bit loop.
    long[] words = new long[(groups + 1) / 2];
    int end = s.length();
    for (int g = 0; g < groups; g++) {
      int start = g == groups - 1 ? 0 : s.lastIndexOf(',', end - 1) + 1;
      long value = ascii != null ? group(ascii, s, start, end) : group(s, start, end);
      words[g >> 1] |= value << ((g & 1) * 32);
      end = start - 1;
    }
    return CpuSet.fromBits(BitSet.valueOf(words));
  }

  /**
   * The mask in one pass from its end where every group is 1-8 ASCII hex digits, as the kernel prints
   * it (a 256-CPU shared_cpu_map per cache); null for anything else, which the general path parses or
   * refuses with its own message.
   */
  private static CpuSet plainHex(String s) {
    int groups = 1;
    for (int i = 0; i < s.length(); i++) {
      if (s.charAt(i) == ',') {
        groups++;
      }
    }
    if ((long) groups * 32 > CpuListParser.MAX_ID) {
      return null;
    }
    long[] words = new long[(groups + 1) / 2];
    int g = 0;
    int digits = 0;
    long value = 0;
    for (int i = s.length() - 1; i >= -1; i--) {
      char c = i >= 0 ? s.charAt(i) : ',';
      if (c == ',') {
        if (digits == 0) {
          return null;
        }
        words[g >> 1] |= value << ((g & 1) * 32);
        g++;
        digits = 0;
        value = 0;
        continue;
      }
      int digit = HexDigits.value(c);
      if (digit < 0 || digits == 8) {
        return null;
      }
      value |= (long) digit << (4 * digits);
      digits++;
    }
    return CpuSet.fromBits(BitSet.valueOf(words));
  }

  /**
   * {@link #parse} of a value's bytes {@code text[from, to)} where it is the kernel's plain form (every
   * group 1-8 ASCII hex digits, as {@code shared_cpu_map} prints it), without a String; null for
   * anything else, which {@link #parse} then takes or refuses. For {@link
   * io.nodeatlas.discovery.host.FactParser#parseBytes}.
   */
  public static CpuSet parsePlain(byte[] text, int from, int to) {
    // One pass from the right (the lowest CPUs), each group into its half of a 64-bit word; the digits
    // decoded in place, since the C1-only JIT of the agent leaves a call per byte otherwise.
    long[] words = new long[(to - from) / 18 + 1]; // enough for 8-digit groups, grown for shorter ones
    int g = 0;
    int end = to;
    while (end >= from) {
      if ((long) (g + 1) * 32 > CpuListParser.MAX_ID) {
        return null;
      }
      long value = 0;
      int shift = 0;
      int i = end - 1;
      for (; i >= from && text[i] != ','; i--) {
        int c = text[i];
        int digit = c - '0';
        if (digit < 0 || digit > 9) {
          digit = (c | 0x20) - ('a' - 10);
          if (digit < 10 || digit > 15) {
            return null;
          }
        }
        if (shift == 32) {
          return null;
        }
        value |= (long) digit << shift;
        shift += 4;
      }
      if (shift == 0) {
        return null;
      }
      if ((g >> 1) == words.length) {
        words = java.util.Arrays.copyOf(words, words.length * 2);
      }
      words[g >> 1] |= value << ((g & 1) * 32);
      g++;
      end = i;
    }
    return CpuSet.fromBits(BitSet.valueOf(words));
  }

  /** {@link #group(String, int, int)} over the text's Latin-1 bytes. */
  private static long group(byte[] ascii, String s, int start, int end) {
    int length = end - start;
    if (length < 1 || length > 8) {
      return group(s, start, end); // the same message
    }
    long value = 0;
    for (int i = start; i < end; i++) {
      int digit = HexDigits.value((char) (ascii[i] & 0xff));
      if (digit < 0) {
        return signed(s, start, end);
      }
      value = value << 4 | digit;
    }
    return value;
  }

  /** One group of 1-8 hex digits, as its 32 bits. */
  private static long group(String s, int start, int end) {
    int length = end - start;
    if (length < 1 || length > 8) {
      throw new IllegalArgumentException("not a CPU mask (group \"" + s.substring(start, Math.max(start, end))
          + "\" is not 1-8 hex digits): \"" + s + "\"");
    }
    long value = 0;
    for (int i = start; i < end; i++) {
      // ASCII only: anything else (a sign, the Unicode digits Character.digit accepts) goes to signed(),
      // which decides as before; the common case skips Character.digit's table walk per character.
      int digit = HexDigits.value(s.charAt(i));
      if (digit < 0) {
        return signed(s, start, end);
      }
      value = value << 4 | digit;
    }
    return value;
  }


  /** What Long.parseLong made of a group with a sign ({@code -1}: its low 32 bits), as before; else not hex. */
  private static long signed(String s, int start, int end) {
    String group = s.substring(start, end);
    try {
      return Long.parseLong(group, 16) & 0xffffffffL;
    } catch (NumberFormatException e) {
      throw new IllegalArgumentException("not a CPU mask (\"" + group + "\" is not hex): \"" + s + "\"", e);
    }
  }
}
