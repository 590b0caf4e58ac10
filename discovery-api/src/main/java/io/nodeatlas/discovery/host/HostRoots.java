package io.nodeatlas.discovery.host;

import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.Objects;

/**
 * Where the host's files are: one host root with its own sysfs, procfs and {@code /dev} roots (NFD's
 * and OSHI's convention), and any further roots reads may resolve into; it maps host paths to ours and
 * back, and reads nothing.
 *
 * @param extraRoots roots beyond the four (a driver root), absolute and normalised
 */
public record HostRoots(Path hostRoot, Path sysfsRoot, Path procfsRoot, Path devRoot, List<Path> extraRoots) {

  public HostRoots {
    hostRoot = normalise(hostRoot, null);
    sysfsRoot = normalise(sysfsRoot, hostRoot.resolve("sys"));
    procfsRoot = normalise(procfsRoot, hostRoot.resolve("proc"));
    devRoot = normalise(devRoot, hostRoot.resolve("dev"));
    List<Path> extra = new ArrayList<>();
    for (Path p : extraRoots) {
      extra.add(p.toAbsolutePath().normalize());
    }
    extraRoots = List.copyOf(extra);
  }

  /** A host rooted at {@code hostRoot}: sysfs at {@code <root>/sys}, procfs at {@code <root>/proc}, dev at {@code <root>/dev}. */
  public static HostRoots of(Path hostRoot) {
    return new HostRoots(hostRoot, null, null, null, List.of());
  }

  private static Path normalise(Path given, Path fallback) {
    Path p = given == null ? Objects.requireNonNull(fallback, "hostRoot") : given;
    return p.toAbsolutePath().normalize();
  }

  /** The same roots and one more (a driver installation outside the host root). */
  public HostRoots withRoot(Path extraRoot) {
    List<Path> extra = new ArrayList<>(extraRoots);
    extra.add(extraRoot);
    return new HostRoots(hostRoot, sysfsRoot, procfsRoot, devRoot, extra);
  }

  /** Every root, the host root first, each once. */
  public List<Path> all() {
    List<Path> roots = new ArrayList<>();
    for (Path r : List.of(hostRoot, sysfsRoot, procfsRoot, devRoot)) {
      if (!roots.contains(r)) {
        roots.add(r);
      }
    }
    for (Path r : extraRoots) {
      if (!roots.contains(r)) {
        roots.add(r);
      }
    }
    return roots;
  }

  /** A path under sysfs, e.g. {@code sys("devices/system/cpu/online")}. */
  public Path sys(String relative) {
    return resolve(sysfsRoot, relative);
  }

  public Path proc(String relative) {
    return resolve(procfsRoot, relative);
  }

  public Path dev(String relative) {
    return resolve(devRoot, relative);
  }

  /** Any other host path, e.g. {@code host("etc/hostname")}. */
  public Path host(String relative) {
    return resolve(hostRoot, relative);
  }

  /**
   * Maps a path as the host sees it ({@code /dev/infiniband/uverbs0}) to where we can read it. Device
   * nodes under {@code /dev} go through the dev root; everything else through the host root.
   */
  public Path fromHostPath(String absoluteHostPath) {
    String rel = absoluteHostPath.startsWith("/") ? absoluteHostPath.substring(1) : absoluteHostPath;
    if (rel.equals("dev") || rel.startsWith("dev/")) {
      return rel.length() <= 4 ? devRoot : dev(rel.substring(4));
    }
    return host(rel);
  }

  /**
   * How the host itself would name {@code path} ({@code /sys/devices/system/cpu/online} for a file
   * under {@code --sysfs-root}), for messages: users know the host's paths, not our mount points.
   */
  public String hostPath(Path path) {
    Path p = path.toAbsolutePath().normalize();
    if (p.startsWith(sysfsRoot) && !sysfsRoot.equals(hostRoot)) {
      return join("/sys", sysfsRoot.relativize(p));
    }
    if (p.startsWith(procfsRoot) && !procfsRoot.equals(hostRoot)) {
      return join("/proc", procfsRoot.relativize(p));
    }
    if (p.startsWith(devRoot) && !devRoot.equals(hostRoot)) {
      return join("/dev", devRoot.relativize(p));
    }
    if (p.startsWith(hostRoot)) {
      return join("", hostRoot.relativize(p));
    }
    return p.toString();
  }

  /**
   * A link target as written ({@code /sys/devices/...} or {@code ../../node/node0}) resolved against
   * the link's directory and normalised, absolute targets under {@code /sys} re-rooted at the sysfs root
   * and others at the host root, so a fixture tree resolves as {@code /sys} does.
   */
  public Path resolveLinkTarget(Path link, Path target) {
    if (target.isAbsolute()) {
      Path rel = target.getRoot().relativize(target);
      if (rel.getNameCount() > 0 && rel.getName(0).toString().equals("sys")) {
        return rel.getNameCount() == 1 ? sysfsRoot : sysfsRoot.resolve(rel.subpath(1, rel.getNameCount()).toString());
      }
      return hostRoot.resolve(rel.toString());
    }
    return link.getParent().resolve(target).normalize();
  }

  private static String join(String prefix, Path relative) {
    String rel = relative.toString();
    return rel.isEmpty() ? (prefix.isEmpty() ? "/" : prefix) : prefix + "/" + rel;
  }

  private static Path resolve(Path root, String relative) {
    Objects.requireNonNull(relative, "relative");
    while (relative.startsWith("/")) {
      relative = relative.substring(1);
    }
    return relative.isEmpty() ? root : root.resolve(relative);
  }
}
