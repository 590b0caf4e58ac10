package io.nodeatlas.discovery.cpu.parse;

import io.nodeatlas.discovery.host.Excerpt;
import io.nodeatlas.discovery.host.FactParser;
import io.nodeatlas.discovery.host.HostFs;
import io.nodeatlas.discovery.parse.KeyValueParser;
import java.util.Map;

/**
 * Parses {@code /proc/meminfo} ({@code MemTotal:  32489496 kB}; Documentation/filesystems/proc.rst)
 * and a NUMA node's {@code meminfo} ({@code Node 0 MemTotal:  527958016 kB};
 * Documentation/ABI/stable/sysfs-devices-node, printed by drivers/base/node.c with the
 * {@code Node N } prefix). Sizes are in kB (binary) and become bytes; {@code HugePages_*} values are
 * page counts (Documentation/admin-guide/mm/hugetlbpage.rst).
 *
 * <p>The value parsers ({@link #kibibytes}, {@link #pages}) parse one value each, so a reader can take
 * the file key by key and lose only the key whose value is malformed. {@link #assemble} names the keys
 * we use and which parser each takes, once, for both that reader and the whole-text {@link #parse}.
 */
public final class MeminfoParser {

  /** The longest number meminfo prints is an unsigned long of kB; more digits are garbage. */
  private static final int MAX_DIGITS = 18;

  private MeminfoParser() {}

  /** Looks up one key's value and parses it; null when the key is absent (or, in a lenient reader, malformed). */
  @FunctionalInterface
  public interface Fields {
    Long get(String key, FactParser<Long> parser);
  }

  /** The key prefix of {@code /sys/devices/system/node/node<nodeId>/meminfo}: {@code "Node 3 "}. */
  public static String nodePrefix(int nodeId) {
    return "Node " + nodeId + " ";
  }

  /**
   * A meminfo size ({@code 527958016 kB}) in bytes. meminfo prints every size in kB; a bare number there
   * is kB too, not bytes.
   */
  public static long kibibytes(String value) {
    String s = HostFs.trimValue(value == null ? "" : value);
    String number = s.endsWith("kB") ? s.substring(0, s.length() - 2).trim() : s;
    long kb = digits(number, s);
    if (kb > (Long.MAX_VALUE >> 10)) {
      throw new IllegalArgumentException("size out of range: " + Excerpt.of(s));
    }
    return kb << 10;
  }

  /** A page count ({@code HugePages_Total:    8192}). */
  public static long pages(String value) {
    String s = HostFs.trimValue(value == null ? "" : value);
    return digits(s, s);
  }

  /** The facts we use, each looked up with its parser through {@code fields}. */
  public static Meminfo assemble(Fields fields) {
    return new Meminfo(
        fields.get("MemTotal", MeminfoParser::kibibytes),
        fields.get("MemFree", MeminfoParser::kibibytes),
        fields.get("HugePages_Total", MeminfoParser::pages),
        fields.get("HugePages_Free", MeminfoParser::pages),
        fields.get("HugePages_Rsvd", MeminfoParser::pages),
        fields.get("HugePages_Surp", MeminfoParser::pages),
        fields.get("Hugepagesize", MeminfoParser::kibibytes),
        fields.get("Hugetlb", MeminfoParser::kibibytes));
  }

  /** All of {@code /proc/meminfo} at once; a malformed value of a key we use is rejected naming the key. */
  public static Meminfo parse(String text) {
    return parse(text, "");
  }

  /** All of {@code /sys/devices/system/node/node<nodeId>/meminfo} at once, strictly like {@link #parse(String)}. */
  public static Meminfo parseNode(String text, int nodeId) {
    return parse(text, nodePrefix(nodeId));
  }

  private static Meminfo parse(String text, String prefix) {
    Map<String, String> values = KeyValueParser.parse(text, prefix);
    return assemble((key, parser) -> {
      String v = values.get(key);
      if (v == null) {
        return null;
      }
      try {
        return parser.parse(v);
      } catch (IllegalArgumentException e) {
        throw new IllegalArgumentException(key + ": " + e.getMessage(), e);
      }
    });
  }

  private static long digits(String number, String whole) {
    if (number.isEmpty() || number.length() > MAX_DIGITS) {
      throw new IllegalArgumentException("not a number: " + Excerpt.of(whole));
    }
    long v = 0;
    for (int i = 0; i < number.length(); i++) {
      char c = number.charAt(i);
      if (c < '0' || c > '9') {
        throw new IllegalArgumentException("not a number: " + Excerpt.of(whole));
      }
      v = v * 10 + (c - '0');
    }
    return v;
  }
}
