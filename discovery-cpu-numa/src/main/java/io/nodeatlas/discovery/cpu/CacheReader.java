package io.nodeatlas.discovery.cpu;

import io.nodeatlas.discovery.cpu.parse.CacheParser;
import io.nodeatlas.discovery.topology.CpuSet;
import io.nodeatlas.discovery.topology.Topology.CacheInfo;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.BitSet;
import java.util.HashMap;
import java.util.LinkedHashSet;
import java.util.List;
import java.util.Map;
import java.util.Set;

/**
 * Reads every cache instance from {@code cpuN/cache/indexM/} of the online CPUs. Each instance is
 * read once: when CPU N is already in the {@code shared_cpu_list} of an {@code indexM} read for another
 * CPU, its own {@code indexM} describes the same cache and is skipped (drivers/base/cacheinfo.c fills
 * {@code shared_cpu_map} symmetrically for all sharers).
 */
final class CacheReader {

  /** The sharing CPUs as a list, or as a mask on kernels without the list file. */
  private static final List<String> SHARING_FILES = List.of("shared_cpu_list", "shared_cpu_map");

  private CacheReader() {}

  static List<CacheInfo> read(SysfsReader in, CpuSet online) {
    Path cpuDir = in.fs().sys("devices/system/cpu");
    Map<String, BitSet> coveredByIndex = new HashMap<>();
    Set<CacheInfo> caches = new LinkedHashSet<>();
    online.stream().forEach(cpu -> {
      Path cacheDir = cpuDir.resolve("cpu" + cpu).resolve("cache");
      if (!coveredByIndex.isEmpty() && coveredByIndex.values().stream().allMatch(b -> b.get(cpu))) {
        // Every cache this CPU has been seen sharing is known; only an extra index could be new.
        if (!in.isDirectory(cacheDir.resolve("index" + coveredByIndex.size()))) {
          return;
        }
      } else if (!in.isDirectory(cacheDir)) {
        return;
      }
      for (Path index : in.list(cacheDir)) {
        String name = index.getFileName().toString();
        if (SysfsReader.numberedEntry(name, "index") < 0) {
          continue;
        }
        BitSet covered = coveredByIndex.computeIfAbsent(name, k -> new BitSet());
        if (covered.get(cpu)) {
          continue;
        }
        CacheInfo cache = readIndex(in, index, cpu, online);
        if (cache != null) {
          covered.or(cache.cpus().toBitSet());
          caches.add(cache);
        }
      }
    });
    return new ArrayList<>(caches);
  }

  private static CacheInfo readIndex(SysfsReader in, Path index, int cpu, CpuSet online) {
    String level = in.value(index.resolve("level")).orElse(null);
    String type = in.value(index.resolve("type")).orElse(null);
    if (level == null || type == null) {
      in.warn("cache " + index + " left out: no " + (level == null ? "level" : "type"));
      return null;
    }
    String size = in.value(index.resolve("size")).orElse(null);
    SysfsReader.NamedValue sharing = in.firstValue(index, SHARING_FILES);
    String list = sharing != null && sharing.name().equals("shared_cpu_list") ? sharing.value() : null;
    String map = sharing != null && list == null ? sharing.value() : null;
    CacheInfo parsed;
    try {
      parsed = CacheParser.parse(level, type, size, list, map, cpu);
    } catch (IllegalArgumentException e) {
      in.warn("cache " + index + " left out: " + e.getMessage());
      return null;
    }
    // Offline sharers have no cache directory of their own and are not part of the usable topology.
    CpuSet cpus = parsed.cpus().intersect(online).union(CpuSet.of(cpu));
    return new CacheInfo(parsed.level(), parsed.type(), parsed.sizeBytes(), cpus);
  }
}
