package io.nodeatlas.discovery.cpu.parse;

import io.nodeatlas.discovery.host.HostFs;
import io.nodeatlas.discovery.parse.CpuListParser;
import io.nodeatlas.discovery.parse.CpuMaskParser;
import io.nodeatlas.discovery.parse.SizeParser;
import io.nodeatlas.discovery.topology.CpuSet;
import io.nodeatlas.discovery.topology.Topology.CacheInfo;
import io.nodeatlas.discovery.topology.Topology.CacheType;

/**
 * Turns the files of one {@code /sys/devices/system/cpu/cpuN/cache/indexM/} directory
 * (Documentation/ABI/testing/sysfs-devices-system-cpu, drivers/base/cacheinfo.c) into a
 * {@link CacheInfo}: {@code level} (1..), {@code type} ({@code Data}, {@code Instruction},
 * {@code Unified}), {@code size} ({@code 48K}) and the sharing CPUs from {@code shared_cpu_list}, or
 * from {@code shared_cpu_map} on kernels that have no list file.
 */
public final class CacheParser {

  /** No CPU has more than a handful of cache levels; larger values are garbage. */
  private static final int MAX_LEVEL = 9;

  private CacheParser() {}

  /**
   * @param size null when the kernel prints no size (then 0 bytes)
   * @param sharedCpuList null when absent; used only without {@code sharedCpuMap}
   * @param sharedCpuMap null when absent
   * @param self the CPU the directory belongs to, which shares the cache when neither file exists
   */
  public static CacheInfo parse(String level, String type, String size, String sharedCpuList, String sharedCpuMap, int self) {
    return parse(level, type, size, sharedCpuList, sharedCpuMap, null, self);
  }

  /**
   * As above, with the map's CPUs already parsed ({@code sharedCpus}, from the file's bytes): then
   * neither sharing text is looked at.
   */
  public static CacheInfo parse(String level, String type, String size, String sharedCpuList, String sharedCpuMap,
      CpuSet sharedCpus, int self) {
    int lvl = parseLevel(level);
    CacheType t = parseType(type);
    long bytes = size == null ? 0 : SizeParser.parseBytes(size);
    CpuSet shared;
    if (sharedCpus != null) {
      shared = sharedCpus;
    } else if (sharedCpuMap != null) {
      shared = CpuMaskParser.parse(sharedCpuMap);
    } else if (sharedCpuList != null) {
      shared = CpuListParser.parse(sharedCpuList);
    } else {
      shared = CpuSet.of(self);
    }
    return new CacheInfo(lvl, t, bytes, shared);
  }

  public static int parseLevel(String text) {
    if (text == null) {
      throw new IllegalArgumentException("cache level is missing");
    }
    String s = HostFs.trimValue(text);
    if (s.length() != 1 || s.charAt(0) < '1' || s.charAt(0) > '0' + MAX_LEVEL) {
      throw new IllegalArgumentException("not a cache level (1-" + MAX_LEVEL + "): \"" + shorten(s) + "\"");
    }
    return s.charAt(0) - '0';
  }

  public static CacheType parseType(String text) {
    if (text == null) {
      throw new IllegalArgumentException("cache type is missing");
    }
    String s = HostFs.trimValue(text);
    return switch (s) {
      case "Data" -> CacheType.DATA;
      case "Instruction" -> CacheType.INSTRUCTION;
      case "Unified" -> CacheType.UNIFIED;
      default -> throw new IllegalArgumentException(
          "not a cache type (Data, Instruction or Unified): \"" + shorten(s) + "\"");
    };
  }

  private static String shorten(String s) {
    return s.length() > 40 ? s.substring(0, 40) + "..." : s;
  }
}
