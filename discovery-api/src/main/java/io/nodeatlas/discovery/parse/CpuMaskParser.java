package io.nodeatlas.discovery.parse;

import io.nodeatlas.discovery.host.HostFs;
import io.nodeatlas.discovery.topology.CpuSet;
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
    String[] groups = s.split(",", -1);
    if ((long) groups.length * 32 > CpuListParser.MAX_ID) {
      throw new IllegalArgumentException("CPU mask has too many groups (" + groups.length + ")");
    }
    BitSet bits = new BitSet();
    int base = 0;
    for (int g = groups.length - 1; g >= 0; g--) {
      String group = groups[g];
      if (group.isEmpty() || group.length() > 8) {
        throw new IllegalArgumentException("not a CPU mask (group \"" + group + "\" is not 1-8 hex digits): \"" + s + "\"");
      }
      long value;
      try {
        value = Long.parseLong(group, 16);
      } catch (NumberFormatException e) {
        throw new IllegalArgumentException("not a CPU mask (\"" + group + "\" is not hex): \"" + s + "\"", e);
      }
      for (int bit = 0; bit < 32; bit++) {
        if ((value & (1L << bit)) != 0) {
          bits.set(base + bit);
        }
      }
      base += 32;
    }
    return CpuSet.fromBits(bits);
  }
}
