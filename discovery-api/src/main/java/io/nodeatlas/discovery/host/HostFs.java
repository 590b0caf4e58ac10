package io.nodeatlas.discovery.host;

import io.nodeatlas.discovery.host.PathWalker.Resolved;
import java.io.File;
import java.io.IOException;
import java.nio.file.AccessDeniedException;
import java.nio.file.FileSystemLoopException;
import java.nio.file.Files;
import java.nio.file.LinkOption;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.Objects;
import java.util.Optional;

/**
 * Every read of host state, confined to the {@link HostRoots}: a missing file or dangling symlink is an
 * absent fact ({@link Optional#empty()}); a file that is not a regular file, cannot be read, is larger than
 * {@link #MAX_FILE_BYTES} or resolves outside every root raises {@link HostFileException}, never followed.
 * How confinement and trust work, and why reads cost what they cost: docs/design/host-reads.md.
 */
public final class HostFs {

  /** sysfs attributes are at most a page; {@code /proc/mounts} on a busy host is the largest input we read. */
  public static final int MAX_FILE_BYTES = 4 << 20;

  private final HostRoots roots;
  private final PathWalker walker;
  private final ValueFileReader values;
  private final DirectoryLister lister;
  private final LinkReader links;

  private HostFs(HostRoots roots) {
    this.roots = roots;
    this.walker = new PathWalker(roots);
    this.values = new ValueFileReader(walker);
    this.lister = new DirectoryLister(walker);
    this.links = new LinkReader(walker);
  }

  /** A reader of the host at {@code roots}. */
  public static HostFs of(HostRoots roots) {
    return new HostFs(roots);
  }

  /** A host rooted at {@code hostRoot}: sysfs at {@code <root>/sys}, procfs at {@code <root>/proc}, dev at {@code <root>/dev}. */
  public static HostFs of(Path hostRoot) {
    return builder(hostRoot).build();
  }

  public static Builder builder(Path hostRoot) {
    return new Builder(hostRoot);
  }

  /** Where this host's files are. */
  public HostRoots roots() {
    return roots;
  }

  /**
   * The same host with one more root that reads may resolve into (a driver installation outside the
   * host root, such as {@code --nvidia-driver-root}).
   */
  public HostFs withRoot(Path extraRoot) {
    return new HostFs(roots.withRoot(extraRoot));
  }

  /** Drops the remembered real paths of directories, so a re-discovery sees links changed since (hotplug). */
  public void forgetResolvedDirectories() {
    walker.forget();
  }

  /** Whether {@code realPath} lies under one of the roots; everything does when a root is {@code /}. */
  public boolean isConfined(Path realPath) {
    return walker.isConfined(realPath);
  }

  /** See {@link HostRoots#hostPath}. */
  public String hostPath(Path path) {
    return roots.hostPath(path);
  }

  public Path hostRoot() {
    return roots.hostRoot();
  }

  public Path sysfsRoot() {
    return roots.sysfsRoot();
  }

  public Path procfsRoot() {
    return roots.procfsRoot();
  }

  public Path devRoot() {
    return roots.devRoot();
  }

  /** A path under sysfs, e.g. {@code sys("devices/system/cpu/online")}. */
  public Path sys(String relative) {
    return roots.sys(relative);
  }

  public Path proc(String relative) {
    return roots.proc(relative);
  }

  public Path dev(String relative) {
    return roots.dev(relative);
  }

  /** Any other host path, e.g. {@code host("etc/hostname")}. */
  public Path host(String relative) {
    return roots.host(relative);
  }

  /** See {@link HostRoots#fromHostPath}. */
  public Path fromHostPath(String absoluteHostPath) {
    return roots.fromHostPath(absoluteHostPath);
  }

  /** The whole file as text; empty when it does not exist. */
  public Optional<String> readString(Path file) {
    return Optional.ofNullable(values.text(file));
  }

  /** A single-value attribute: the file's text trimmed of whitespace and NUL bytes. */
  public Optional<String> readValue(Path file) {
    return Optional.ofNullable(values.value(file));
  }

  /** See {@link ValueFileReader#parsed}: {@link FactReader#read}'s one call. */
  <T> T readParsed(Path file, FactParser<T> parser) {
    return values.parsed(file, parser);
  }

  /**
   * The whole file as bytes, for binary host files ({@code /etc/ld.so.cache}); empty when it does not
   * exist. The same checks and the same {@link #MAX_FILE_BYTES} bound as the text reads.
   */
  public Optional<byte[]> readBytes(Path file) {
    return Optional.ofNullable(values.bytes(file));
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
    try {
      Resolved r = walker.resolve(path, false, true);
      return r != null && r.confined();
    } catch (IOException | HostFileException e) {
      return false;
    }
  }

