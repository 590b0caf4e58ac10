package io.nodeatlas.agent.doctor;

import io.nodeatlas.discovery.host.HostFs;
import java.util.ArrayList;
import java.util.List;
import java.util.Optional;

/**
 * The host's mounts as its init process sees them ({@code /proc/1/mountinfo}, proc(5)): mount point
 * and file system type, enough to tell what a directory lies on.
 */
record MountTable(List<Mount> mounts) {

  record Mount(String point, String type) {}

  static MountTable read(HostFs fs) {
    try {
      Optional<String> text = fs.readString(fs.proc("1/mountinfo"));
      return parse(text.orElse(""));
    } catch (RuntimeException e) {
      return new MountTable(List.of());
    }
  }

  /** Lines of {@code id parent major:minor root point options... - type source superoptions}. */
  static MountTable parse(String mountinfo) {
    List<Mount> mounts = new ArrayList<>();
    for (String line : mountinfo.split("\n")) {
      String[] f = line.split(" ");
      int dash = List.of(f).indexOf("-");
      if (f.length < 5 || dash < 6 || dash + 1 >= f.length || mounts.size() >= 100_000) {
        continue;
      }
      mounts.add(new Mount(unescape(f[4]), f[dash + 1]));
    }
    return new MountTable(mounts);
  }

  /** The type of the file system {@code dir} lies on (the last mount of the longest matching point). */
  Optional<String> fileSystemOf(String dir) {
    String d = canonical(dir);
    Mount best = null;
    for (Mount m : mounts) {
      String p = canonical(m.point());
      boolean under = p.equals("/") || d.equals(p) || d.startsWith(p + "/");
      if (under && (best == null || canonical(best.point()).length() <= p.length())) {
        best = m;
      }
    }
    return Optional.ofNullable(best).map(Mount::type);
  }

  /** {@code /var/run} is a link to {@code /run} on every current distribution. */
  private static String canonical(String path) {
    return path.equals("/var/run") ? "/run" : path.startsWith("/var/run/") ? path.substring(4) : path;
  }

  /** mountinfo escapes space, tab, newline and backslash as octal. */
  private static String unescape(String s) {
    return s.replace("\\040", " ").replace("\\011", "\t").replace("\\012", "\n").replace("\\134", "\\");
  }
}
