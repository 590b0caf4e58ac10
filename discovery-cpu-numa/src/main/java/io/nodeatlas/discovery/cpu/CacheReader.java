package io.nodeatlas.discovery.cpu;

import io.nodeatlas.discovery.cpu.parse.CacheParser;
import io.nodeatlas.discovery.host.FactParser;
import io.nodeatlas.discovery.host.FactReader;
import io.nodeatlas.discovery.parse.CpuMaskParser;
import io.nodeatlas.discovery.topology.CpuSet;
import io.nodeatlas.discovery.topology.Topology.CacheInfo;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.BitSet;
import java.util.HashMap;
import java.util.LinkedHashSet;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.Set;
import java.util.function.IntFunction;

/**
 * Reads every cache instance from {@code cpuN/cache/indexM/} of the online CPUs
 * (Documentation/ABI/testing/sysfs-devices-system-cpu, {@code cpuX/cache/indexY/}). Each instance is
 * read once: when CPU N is already among the sharers of an {@code indexM} read for another CPU, its own
 * {@code indexM} describes the same cache and is skipped (the kernel fills {@code shared_cpu_map}
 * symmetrically for all sharers).
 *
 * <p>The sharers come from {@code shared_cpu_map}, the list twin only where there is no map (map over
 * list, as hwloc). An all-zero map, which old kernels print for some levels, names no sharer; the
 * cache is then private to the CPU's core (its thread siblings), not to the one CPU, as hwloc reads it.
 */
final class CacheReader {

  /** The sharing CPUs as a mask, or as a list where the map is missing. */
  private static final List<String> SHARING_FILES = List.of("shared_cpu_map", "shared_cpu_list");

  /** Each sharing file's raw value, tagged with its form; {@link CacheParser} parses it with the rest. */
  private static final List<FactParser<Sharing>> SHARING_FORMS = List.of(
      FactParser.withBytes(v -> new Sharing(v, true, null), (text, from, to) -> {
        // The kernel's plain mask, parsed from the read's bytes; anything else is left to CacheParser.
        CpuSet cpus = CpuMaskParser.parsePlain(text, from, to);
        return cpus == null ? null : new Sharing(null, true, cpus);
      }),
      v -> new Sharing(v, false, null));

  /**
   * The raw value of {@code shared_cpu_list} ({@code mask} false) or {@code shared_cpu_map}, or the
   * map's CPUs where they were parsed from the bytes already ({@code cpus}, {@code value} then null).
   */
  private record Sharing(String value, boolean mask, CpuSet cpus) {}

  private CacheReader() {}

  /**
   * @param coreOf the online threads of a CPU's core (the CPU alone where the kernel names no core)
   */
  static List<CacheInfo> read(FactReader in, CpuSet online, IntFunction<CpuSet> coreOf) {
    Path cpuDir = in.fs().sys("devices/system/cpu");
    Map<String, BitSet> coveredByIndex = new HashMap<>();
    Set<CacheInfo> caches = new LinkedHashSet<>();
    online.stream().forEach(cpu -> {
      Path cacheDir = cpuDir.resolve("cpu" + cpu).resolve("cache");
      if (!coveredByIndex.isEmpty() && coversAll(coveredByIndex.values(), cpu)) {
        // Every cache this CPU has been seen sharing is known; only an extra index could be new.
        if (!in.isDirectoryIfPresent(cacheDir.resolve("index" + coveredByIndex.size()))) {
          return;
        }
      } else if (!SysfsFacts.directory(in, cacheDir, "the caches of cpu" + cpu + " left out")) {
        return;
      }
      for (String name : in.names(cacheDir)) {
        if (SysfsFacts.numberedEntry(name, "index") < 0) {
          continue;
        }
        BitSet covered = coveredByIndex.computeIfAbsent(name, k -> new BitSet());
        if (covered.get(cpu)) {
          continue;
        }
        CacheInfo cache = readIndex(in, cacheDir.resolve(name), cpu, online, coreOf);
        if (cache != null) {
          covered.or(cache.cpus().toBitSet());
          caches.add(cache);
        }
      }
    });
    return new ArrayList<>(caches);
  }

  /** Whether every set has {@code cpu}: a loop, not a stream, since it runs once per CPU of a cold start. */
  private static boolean coversAll(Iterable<BitSet> sets, int cpu) {
    for (BitSet covered : sets) {
      if (!covered.get(cpu)) {
        return false;
      }
    }
    return true;
  }

  private static CacheInfo readIndex(FactReader in, Path index, int cpu, CpuSet online, IntFunction<CpuSet> coreOf) {
    String level = in.value(index.resolve("level")).orElse(null);
    String type = in.value(index.resolve("type")).orElse(null);
    if (level == null || type == null) {
      in.warn(index, "no " + (level == null ? "level" : "type") + "; cache left out");
      return null;
    }
    String size = in.value(index.resolve("size")).orElse(null);
    Optional<Sharing> sharing = in.first(index, SHARING_FILES, SHARING_FORMS);
    String list = sharing.filter(s -> !s.mask()).map(Sharing::value).orElse(null);
    String map = sharing.filter(Sharing::mask).map(Sharing::value).orElse(null);
    CacheInfo parsed;
    try {
      parsed = CacheParser.parse(level, type, size, list, map, sharing.map(Sharing::cpus).orElse(null), cpu);
    } catch (IllegalArgumentException e) {
      in.warn(index, e.getMessage() + "; cache left out");
      return null;
    }
    // An all-zero map names nobody: the cache is the core's (hwloc does the same on such kernels).
    CpuSet sharers = parsed.cpus().isEmpty() ? coreOf.apply(cpu) : parsed.cpus();
    // Offline sharers have no cache directory of their own and are not part of the usable topology.
    CpuSet cpus = sharers.intersect(online).union(CpuSet.of(cpu));
    return new CacheInfo(parsed.level(), parsed.type(), parsed.sizeBytes(), cpus);
  }
}
