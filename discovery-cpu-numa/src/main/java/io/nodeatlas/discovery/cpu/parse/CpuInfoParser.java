package io.nodeatlas.discovery.cpu.parse;

import io.nodeatlas.discovery.parse.CpuListParser;
import java.util.HashMap;
import java.util.LinkedHashMap;
import java.util.Map;

/**
 * Parses {@code /proc/cpuinfo}. The kernel prints it per architecture
 * ({@code arch/x86/kernel/cpu/proc.c}, {@code arch/arm64/kernel/cpuinfo.c}, {@code arch/powerpc/kernel/setup-common.c},
 * {@code arch/s390/kernel/processor.c}): blocks separated by blank lines, {@code key<tabs>: value} lines.
 * A block with a numeric {@code processor} (or, on ia64 and s390, {@code cpu number}) describes that CPU;
 * any other block describes all of them.
 *
 * <p>Hostile text costs only what it touches: a line without a colon, an over-long key or value, or a
 * value with control characters is skipped, and a block whose CPU number is not a CPU id is skipped.
 * Only {@code null} is refused.
 */
public final class CpuInfoParser {

  /** Longer than any key the kernel prints ({@code address sizes}, {@code cpu capacity}...). */
  static final int MAX_KEY = 64;
  /** The x86 {@code flags} line of a 2024 server is about 1.7 kB; the kernel has no fixed bound. */
  static final int MAX_VALUE = 16 * 1024;

  private CpuInfoParser() {}

  public static CpuInfo parse(String text) {
    if (text == null) {
      throw new IllegalArgumentException("cpuinfo is null");
    }
    Map<Integer, Map<String, String>> processors = new LinkedHashMap<>();
    Map<String, String> shared = new HashMap<>();
    Map<String, String> block = new LinkedHashMap<>();
    int start = 0;
    int n = text.length();
    // Lines as index ranges of the text: no String per line, one per key and value kept.
    while (start <= n) {
      int end = text.indexOf('\n', start);
      if (end < 0) {
        end = n;
      }
      if (isBlank(text, start, end)) {
        block = flush(block, processors, shared);
      } else {
        field(text, start, end, block);
      }
      start = end + 1;
    }
    flush(block, processors, shared);
    return new CpuInfo(processors, shared);
  }

  /** The line {@code text[start, end)}: {@code key: value}, both stripped as {@link String#strip} does. */
  private static void field(String text, int start, int end, Map<String, String> block) {
    int colon = text.indexOf(':', start);
    if (colon < 0 || colon >= end || colon == start) {
      return;
    }
    int keyStart = skipSpace(text, start, colon);
    int keyEnd = trimSpace(text, keyStart, colon);
    int valueStart = skipSpace(text, colon + 1, end);
    int valueEnd = trimSpace(text, valueStart, end);
    if (keyEnd == keyStart || keyEnd - keyStart > MAX_KEY || valueEnd - valueStart > MAX_VALUE
        || hasControl(text, keyStart, keyEnd) || hasControl(text, valueStart, valueEnd)) {
      return;
    }
    block.putIfAbsent(text.substring(keyStart, keyEnd), text.substring(valueStart, valueEnd));
  }

  private static boolean isBlank(String text, int start, int end) {
    return skipSpace(text, start, end) == end;
  }

  /** The first index in {@code [start, end)} that is not whitespace, else {@code end}. */
  private static int skipSpace(String text, int start, int end) {
    while (start < end && Character.isWhitespace(text.charAt(start))) {
      start++;
    }
    return start;
  }

  /** The end of {@code [start, end)} without its trailing whitespace. */
  private static int trimSpace(String text, int start, int end) {
    while (end > start && Character.isWhitespace(text.charAt(end - 1))) {
      end--;
    }
    return end;
  }

  /** Tabs separate words in a few values; every other control character makes the line unusable. */
  private static boolean hasControl(String s, int start, int end) {
    for (int i = start; i < end; i++) {
      char c = s.charAt(i);
      if ((c < 0x20 && c != '\t') || c == 0x7f) {
        return true;
      }
    }
    return false;
  }

  /** Files the block away; returns the (empty) map to fill with the next block. */
  private static Map<String, String> flush(Map<String, String> block, Map<Integer, Map<String, String>> processors,
      Map<String, String> shared) {
    if (block.isEmpty()) {
      return block;
    }
    String number = block.get("processor");
    if (number == null || !isDigits(number)) {
      number = block.get("cpu number");
    }
    // ARM kernels before 3.8 (arch/arm/kernel/setup.c) print "Processor : <model>" once, in the first
    // CPU's block; it describes every CPU.
    String armModel = block.remove("Processor");
    if (armModel != null) {
      shared.putIfAbsent("Processor", armModel);
    }
    if (number != null && isDigits(number)) {
      // A CPU's block; one whose number is no CPU id (the kernel never prints one) is dropped whole
      // rather than taken as facts about every CPU.
      if (number.length() <= 9 && Long.parseLong(number) <= CpuListParser.MAX_ID) {
        Map<String, String> before = processors.putIfAbsent(Integer.parseInt(number), block);
        if (before == null) {
          return new LinkedHashMap<>(); // the block is now that CPU's fields
        }
        before.putAll(block);
      }
    } else {
      block.forEach(shared::putIfAbsent);
    }
    block.clear();
    return block;
  }

  private static boolean isDigits(String s) {
    if (s.isEmpty()) {
      return false;
    }
    for (int i = 0; i < s.length(); i++) {
      if (s.charAt(i) < '0' || s.charAt(i) > '9') {
        return false;
      }
    }
    return true;
  }
}
