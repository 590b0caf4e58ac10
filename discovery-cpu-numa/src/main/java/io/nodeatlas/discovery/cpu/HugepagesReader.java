package io.nodeatlas.discovery.cpu;

import io.nodeatlas.discovery.cpu.parse.HugepageSizes;
import io.nodeatlas.discovery.cpu.parse.HugetlbfsMount;
import io.nodeatlas.discovery.cpu.parse.HugetlbfsMountsParser;
import io.nodeatlas.discovery.cpu.parse.Meminfo;
import io.nodeatlas.discovery.topology.Topology.HugepageSize;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.Optional;

/**
 * Reads the global hugepage pools of {@code /sys/kernel/mm/hugepages/hugepages-<N>kB/}
 * (Documentation/admin-guide/mm/hugetlbpage.rst) and the hugetlbfs mounts that serve each size. On a
 * kernel without that directory the default size's counters from {@code /proc/meminfo} stand in.
 */
final class HugepagesReader {

  /** One pool as read; {@code reserved} is null for per-node pools, which have no such file. */
  record Pool(long pageSizeBytes, long total, long free, Long reserved, long surplus) {}

  private HugepagesReader() {}

  static List<HugepageSize> read(SysfsReader in, Meminfo meminfo) {
    Path dir = in.fs().sys("kernel/mm/hugepages");
    List<Pool> pools = readPools(in, dir, true);
    if (pools.isEmpty() && !in.isDirectory(dir) && meminfo.hugepageSizeBytes() != null && meminfo.hugePagesTotal() != null) {
      pools = List.of(new Pool(meminfo.hugepageSizeBytes(), meminfo.hugePagesTotal(),
          orZero(meminfo.hugePagesFree()), meminfo.hugePagesReserved(), orZero(meminfo.hugePagesSurplus())));
    }
    List<HugetlbfsMount> mounts = List.of();
    Optional<String> mountsText = in.text(in.fs().proc("mounts"));
    if (mountsText.isPresent()) {
      HugetlbfsMountsParser.Result parsed = HugetlbfsMountsParser.parse(mountsText.get(), meminfo.hugepageSizeBytes());
      parsed.problems().forEach(p -> in.warn(in.fs().proc("mounts") + ": " + p));
      mounts = parsed.mounts();
    }
    List<HugepageSize> sizes = new ArrayList<>();
    for (Pool p : pools) {
      List<String> served = new ArrayList<>();
      for (HugetlbfsMount m : mounts) {
        if (m.pageSizeBytes() != null && m.pageSizeBytes() == p.pageSizeBytes()) {
          served.add(m.mountPoint());
        }
      }
      sizes.add(new HugepageSize(p.pageSizeBytes(), p.total(), p.free(), p.reserved(), p.surplus(), served));
    }
    for (HugetlbfsMount m : mounts) {
      if (m.pageSizeBytes() == null) {
        in.warn("hugetlbfs mount " + m.mountPoint() + " has no pagesize= option and the default hugepage size is unknown");
      } else if (pools.stream().noneMatch(p -> p.pageSizeBytes() == m.pageSizeBytes())) {
        in.warn("hugetlbfs mount " + m.mountPoint() + " serves " + HugepageSizes.quantity(m.pageSizeBytes())
            + " pages, but the kernel has no pool of that size");
      }
    }
    return sizes;
  }

  /** The {@code hugepages-<N>kB} pools under {@code dir}, ascending by size; a pool without {@code nr_hugepages} is left out. */
  static List<Pool> readPools(SysfsReader in, Path dir, boolean withReserved) {
    if (!in.isDirectory(dir)) {
      return List.of();
    }
    List<Pool> pools = new ArrayList<>();
    for (Path entry : in.list(dir)) {
      String name = entry.getFileName().toString();
      if (!name.startsWith("hugepages-")) {
        continue;
      }
      long size;
      try {
        size = HugepageSizes.parseDirName(name);
      } catch (IllegalArgumentException e) {
        in.warn("hugepage pool " + entry + " left out: " + e.getMessage());
        continue;
      }
      Optional<Long> total = in.count(entry.resolve("nr_hugepages"));
      if (total.isEmpty()) {
        continue; // a pool without its size is no pool; a broken file has already been warned about
      }
      long free = in.count(entry.resolve("free_hugepages")).orElse(0L);
      Long reserved = withReserved ? in.count(entry.resolve("resv_hugepages")).orElse(null) : null;
      long surplus = in.count(entry.resolve("surplus_hugepages")).orElse(0L);
      pools.add(new Pool(size, total.get(), free, reserved, surplus));
    }
    pools.sort((a, b) -> Long.compare(a.pageSizeBytes(), b.pageSizeBytes()));
    return pools;
  }

  private static long orZero(Long v) {
    return v == null ? 0 : v;
  }
}
