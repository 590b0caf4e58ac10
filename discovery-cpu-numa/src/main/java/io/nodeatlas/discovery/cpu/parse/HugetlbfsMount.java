package io.nodeatlas.discovery.cpu.parse;

import java.util.List;

/**
 * One hugetlbfs mount from {@code /proc/mounts}: where it is mounted on the host, the page size it
 * serves ({@code pagesize=} or, without it, the default hugepage size; null when neither is known) and
 * its mount options as printed.
 */
public record HugetlbfsMount(String mountPoint, Long pageSizeBytes, List<String> options) {
  public HugetlbfsMount {
    options = List.copyOf(options);
  }
}
