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
    while (start <= n) {
      int end = text.indexOf('\n', start);
      if (end < 0) {
        end = n;
      }
      String line = text.substring(start, end);
      if (line.isBlank()) {
        flush(block, processors, shared);
      } else {
        field(line, block);
      }
      start = end + 1;
    }
    flush(block, processors, shared);
    return new CpuInfo(processors, shared);
  }

  private static void field(String line, Map<String, String> block) {
    int colon = line.indexOf(':');
    if (colon <= 0) {
      return;
    }
    String key = line.substring(0, colon).strip();
    String value = line.substring(colon + 1).strip();
    if (key.isEmpty() || key.length() > MAX_KEY || value.length() > MAX_VALUE || hasControl(key) || hasControl(value)) {
      return;
    }
    block.putIfAbsent(key, value);
  }

  /** Tabs separate words in a few values; every other control character makes the line unusable. */
  private static boolean hasControl(String s) {
    for (int i = 0; i < s.length(); i++) {
      char c = s.charAt(i);
      if ((c < 0x20 && c != '\t') || c == 0x7f) {
        return true;
      }
    }
    return false;
  }

  private static void flush(Map<String, String> block, Map<Integer, Map<String, String>> processors,
      Map<String, String> shared) {
    if (block.isEmpty()) {
      return;
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
        processors.computeIfAbsent(Integer.parseInt(number), k -> new HashMap<>()).putAll(block);
      }
    } else {
      block.forEach(shared::putIfAbsent);
    }
    block.clear();
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
