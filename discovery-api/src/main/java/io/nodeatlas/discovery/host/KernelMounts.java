package io.nodeatlas.discovery.host;

import java.nio.file.Path;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.Set;

/**
 * Which mount points below the sysfs and procfs roots hold a file system whose every entry the kernel
 * makes: sysfs and procfs. Their entries are regular files, directories and symlinks only; neither
 * has a {@code mknod} operation (fs/kernfs/dir.c {@code kernfs_dir_iops}, fs/proc/root.c
 * {@code proc_root_inode_operations}), so no FIFO, socket or device node can appear in them, whoever
 * asks. {@link ValueFileReader} opens value files there without the {@code lstat(2)} that elsewhere keeps it
 * from opening a FIFO (an {@code open(2)} that would block); that {@code lstat} adds about a third to
 * a small file's read (open, read, close) in C, on sysfs as on tmpfs.
 *
 * <p>Built from {@code /proc/self/mountinfo} (proc(5)): the mount point is the fifth field, with
 * space, tab, newline and backslash written as octal escapes; the file system type is the first field
 * after the {@code " - "} separator. A later line for the same mount point is a mount on top of the
 * earlier one, and wins. Mount points are in this process's namespace, as the paths it opens are.
 */
final class KernelMounts {

  /** File systems made entirely by the kernel (see the class comment). */
  private static final Set<String> KERNEL_MADE = Set.of("sysfs", "proc");

  /** Nothing is known to be kernel-made: every read checks the file type first. */
  static final KernelMounts NONE = new KernelMounts(Map.of());

  /** Mount point → whether its file system is kernel-made, for mount points at or below the roots. */
  private final Map<Path, Boolean> mountPoints;

  private KernelMounts(Map<Path, Boolean> mountPoints) {
    this.mountPoints = mountPoints;
  }

  /**
   * The mount points of {@code mountinfo} at or below one of {@code roots} (real, absolute paths).
   * Lines that do not parse are skipped: a mount point missing here is read the careful way.
   */
  static KernelMounts parse(String mountinfo, List<Path> roots) {
    Map<Path, Boolean> found = new HashMap<>();
    // A busy node mounts thousands of volumes; a line that does not name a root anywhere is not split.
    // (A root with a character that mountinfo escapes cannot be looked for as text: every line is.)
    String[] needles = new String[roots.size()];
    boolean filter = true;
    for (int i = 0; i < needles.length; i++) {
      String t = roots.get(i).toString();
      needles[i] = " " + t;
      filter &= t.indexOf(' ') < 0 && t.indexOf('\t') < 0 && t.indexOf('\n') < 0 && t.indexOf('\\') < 0;
    }
    for (String line : mountinfo.split("\n")) {
      if (filter && !containsAny(line, needles)) {
        continue;
      }
      String[] f = line.split(" ");
      int dash = -1;
      for (int i = 6; i < f.length; i++) {
        if (f[i].equals("-")) {
          dash = i;
          break;
        }
      }
      if (f.length < 7 || dash < 0 || dash + 1 >= f.length) {
        continue;
      }
      String point = unescape(f[4]);
      if (point == null || !point.startsWith("/")) {
        continue;
      }
      Path p;
      try {
        p = Path.of(point).normalize();
      } catch (java.nio.file.InvalidPathException e) {
        continue; // a NUL in it: that mount alone is left out
      }
      for (Path root : roots) {
        if (p.startsWith(root)) {
          found.put(p, KERNEL_MADE.contains(f[dash + 1]));
          break;
        }
      }
    }
    return found.isEmpty() ? NONE : new KernelMounts(Map.copyOf(found));
  }

  private static boolean containsAny(String line, String[] needles) {
    for (String n : needles) {
      if (line.contains(n)) {
        return true;
      }
    }
    return false;
  }

  /** {@code \NNN} octal escapes (fs/proc_namespace.c, {@code mangle}); null when one is malformed. */
  private static String unescape(String s) {
    if (s.indexOf('\\') < 0) {
      return s;
    }
    StringBuilder out = new StringBuilder(s.length());
    for (int i = 0; i < s.length(); i++) {
      char c = s.charAt(i);
      if (c != '\\') {
        out.append(c);
        continue;
      }
      if (i + 3 >= s.length()) {
        return null;
      }
      int v = 0;
      for (int k = 1; k <= 3; k++) {
        char d = s.charAt(i + k);
        if (d < '0' || d > '7') {
          return null;
        }
        v = v * 8 + (d - '0');
      }
      out.append((char) v);
      i += 3;
    }
    return out.toString();
  }

  /**
   * Whether something is mounted at {@code real}: a file there too, such as LXCFS's FUSE files over
   * {@code /proc/cpuinfo} and {@code /proc/meminfo} in a container, or the character devices container
   * runtimes bind over {@code /proc/kcore}; such a file is whatever the mount holds, and is stat'ed first.
   */
  boolean isMountPoint(Path real) {
    return !mountPoints.isEmpty() && mountPoints.containsKey(real);
  }

  /**
   * Whether the directory {@code real} (a real path) is kernel-made: its own mount's answer when it
   * is a mount point, else its parent directory's ({@code parentKernelMade}).
   */
  boolean kernelMade(Path real, boolean parentKernelMade) {
    Boolean own = mountPoints.get(real);
    return own != null ? own : parentKernelMade;
  }
}
