package io.nodeatlas.discovery.host;

import java.io.IOException;
import java.io.InputStream;
import java.nio.charset.StandardCharsets;
import java.nio.file.AccessDeniedException;
import java.nio.file.DirectoryStream;
import java.nio.file.FileSystemLoopException;
import java.nio.file.Files;
import java.nio.file.LinkOption;
import java.nio.file.NoSuchFileException;
import java.nio.file.NotDirectoryException;
import java.nio.file.Path;
import java.nio.file.attribute.BasicFileAttributes;
import java.util.ArrayList;
import java.util.LinkedHashSet;
import java.util.List;
import java.util.Map;
import java.util.Objects;
import java.util.Optional;
import java.util.Set;
import java.util.concurrent.ConcurrentHashMap;

/**
 * Every read of host state goes through here, rooted at a configurable host root so that a DaemonSet
 * can read {@code /host-sys} and tests can read fixture trees. The roots follow NFD's and OSHI's
 * convention: one host root, with separate overrides for sysfs, procfs and {@code /dev}.
 *
 * <p>Reads are defensive, because sysfs is full of surprises: a missing file or a dangling symlink is
 * an absent fact ({@link Optional#empty()}); a file that exists but is not a regular file, cannot be
 * read, or is larger than {@link #MAX_FILE_BYTES} raises {@link HostFileException}; values are
 * trimmed of whitespace and the NUL bytes some kernels append ({@code 0-1\n\0}).
 *
 * <p>Reads are confined: a path whose symlinks (relative or absolute, in the last element or in any
 * directory on the way) resolve outside every configured root is refused with a
 * {@link HostFileException}, never followed. A hostile or merely odd host tree (an absolute
 * {@code /etc/...} link in a snapshot, a link planted under the host root of a DaemonSet) therefore
 * cannot make us read the agent's own files. Real paths of directories are remembered until
 * {@link #forgetResolvedDirectories()} (called at the start of every discovery run), so confinement
 * costs one {@code lstat} per read, not one {@code readlink} per path element.
 */
public final class HostFs {

  /** sysfs attributes are at most a page; {@code /proc/mounts} on a busy host is the largest input we read. */
  public static final int MAX_FILE_BYTES = 4 << 20;

  private final Path hostRoot;
  private final Path sysfsRoot;
  private final Path procfsRoot;
  private final Path devRoot;
  /** Roots beyond the four (a driver root) that reads may also resolve into. */
  private final List<Path> extraRoots;
  /** Real paths of every root, for the confinement check; empty when one root is {@code /} (nothing to escape). */
  private final List<Path> realRoots;
  /** Directory → its real path, bounded; see {@link #forgetResolvedDirectories()}. */
  private final Map<Path, Path> realDirectories = new ConcurrentHashMap<>();

  private static final int MAX_REMEMBERED_DIRECTORIES = 16_384;

  private HostFs(Path hostRoot, Path sysfsRoot, Path procfsRoot, Path devRoot, List<Path> extraRoots) {
    this.hostRoot = hostRoot;
    this.sysfsRoot = sysfsRoot;
    this.procfsRoot = procfsRoot;
    this.devRoot = devRoot;
    this.extraRoots = List.copyOf(extraRoots);
    Set<Path> roots = new LinkedHashSet<>();
    roots.add(hostRoot);
    roots.add(sysfsRoot);
    roots.add(procfsRoot);
    roots.add(devRoot);
    roots.addAll(extraRoots);
    List<Path> real = new ArrayList<>();
    boolean unconfined = false;
    for (Path r : roots) {
      Path rr = realOrSelf(r);
      if (rr.getParent() == null) {
        unconfined = true;
      }
      real.add(rr);
      // The root as given too: lexically resolved link targets (FactReader.link) start with it when
      // the root is reached through a symlink. A real path never does (it has no symlink elements),
      // so this admits nothing a real-path check would refuse.
      if (!rr.equals(r)) {
        real.add(r);
      }
    }
    this.realRoots = unconfined ? List.of() : List.copyOf(real);
  }

  private static Path realOrSelf(Path p) {
    try {
      return p.toRealPath();
    } catch (IOException e) {
      return p;
    }
  }

