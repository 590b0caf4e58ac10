package io.nodeatlas.discovery.cpu;

import io.nodeatlas.discovery.cpu.parse.HugepageSizes;
import io.nodeatlas.discovery.cpu.parse.HugetlbfsMount;
import io.nodeatlas.discovery.cpu.parse.HugetlbfsMountsParser;
import io.nodeatlas.discovery.cpu.parse.Meminfo;
import io.nodeatlas.discovery.host.FactReader;
import io.nodeatlas.discovery.topology.Topology.HugepageSize;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.Optional;

/**
 * Reads the global hugepage pools of {@code /sys/kernel/mm/hugepages/hugepages-<N>kB/}
 * (Documentation/admin-guide/mm/hugetlbpage.rst, Documentation/ABI/testing/sysfs-kernel-mm-hugepages)
 * and the hugetlbfs mounts that serve each size. On a kernel without that directory the default
 * size's counters from {@code /proc/meminfo} stand in.
 */
final class HugepagesReader {

  /** One pool as read; {@code reserved} is null for per-node pools, which have no such file. */
  record Pool(long pageSizeBytes, long total, long free, Long reserved, long surplus) {}

  private HugepagesReader() {}

  static List<HugepageSize> read(FactReader in, Meminfo meminfo) {
    Path dir = in.fs().sys("kernel/mm/hugepages");
    boolean meminfoPool = meminfo.hugepageSizeBytes() != null && meminfo.hugePagesTotal() != null;
    List<Pool> pools;
    if (SysfsFacts.directory(in, dir, meminfoPool
        ? "only the default page size's pool, from /proc/meminfo, is known" : "global hugepage pools left out")) {
      pools = readPools(in, dir, true);
    } else if (meminfoPool) {
      pools = List.of(new Pool(meminfo.hugepageSizeBytes(), meminfo.hugePagesTotal(),
          orZero(meminfo.hugePagesFree()), meminfo.hugePagesReserved(), orZero(meminfo.hugePagesSurplus())));
    } else {
      pools = List.of();
    }
    Path mountsFile = in.fs().proc("mounts");
    Long defaultSize = meminfo.hugepageSizeBytes();
    List<HugetlbfsMount> mounts = HugetlbfsMountsParser.sorted(
        in.lines(mountsFile, line -> HugetlbfsMountsParser.parseLine(line, defaultSize)));
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
        in.warn(mountsFile, "hugetlbfs mount " + m.mountPoint()
            + " has no pagesize= option and the default hugepage size is unknown; not matched to a pool");
      } else if (pools.stream().noneMatch(p -> p.pageSizeBytes() == m.pageSizeBytes())) {
        in.warn(mountsFile, "hugetlbfs mount " + m.mountPoint() + " serves " + HugepageSizes.quantity(m.pageSizeBytes())
            + " pages, but the kernel has no pool of that size");
      }
    }
    return sizes;
  }

  /**
   * The {@code hugepages-<N>kB} pools under {@code dir}, ascending by size. A pool without a readable
   * {@code nr_hugepages} is left out (its size is its one essential fact; a broken file has been
   * warned about).
   */
  static List<Pool> readPools(FactReader in, Path dir, boolean withReserved) {
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
        in.warn(entry, e.getMessage() + "; hugepage pool left out");
        continue;
      }
      if (!SysfsFacts.directory(in, entry, "hugepage pool left out")) {
        continue;
      }
      Optional<Long> total = in.readText(entry.resolve("nr_hugepages"), SysfsFacts.COUNT);
      if (total.isEmpty()) {
        continue;
      }
      long free = in.readText(entry.resolve("free_hugepages"), SysfsFacts.COUNT).orElse(0L);
      Long reserved = withReserved ? in.readText(entry.resolve("resv_hugepages"), SysfsFacts.COUNT).orElse(null) : null;
      long surplus = in.readText(entry.resolve("surplus_hugepages"), SysfsFacts.COUNT).orElse(0L);
      pools.add(new Pool(size, total.get(), free, reserved, surplus));
    }
    pools.sort((a, b) -> Long.compare(a.pageSizeBytes(), b.pageSizeBytes()));
    return pools;
  }

  private static long orZero(Long v) {
    return v == null ? 0 : v;
  }
}
