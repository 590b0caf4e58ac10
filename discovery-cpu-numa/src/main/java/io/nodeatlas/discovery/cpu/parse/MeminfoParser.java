package io.nodeatlas.discovery.cpu.parse;

import io.nodeatlas.discovery.parse.KeyValueParser;
import io.nodeatlas.discovery.parse.SizeParser;
import java.util.Map;

/**
 * Parses {@code /proc/meminfo} ({@code MemTotal:  32489496 kB}) and a NUMA node's {@code meminfo}
 * ({@code Node 0 MemTotal:  527958016 kB}; drivers/base/node.c prints the {@code Node N } prefix).
 * Sizes are in kB (binary) and become bytes; {@code HugePages_*} values are page counts. A key the
 * file does not carry is null; a key whose value is not a number is rejected naming the key, so the
 * caller can drop that one file with a warning.
 */
public final class MeminfoParser {

  private MeminfoParser() {}

  /** {@code /proc/meminfo}. */
  public static Meminfo parse(String text) {
    return parse(text, "");
  }

  /** {@code /sys/devices/system/node/node<nodeId>/meminfo}. */
  public static Meminfo parseNode(String text, int nodeId) {
    return parse(text, "Node " + nodeId + " ");
  }

  private static Meminfo parse(String text, String prefix) {
    Map<String, String> values = KeyValueParser.parse(text, prefix);
    return new Meminfo(
        bytes(values, "MemTotal"),
        bytes(values, "MemFree"),
        count(values, "HugePages_Total"),
        count(values, "HugePages_Free"),
        count(values, "HugePages_Rsvd"),
        count(values, "HugePages_Surp"),
        bytes(values, "Hugepagesize"),
        bytes(values, "Hugetlb"));
  }

  private static Long bytes(Map<String, String> values, String key) {
    String v = values.get(key);
    if (v == null) {
      return null;
    }
    try {
      // meminfo prints "kB" for every size; a bare number there is also kB, not bytes.
      String s = v.trim();
      return s.isEmpty() || Character.isDigit(s.charAt(s.length() - 1))
          ? SizeParser.parseBytes(s + " kB")
          : SizeParser.parseBytes(s);
    } catch (IllegalArgumentException e) {
      throw new IllegalArgumentException(key + ": " + e.getMessage(), e);
    }
  }

  private static Long count(Map<String, String> values, String key) {
    String v = values.get(key);
    if (v == null) {
      return null;
    }
    try {
      return SizeParser.parseCount(v);
    } catch (IllegalArgumentException e) {
      throw new IllegalArgumentException(key + ": " + e.getMessage(), e);
    }
  }
}