  /**
   * The same host with one more root that reads may resolve into (a driver installation outside the
   * host root, such as {@code --nvidia-driver-root}).
   */
  public HostFs withRoot(Path extraRoot) {
    List<Path> extra = new ArrayList<>(extraRoots);
    extra.add(extraRoot.toAbsolutePath().normalize());
    return new HostFs(hostRoot, sysfsRoot, procfsRoot, devRoot, extra);
  }

  /** Drops the remembered real paths of directories, so a re-discovery sees links changed since (hotplug). */
  public void forgetResolvedDirectories() {
    realDirectories.clear();
  }

  /** Whether {@code realPath} lies under one of the roots; everything does when a root is {@code /}. */
  public boolean isConfined(Path realPath) {
    if (realRoots.isEmpty()) {
      return true;
    }
    for (Path r : realRoots) {
      if (realPath.startsWith(r)) {
        return true;
      }
    }
    return false;
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

  private static String join(String prefix, Path relative) {
    String rel = relative.toString();
    return rel.isEmpty() ? (prefix.isEmpty() ? "/" : prefix) : prefix + "/" + rel;
  }

  /** A host rooted at {@code hostRoot}: sysfs at {@code <root>/sys}, procfs at {@code <root>/proc}, dev at {@code <root>/dev}. */
  public static HostFs of(Path hostRoot) {
    return builder(hostRoot).build();
  }

  public static Builder builder(Path hostRoot) {
    return new Builder(hostRoot);
  }

  public Path hostRoot() {
    return hostRoot;
  }

  public Path sysfsRoot() {
    return sysfsRoot;
  }

  public Path procfsRoot() {
    return procfsRoot;
  }

  public Path devRoot() {
    return devRoot;
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

  private static Path resolve(Path root, String relative) {
    Objects.requireNonNull(relative, "relative");
    while (relative.startsWith("/")) {
      relative = relative.substring(1);
    }
    return relative.isEmpty() ? root : root.resolve(relative);
  }

  /** The whole file as text; empty when it does not exist. */
  public Optional<String> readString(Path file) {
    byte[] bytes = readBytes(file);
    return bytes == null ? Optional.empty() : Optional.of(new String(bytes, StandardCharsets.UTF_8));
  }

  /** A single-value attribute: the file's text trimmed of whitespace and NUL bytes. */
  public Optional<String> readValue(Path file) {
    return readString(file).map(HostFs::trimValue);
  }

  /** The file's lines (NUL bytes removed); empty list when it does not exist. */
  public List<String> readLines(Path file) {
    return readString(file).map(text -> text.replace("\0", "").lines().toList()).orElse(List.of());
  }

  /**
   * Whether a path exists, following symlinks (a dangling link does not exist, and neither does a
   * path that resolves outside the roots).
   */
  public boolean exists(Path path) {
    return Files.exists(path) && confinedQuietly(path);
  }

  /**
   * Whether {@code path} itself is a directory, not a symlink to one (one {@code lstat}): for walks of
   * trees such as {@code /sys/devices}, whose entries are real directories and whose links are not
   * followed. Such an entry is as confined as the directory it was listed from.
   */
  public boolean isDirectoryNoFollow(Path path) {
    return Files.isDirectory(path, LinkOption.NOFOLLOW_LINKS);
  }

  /** Whether a path is a directory inside the roots, following symlinks. */
  public boolean isDirectory(Path path) {
    return Files.isDirectory(path) && confinedQuietly(path);
  }

  private boolean confinedQuietly(Path path) {
    if (realRoots.isEmpty()) {
      return true;
    }
    try {
      Path real = realDirectoryOrFile(path);
      return real == null || isConfined(real);
    } catch (IOException e) {
      return false;
    }
  }

  /** The real path of a directory, remembered; null when it does not exist. */
  private Path realDirectory(Path dir) throws IOException {
    Path known = realDirectories.get(dir);
    if (known != null) {
      return known;
    }
    Path real = derivedRealDirectory(dir);
    if (real != null) {
      remember(dir, real);
      return real;
    }
    try {
      real = dir.toRealPath();
    } catch (NoSuchFileException | NotDirectoryException e) {
      return null;
    } catch (java.nio.file.FileSystemException e) {
      if (e.getReason() != null && e.getReason().contains("symbolic links")) {
        throw new FileSystemLoopException(dir.toString());
      }
      throw e;
    }
    remember(dir, real);
    return real;
  }

  private void remember(Path dir, Path real) {
    if (realDirectories.size() >= MAX_REMEMBERED_DIRECTORIES) {
      realDirectories.clear();
    }
    realDirectories.put(dir, real);
  }

  /**
   * The real path of a directory whose parent's real path is remembered and which is itself a real
   * directory, not a symlink: the parent's real path plus its name, for one {@code lstat} instead of a
   * {@code realpath(3)} walk of every element (a walk of {@code /sys/devices/pci*} meets thousands of
   * nested directories). Null when that does not apply.
   */
  private Path derivedRealDirectory(Path dir) {
    Path parent = dir.getParent();
    Path name = dir.getFileName();
    if (parent == null || name == null || name.toString().equals("..") || name.toString().equals(".")) {
      return null;
    }
    Path realParent = realDirectories.get(parent);
    if (realParent == null) {
      return null;
    }
    Path leaf = realParent.resolve(name.toString());
    return Files.isDirectory(leaf, LinkOption.NOFOLLOW_LINKS) ? leaf : null;
  }

  /** The real path of any path: its directory's remembered real path plus the last element, resolved if a link. */
  private Path realDirectoryOrFile(Path path) throws IOException {
    Path parent = path.toAbsolutePath().getParent();
    if (parent == null) {
      return path.toRealPath();
    }
    Path realParent = realDirectory(parent);
    if (realParent == null) {
      return null;
    }
    Path leaf = realParent.resolve(path.getFileName().toString());
    if (Files.isSymbolicLink(leaf) || Files.isDirectory(leaf, LinkOption.NOFOLLOW_LINKS)) {
      try {
        return leaf.toRealPath();
      } catch (NoSuchFileException e) {
        return null;
      }
    }
    return leaf;
  }

  /**
   * Refuses a path that resolves outside the roots. Returns the path to open: its real path when any
   * element is a symlink, so the check and the open see the same file.
   */
  private Path confine(Path path) throws IOException {
    if (realRoots.isEmpty()) {
      return path;
    }
    Path real = realDirectoryOrFile(path);
    if (real == null) {
      throw new NoSuchFileException(path.toString());
    }
    if (!isConfined(real)) {
      throw new HostFileException(path, "resolves outside the host root (to " + real + "); symlink not followed", null);
    }
    return real;
  }

  /**
   * The names of a directory's entries, sorted: {@link #list} without a {@link Path} per entry (the same
   * confinement, absence and errors), for walks of large trees such as {@code /sys/devices/pci*} that
   * follow only a few names of each directory.
   */
  public List<String> listNames(Path dir) {
    if (!listable(dir)) {
      return List.of();
    }
    String[] names = dir.toFile().list();
    if (names == null) {
      throw new HostFileException(dir, Files.isReadable(dir) ? "cannot be listed" : "permission denied", null);
    }
    java.util.Arrays.sort(names);
    return java.util.Arrays.asList(names);
  }

  /** Whether {@code dir} is a directory to list: false when absent (or a dangling link); throws when broken or confined out. */
  private boolean listable(Path dir) {
    try {
      if (Files.isDirectory(dir) && !realRoots.isEmpty()) {
        // The directory's real path is remembered, so the reads of its files that usually follow
        // cost no second resolution.
        Path real = realDirectory(dir.toAbsolutePath());
        if (real == null) {
          return false;
        }
        if (!isConfined(real)) {
          throw new HostFileException(dir, "resolves outside the host root (to " + real + "); symlink not followed", null);
        }
      }
    } catch (IOException e) {
      throw new HostFileException(dir, e.toString(), e);
    }
    if (!Files.isDirectory(dir)) {
      if (Files.exists(dir, LinkOption.NOFOLLOW_LINKS) && !Files.exists(dir)) {
        // A dangling link is an absent directory; a link cycle is a broken one (ELOOP), not absence.
        if (isSymlinkLoop(dir)) {
          throw new HostFileException(dir, "symlink loop", null);
        }
        return false;
      }
      if (Files.exists(dir)) {
        throw new HostFileException(dir, "not a directory", null);
      }
      return false;
    }
    return true;
  }

  /**
   * The entries of a directory sorted by name; empty when it does not exist. Entries are returned
   * whether or not they are dangling symlinks, so callers can report those.
   */
  public List<Path> list(Path dir) {
    if (!listable(dir)) {
      return List.of();
    }
    List<Path> entries = new ArrayList<>();
    try (DirectoryStream<Path> stream = Files.newDirectoryStream(dir)) {
      for (Path p : stream) {
        entries.add(p);
      }
    } catch (NoSuchFileException | NotDirectoryException e) {
      return List.of();
    } catch (AccessDeniedException e) {
      throw new HostFileException(dir, "permission denied", e);
    } catch (IOException e) {
      throw new HostFileException(dir, e.toString(), e);
    }
    entries.sort((a, b) -> a.getFileName().toString().compareTo(b.getFileName().toString()));
    return entries;
  }

  /** Whether resolving {@code path} fails with ELOOP (a cycle of symlinks), as opposed to a missing target. */
  private static boolean isSymlinkLoop(Path path) {
    try {
      path.toRealPath();
      return false;
    } catch (FileSystemLoopException e) {
      return true;
    } catch (java.nio.file.FileSystemException e) {
      return e.getReason() != null && e.getReason().contains("symbolic links");
    } catch (IOException e) {
      return false;
    }
  }

  /** The target of a symlink as written (e.g. {@code ../../node/node0}); empty when not a symlink. */
  public Optional<Path> readLink(Path link) {
    if (!Files.isSymbolicLink(link)) {
      return Optional.empty();
    }
    try {
      return Optional.of(Files.readSymbolicLink(link));
    } catch (IOException e) {
      throw new HostFileException(link, e.toString(), e);
    }
  }

  /**
   * The link's target resolved against the link's directory and normalised, without requiring it to
   * exist and without leaving the host tree: a fixture tree resolves the same way as {@code /sys}.
   */
  public Optional<Path> resolveLink(Path link) {
    return readLink(link).map(target -> {
      if (target.isAbsolute()) {
        // Absolute links inside sysfs point at /sys/...: re-root them under our sysfs root.
        Path rel = target.getRoot().relativize(target);
        if (rel.getNameCount() > 0 && rel.getName(0).toString().equals("sys")) {
          return rel.getNameCount() == 1 ? sysfsRoot : sysfsRoot.resolve(rel.subpath(1, rel.getNameCount()).toString());
        }
        return hostRoot.resolve(rel.toString());
      }
      return link.getParent().resolve(target).normalize();
    });
  }

  /** The canonical path of an existing file, symlinks resolved; empty when it does not exist. */
  public Optional<Path> realPath(Path path) {
    try {
      Path real = path.toRealPath();
      if (!isConfined(real)) {
        throw new HostFileException(path, "resolves outside the host root (to " + real + "); symlink not followed", null);
      }
      return Optional.of(real);
    } catch (NoSuchFileException e) {
      return Optional.empty();
    } catch (IOException e) {
      throw new HostFileException(path, e.toString(), e);
    }
  }

  private byte[] readBytes(Path file) {
    // One stat answers "missing", "dangling link", "directory" and "FIFO" at once; it has to come
    // before open(2), which would block on a FIFO. Discovery reads thousands of small sysfs files, so
    // the syscall count per read matters: when confined, the stat is an lstat of the last element
    // under its directory's remembered real path, and only a link costs a full resolution.
    Path open = file;
    BasicFileAttributes attributes;
    try {
      if (realRoots.isEmpty()) {
        attributes = Files.readAttributes(file, BasicFileAttributes.class);
      } else {
        Path parent = file.toAbsolutePath().getParent();
        Path realParent = parent == null ? null : realDirectory(parent);
        if (realParent == null) {
          return null;
        }
        if (!isConfined(realParent)) {
          throw new HostFileException(file, "resolves outside the host root (to " + realParent + "); symlink not followed", null);
        }
        open = realParent.resolve(file.getFileName().toString());
        attributes = Files.readAttributes(open, BasicFileAttributes.class, LinkOption.NOFOLLOW_LINKS);
        if (attributes.isSymbolicLink()) {
          open = open.toRealPath();
          if (!isConfined(open)) {
            throw new HostFileException(file, "resolves outside the host root (to " + open + "); symlink not followed", null);
          }
          attributes = Files.readAttributes(open, BasicFileAttributes.class);
        }
      }
    } catch (NoSuchFileException | NotDirectoryException e) {
      return null; // absent, or a dangling symlink: the fact is absent
    } catch (AccessDeniedException e) {
      throw new HostFileException(file, "permission denied", e);
    } catch (FileSystemLoopException e) {
      throw new HostFileException(file, "symlink loop", e);
    } catch (IOException e) {
      throw new HostFileException(file, ioReason(e), e);
    }
    if (!attributes.isRegularFile()) {
      // Never open a FIFO or socket (it could block) and never treat a directory as a value.
      throw new HostFileException(file, attributes.isDirectory() ? "is a directory" : "not a regular file", null);
    }
    try (InputStream in = Files.newInputStream(open)) {
      return readCapped(in, file);
    } catch (NoSuchFileException e) {
      return null;
    } catch (AccessDeniedException e) {
      throw new HostFileException(file, "permission denied", e);
    } catch (IOException e) {
      throw new HostFileException(file, ioReason(e), e);
    }
  }

  private static String ioReason(IOException e) {
    String m = e.getMessage();
    if (m == null) {
      return e.getClass().getSimpleName();
    }
    // FileSystemException messages repeat the path ("/x/y: Too many levels of symbolic links").
    if (e instanceof java.nio.file.FileSystemException fse && fse.getReason() != null) {
      return fse.getReason();
    }
    return m;
  }

  /**
   * Reads at most {@link #MAX_FILE_BYTES}. Starts with a buffer the size of a typical sysfs value and
   * grows it only for larger files: a 4,096-VF node means a quarter of a million reads, and an 8 KiB
   * buffer per read (what {@code readNBytes} allocates) turned into gigabytes of garbage.
   */
  private static byte[] readCapped(InputStream in, Path file) throws IOException {
    byte[] buf = new byte[128];
    int length = 0;
    while (true) {
      if (length == buf.length) {
        if (buf.length > MAX_FILE_BYTES) {
          throw new HostFileException(file, "larger than " + (MAX_FILE_BYTES >> 20) + " MiB", null);
        }
        buf = java.util.Arrays.copyOf(buf, Math.min(buf.length * 4, MAX_FILE_BYTES + 1));
      }
      int n = in.read(buf, length, buf.length - length);
      if (n < 0) {
        if (length > MAX_FILE_BYTES) {
          throw new HostFileException(file, "larger than " + (MAX_FILE_BYTES >> 20) + " MiB", null);
        }
        return java.util.Arrays.copyOf(buf, length);
      }
      length += n;
    }
  }

  /** Strips leading and trailing whitespace and NUL bytes. */
  public static String trimValue(String text) {
    int start = 0;
    int end = text.length();
    while (start < end && isTrim(text.charAt(start))) {
      start++;
    }
    while (end > start && isTrim(text.charAt(end - 1))) {
      end--;
    }
    return text.substring(start, end);
  }

  private static boolean isTrim(char c) {
    return c == '\0' || Character.isWhitespace(c);
  }

  @Override
  public String toString() {
    return "HostFs[root=" + hostRoot + ", sysfs=" + sysfsRoot + ", procfs=" + procfsRoot + ", dev=" + devRoot + "]";
  }

  /** Builds a {@link HostFs}; unset roots default to {@code sys}, {@code proc} and {@code dev} under the host root. */
  public static final class Builder {
    private final Path hostRoot;
    private Path sysfsRoot;
    private Path procfsRoot;
    private Path devRoot;
    private final List<Path> extraRoots = new ArrayList<>();

    private Builder(Path hostRoot) {
      this.hostRoot = Objects.requireNonNull(hostRoot, "hostRoot").toAbsolutePath().normalize();
    }

    public Builder sysfsRoot(Path path) {
      this.sysfsRoot = path;
      return this;
    }

    public Builder procfsRoot(Path path) {
      this.procfsRoot = path;
      return this;
    }

    public Builder devRoot(Path path) {
      this.devRoot = path;
      return this;
    }

    /** One more root that reads may resolve into (see {@link HostFs#withRoot}). */
    public Builder extraRoot(Path path) {
      extraRoots.add(path.toAbsolutePath().normalize());
      return this;
    }

    public HostFs build() {
      return new HostFs(
          hostRoot,
          normalise(sysfsRoot, hostRoot.resolve("sys")),
          normalise(procfsRoot, hostRoot.resolve("proc")),
          normalise(devRoot, hostRoot.resolve("dev")),
          extraRoots);
    }

    private static Path normalise(Path given, Path fallback) {
      return (given == null ? fallback : given).toAbsolutePath().normalize();
    }
  }
}