  /**
   * Whether nothing is reachable at {@code path}: it is missing, a dangling symlink, a loop or behind
   * a path we may not search. One stat(2) through java.io, which answers failure with a flag, where
   * NIO's lstat of a missing path builds two exceptions (three times the cost of the call itself):
   * for probes that usually find nothing ({@code cpuN/cache/index4}, a {@code cpuN/online} most CPUs
   * lack). {@code false} says only that something is there: confinement and type are for
   * {@link #isDirectory} or a read to decide.
   */
  public boolean isAbsent(Path path) {
    return !new File(path.toString()).exists();
  }

  /**
   * What is at a path that should be a directory, from one lookup: {@code directory} when it is one
   * inside the roots; otherwise {@code problem} says why it is unusable (a regular file, a symlink
   * loop, a link out of the roots, no permission), or is null when it is simply absent (missing, or a
   * dangling link). {@link #isDirectory} and then {@link #list} for the reason cost two failed lookups
   * for an absent directory; this costs one.
   */
  public record DirectoryCheck(boolean directory, String problem) {}

  /** See {@link DirectoryCheck}. */
  public DirectoryCheck checkDirectory(Path dir) {
    Resolved r;
    try {
      r = walker.resolve(dir, false, true);
    } catch (FileSystemLoopException e) {
      return new DirectoryCheck(false, "symlink loop");
    } catch (AccessDeniedException e) {
      return new DirectoryCheck(false, "permission denied");
    } catch (IOException e) {
      return new DirectoryCheck(false, e.toString());
    }
    if (r == null) {
      return new DirectoryCheck(false, null);
    }
    if (!r.confined()) {
      return new DirectoryCheck(false, PathWalker.outside(dir, r.real()).reason());
    }
    return r.isDirectory() ? new DirectoryCheck(true, null) : new DirectoryCheck(false, "not a directory");
  }

  /** Whether a path is a directory inside the roots, following symlinks. */
  public boolean isDirectory(Path path) {
    try {
      Resolved r = walker.resolve(path, false, true);
      return r != null && r.isDirectory() && r.confined();
    } catch (IOException | HostFileException e) {
      return false;
    }
  }

  /**
   * Whether value files in the directory {@code dir} are opened without a stat first: it lies in sysfs
   * or procfs ({@link KernelMounts}) and is read by path. False when it does not exist.
   */
  boolean opensWithoutStat(Path dir) {
    return walker.opensWithoutStat(dir);
  }

  /**
   * The entries of a directory sorted by name; empty when it does not exist. Entries are returned
   * whether or not they are dangling symlinks, so callers can report those.
   */
  public List<Path> list(Path dir) {
    List<String> names = listNames(dir);
    List<Path> entries = new ArrayList<>(names.size());
    for (String name : names) {
      entries.add(dir.resolve(name));
    }
    return entries;
  }

  /**
   * The names of a directory's entries, sorted: {@link #list} without a {@link Path} per entry (the same
   * confinement, absence and errors), for walks of large trees that follow only a few names of each directory.
   */
  public List<String> listNames(Path dir) {
    return lister.names(dir);
  }

  /**
   * Whether {@code path} itself is a directory, not a symlink to one (one {@code lstat}): for walks of
   * trees such as {@code /sys/devices}, whose entries are real directories and whose links are not
   * followed. Such an entry is as confined as the directory it was listed from.
   */
  public boolean isDirectoryNoFollow(Path path) {
    return Files.isDirectory(path, LinkOption.NOFOLLOW_LINKS);
  }

  /** The target of a symlink as written (e.g. {@code ../../node/node0}); empty when not a symlink. */
  public Optional<Path> readLink(Path link) {
    return links.readLink(link);
  }

  /**
   * The link's target resolved against the link's directory and normalised, without requiring it to
   * exist and without leaving the host tree: a fixture tree resolves the same way as {@code /sys}.
   */
  public Optional<Path> resolveLink(Path link) {
    return readLink(link).map(target -> roots.resolveLinkTarget(link, target));
  }

  /** The canonical path of an existing file, symlinks resolved; empty when it does not exist. */
  public Optional<Path> realPath(Path path) {
    return links.realPath(path);
  }

  /** Strips leading and trailing whitespace and NUL bytes. */
  public static String trimValue(String text) {
    return ValueFileReader.trimValue(text);
  }

  @Override
  public String toString() {
    return "HostFs[root=" + hostRoot() + ", sysfs=" + sysfsRoot() + ", procfs=" + procfsRoot() + ", dev=" + devRoot() + "]";
  }

  /** Builds a {@link HostFs}; unset roots default to {@code sys}, {@code proc} and {@code dev} under the host root. */
  public static final class Builder {
    private final Path hostRoot;
    private Path sysfsRoot;
    private Path procfsRoot;
    private Path devRoot;
    private final List<Path> extraRoots = new ArrayList<>();

    private Builder(Path hostRoot) {
      this.hostRoot = Objects.requireNonNull(hostRoot, "hostRoot");
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
      extraRoots.add(path);
      return this;
    }

    public HostFs build() {
      return new HostFs(new HostRoots(hostRoot, sysfsRoot, procfsRoot, devRoot, extraRoots));
    }
  }
}
