package io.nodeatlas.discovery.parse;

import java.util.Collections;
import java.util.LinkedHashMap;
import java.util.Map;

/**
 * Parses {@code key: value} files such as {@code /proc/meminfo} and sysfs {@code nodeN/meminfo}
 * ({@code Node 0 MemTotal:  527958016 kB}). Lines without a colon are skipped; the first occurrence
 * of a key wins. Keys keep their case; values are trimmed.
 */
public final class KeyValueParser {

  private KeyValueParser() {}

  public static Map<String, String> parse(String text) {
    return parse(text, "");
  }

  /** Like {@link #parse(String)}, dropping {@code prefix} (e.g. {@code "Node 0 "}) from keys that carry it. */
  public static Map<String, String> parse(String text, String prefix) {
    if (text == null) {
      throw new IllegalArgumentException("text is null");
    }
    Map<String, String> out = new LinkedHashMap<>();
    for (String raw : text.replace("\0", "").split("\n")) {
      int colon = raw.indexOf(':');
      if (colon <= 0) {
        continue;
      }
      String key = raw.substring(0, colon).trim();
      if (!prefix.isEmpty() && key.startsWith(prefix)) {
        key = key.substring(prefix.length()).trim();
      }
      if (key.isEmpty()) {
        continue;
      }
      out.putIfAbsent(key, raw.substring(colon + 1).trim());
    }
    return Collections.unmodifiableMap(out);
  }
}
