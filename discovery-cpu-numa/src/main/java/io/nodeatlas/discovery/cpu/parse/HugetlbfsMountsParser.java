package io.nodeatlas.discovery.cpu.parse;

import io.nodeatlas.discovery.model.Order;
import io.nodeatlas.discovery.host.Excerpt;
import io.nodeatlas.discovery.parse.SizeParser;
import java.util.ArrayList;
import java.util.List;

/**
 * Finds the hugetlbfs mounts in {@code /proc/mounts} (fs/proc_namespace.c: {@code device mountpoint
 * fstype options 0 0}, with space, tab, newline and backslash escaped as {@code \040 \011 \012 \134}).
 * fs/hugetlbfs/inode.c prints {@code pagesize=} in K or M only ({@code pagesize=1024M} for 1 GiB) and
 * old kernels print none, which means the default huge page size, {@code Hugepagesize} in
 * {@code /proc/meminfo} (Documentation/admin-guide/mm/hugetlbpage.rst: a mount without the pagesize
 * option serves the default huge page size). {@link #parseLine} takes one line, so a reader loses
 * only the hugetlbfs line it cannot understand and keeps the other mounts.
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
   * One line of {@code /proc/mounts}: the hugetlbfs mount it describes, or null for a mount of another
   * file system (and for lines too short to name one).
   *
   * @param defaultPageSizeBytes {@code Hugepagesize} from {@code /proc/meminfo}, or null when unknown
   * @throws IllegalArgumentException for a hugetlbfs line whose mount point or page size is malformed
   */
  public static HugetlbfsMount parseLine(String line, Long defaultPageSizeBytes) {
    if (line == null) {
      throw new IllegalArgumentException("mounts line is null");
    }
    String[] fields = line.trim().split("[ \t]+");
    if (fields.length < 3 || !fields[2].equals("hugetlbfs")) {
      return null;
    }
    String mountPoint = unescape(fields[1]);
    if (!mountPoint.startsWith("/")) {
      throw new IllegalArgumentException("hugetlbfs mount point is not absolute: " + Excerpt.of(mountPoint));
    }
    List<String> options = fields.length > 3 ? List.of(fields[3].split(",")) : List.of();
    Long pageSize = defaultPageSizeBytes;
    for (String option : options) {
      if (option.startsWith("pagesize=")) {
        try {
          pageSize = SizeParser.parseBytes(option.substring("pagesize=".length()));
        } catch (IllegalArgumentException e) {
          throw new IllegalArgumentException("hugetlbfs " + Excerpt.of(mountPoint) + ": bad " + Excerpt.of(option), e);
        }
        if (pageSize <= 0) {
          throw new IllegalArgumentException("hugetlbfs " + Excerpt.of(mountPoint) + ": page size is zero");
        }
      }
    }
    return new HugetlbfsMount(mountPoint, pageSize, options);
  }

  /** The whole of {@code /proc/mounts}: {@link #parseLine} per line, problems as {@code line N: reason}. */
  public static Result parse(String text, Long defaultPageSizeBytes) {
    if (text == null) {
      throw new IllegalArgumentException("mounts text is null");
    }
    List<HugetlbfsMount> mounts = new ArrayList<>();
    List<String> problems = new ArrayList<>();
    int lineNo = 0;
    for (String line : text.split("\n")) {
      lineNo++;
      try {
        HugetlbfsMount m = parseLine(line, defaultPageSizeBytes);
        if (m != null) {
          mounts.add(m);
        }
      } catch (IllegalArgumentException e) {
        problems.add("line " + lineNo + ": " + e.getMessage());
      }
    }
    return new Result(sorted(mounts), problems);
  }

  /** Mounts in mount-point order, the order {@code discover} prints them in. */
  public static List<HugetlbfsMount> sorted(List<HugetlbfsMount> mounts) {
    List<HugetlbfsMount> out = new ArrayList<>(mounts);
    out.sort(Order.by(HugetlbfsMount::mountPoint));
    return List.copyOf(out);
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
          throw new IllegalArgumentException("truncated escape in " + Excerpt.of(field));
        }
        int value = 0;
        for (int k = 1; k <= 3; k++) {
          char d = field.charAt(i + k);
          if (d < '0' || d > '7') {
            throw new IllegalArgumentException("bad escape in " + Excerpt.of(field));
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
}
