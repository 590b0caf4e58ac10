package io.nodeatlas.discovery.cpu.parse;

import io.nodeatlas.discovery.parse.SizeParser;
import java.util.ArrayList;
import java.util.Comparator;
import java.util.List;

/**
 * Finds the hugetlbfs mounts in {@code /proc/mounts} (fs/proc_namespace.c: {@code device mountpoint
 * fstype options 0 0}, with space, tab, newline and backslash escaped as {@code \040 \011 \012 \134}).
 * fs/hugetlbfs/inode.c prints {@code pagesize=} in K or M only ({@code pagesize=1024M} for 1 GiB) and
 * old kernels print none, which means the default hugepage size from {@code /proc/meminfo}
 * (rdma-nic-hugepages.md §3.4). A hugetlbfs line that cannot be understood is reported as a problem
 * and the other mounts are kept.
 */
public final class HugetlbfsMountsParser {

  private HugetlbfsMountsParser() {}

  /** The mounts found, sorted by mount point, and one message per hugetlbfs line left out. */
  public record Result(List<HugetlbfsMount> mounts, List<String> problems) {
    public Result {
      mounts = List.copyOf(mounts);
      problems = List.copyOf(problems);
    }
  }

  /**
   * @param defaultPageSizeBytes {@code Hugepagesize} from {@code /proc/meminfo}, or null when unknown
   */
  public static Result parse(String text, Long defaultPageSizeBytes) {
    if (text == null) {
      throw new IllegalArgumentException("mounts text is null");
    }
    List<HugetlbfsMount> mounts = new ArrayList<>();
    List<String> problems = new ArrayList<>();
    int lineNo = 0;
    for (String line : text.split("\n")) {
      lineNo++;
      String[] fields = line.trim().split("[ \t]+");
      if (fields.length < 3 || !fields[2].equals("hugetlbfs")) {
        continue;
      }
      String mountPoint;
      try {
        mountPoint = unescape(fields[1]);
      } catch (IllegalArgumentException e) {
        problems.add("line " + lineNo + ": " + e.getMessage());
        continue;
      }
      if (!mountPoint.startsWith("/")) {
        problems.add("line " + lineNo + ": hugetlbfs mount point is not absolute: \"" + shorten(mountPoint) + "\"");
        continue;
      }
      List<String> options = fields.length > 3 ? List.of(fields[3].split(",")) : List.of();
      Long pageSize = defaultPageSizeBytes;
      boolean bad = false;
      for (String option : options) {
        if (option.startsWith("pagesize=")) {
          try {
            pageSize = SizeParser.parseBytes(option.substring("pagesize=".length()));
            if (pageSize <= 0) {
              throw new IllegalArgumentException("page size must be positive");
            }
          } catch (IllegalArgumentException e) {
            problems.add("line " + lineNo + ": hugetlbfs " + mountPoint + ": bad " + shorten(option) + ": " + e.getMessage());
            bad = true;
          }
        }
      }
      if (!bad) {
        mounts.add(new HugetlbfsMount(mountPoint, pageSize, options));
      }
    }
    mounts.sort(Comparator.comparing(HugetlbfsMount::mountPoint));
    return new Result(mounts, problems);
  }

  /** Undoes the kernel's octal escapes ({@code mangle()} in fs/proc_namespace.c). */
  static String unescape(String field) {
    if (field.indexOf('\\') < 0) {
      return field;
    }
    StringBuilder out = new StringBuilder(field.length());
    for (int i = 0; i < field.length(); i++) {
      char c = field.charAt(i);
      if (c == '\\') {
        if (i + 3 >= field.length()) {
          throw new IllegalArgumentException("truncated escape in \"" + shorten(field) + "\"");
        }
        int value = 0;
        for (int k = 1; k <= 3; k++) {
          char d = field.charAt(i + k);
          if (d < '0' || d > '7') {
            throw new IllegalArgumentException("bad escape in \"" + shorten(field) + "\"");
          }
          value = value * 8 + (d - '0');
        }
        out.append((char) value);
        i += 3;
      } else {
        out.append(c);
      }
    }
    return out.toString();
  }

  private static String shorten(String s) {
    return s.length() > 80 ? s.substring(0, 80) + "..." : s;
  }
}
