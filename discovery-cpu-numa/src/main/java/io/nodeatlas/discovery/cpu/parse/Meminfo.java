package io.nodeatlas.discovery.cpu.parse;

/**
 * The facts we use from {@code /proc/meminfo} or {@code /sys/devices/system/node/nodeN/meminfo}. Every
 * field is null when the file does not carry it (node files have no {@code Hugepagesize}; kernels before
 * 4.16 have no {@code Hugetlb}). The {@code HugePages_*} counters cover the default page size only
 * (Documentation/admin-guide/mm/hugetlbpage.rst: they describe the pool of the default huge page
 * size), so they are a fallback when sysfs has no per-size pools.
 */
public record Meminfo(
    Long memTotalBytes,
    Long memFreeBytes,
    Long hugePagesTotal,
    Long hugePagesFree,
    Long hugePagesReserved,
    Long hugePagesSurplus,
    Long hugepageSizeBytes,
    Long hugetlbBytes) {

  public static final Meminfo EMPTY = new Meminfo(null, null, null, null, null, null, null, null);
}
