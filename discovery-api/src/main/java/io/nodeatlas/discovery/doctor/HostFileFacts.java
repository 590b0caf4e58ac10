package io.nodeatlas.discovery.doctor;

import io.nodeatlas.discovery.host.HostFs;
import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.LinkOption;
import java.nio.file.Path;
import java.util.Map;
import java.util.Optional;

/**
 * What stat(2) says of a host path, links followed only inside the host root: its type, mode bits,
 * owner and, for a device node, its major:minor (Linux's {@code major(3)}/{@code minor(3)} of
 * {@code st_rdev}). For doctor checks of device nodes, hooks and directories.
 */
public record HostFileFacts(int mode, int uid, long rdev) {

  private static final int S_IFMT = 0170000;

  /** The facts of {@code hostPath} (as the host names it, {@code /dev/nvidia0}); empty when nothing is there. */
  public static Optional<HostFileFacts> of(HostFs fs, String hostPath) {
    if (hostPath == null || !hostPath.startsWith("/")) {
      return Optional.empty();
    }
    try {
      Optional<Path> real = fs.realPath(fs.fromHostPath(hostPath));
      if (real.isEmpty()) {
        return Optional.empty();
      }
      Map<String, Object> a = Files.readAttributes(real.get(), "unix:mode,uid,rdev", LinkOption.NOFOLLOW_LINKS);
      return Optional.of(new HostFileFacts((Integer) a.get("mode"), (Integer) a.get("uid"), (Long) a.get("rdev")));
    } catch (IOException | RuntimeException e) {
      return Optional.empty();
    }
  }

  /** {@code c}, {@code b}, {@code p} (FIFO), {@code f} (regular file), {@code d} or {@code ?}, as CDI's device types. */
  public String type() {
    return switch (mode & S_IFMT) {
      case 0020000 -> "c";
      case 0060000 -> "b";
      case 0010000 -> "p";
      case 0100000 -> "f";
      case 0040000 -> "d";
      default -> "?";
    };
  }

  public boolean isDevice() {
    return type().equals("c") || type().equals("b");
  }

  public boolean isExecutableFile() {
    return type().equals("f") && (mode & 0111) != 0;
  }

  /**
   * Whether the owner is one the node trusts: root, or on a saved tree ({@code --host-root} other than
   * {@code /}) whoever owns that tree's root, since copying a tree makes its files the copier's.
   */
  public boolean ownedByTrusted(HostFs fs) {
    if (uid == 0) {
      return true;
    }
    try {
      return !fs.hostRoot().toString().equals("/")
          && ((Integer) Files.getAttribute(fs.hostRoot(), "unix:uid", LinkOption.NOFOLLOW_LINKS)) == uid;
    } catch (IOException | RuntimeException e) {
      return false;
    }
  }

  /** Whether users other than the owner may write it. */
  public boolean writableByOthers() {
    return (mode & 022) != 0;
  }

  public int permissions() {
    return mode & 07777;
  }

  public long major() {
    return ((rdev >>> 8) & 0xfff) | ((rdev >>> 32) & ~0xfffL);
  }

  public long minor() {
    return (rdev & 0xff) | ((rdev >>> 12) & ~0xffL);
  }
}
