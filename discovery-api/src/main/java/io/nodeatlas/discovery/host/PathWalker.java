package io.nodeatlas.discovery.host;

import io.nodeatlas.discovery.files.BoundedText;
import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.FileSystemLoopException;
import java.nio.file.Files;
import java.nio.file.LinkOption;
import java.nio.file.NoSuchFileException;
import java.nio.file.NotDirectoryException;
import java.nio.file.Path;
import java.nio.file.attribute.BasicFileAttributes;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.concurrent.ConcurrentHashMap;

/**
 * Resolves host paths the way the kernel's path walk does, one element at a time from remembered
 * real directories, and says whether each lies inside the {@link HostRoots} and who may change it
 * (docs/design/host-reads.md); the confinement under every read of {@link HostFs}.
 */
final class PathWalker {

  private final HostRoots roots;
  /** Real paths of every root, for the confinement check; empty when one root is {@code /} (nothing to escape). */
  private final List<Path> realRoots;
  /** Directory → its real path, bounded; see {@link #forget()}. */
  private final Map<Path, Dir> realDirectories = new ConcurrentHashMap<>();
  /** See {@link LastDir}; a racy memo of an immutable pair, so sharing the instance between threads is safe. */
  private volatile LastDir lastDir;
  /** Our effective user (the owner of {@code /proc/self}), or -1 when unknown: then only root's directories are trusted. */
  private final int ownUid;
  /** {@code /} as a remembered directory, with whether it can be trusted (docs/design/host-reads.md). */
  private final Dir fileSystemRoot;
  /**
   * The mount points below the sysfs and procfs roots and whether the kernel makes every entry there
   * ({@link KernelMounts}); null until the first directory is resolved after the remembered ones were
   * forgotten, so that a run reads the mount table once and a run that ends does not read it again.
   */
  private volatile KernelMounts kernelMounts;
  /** Handles of the directories that others can write, for reads relative to them. */
  private final DirectoryHandles handles = new DirectoryHandles(this);

  /**
   * A 4,096-VF node has about 37,000 directories on the paths one run reads (nine per VF); with room
   * for fewer, the memo was cleared mid-run and each VF's directory resolved 2.7 times. Held only
   * during a run: {@link io.nodeatlas.discovery.engine.NodeDiscovery} forgets it when the run ends.
   */
  private static final int MAX_REMEMBERED_DIRECTORIES = 65_536;

  /** Linux gives up after 40 symlinks in one lookup (fs/namei.c, MAXSYMLINKS); so do we. */
  private static final int MAX_LINKS = 40;

  PathWalker(HostRoots roots) {
    this.roots = roots;
    List<Path> real = new ArrayList<>();
    boolean unconfined = false;
    for (Path r : roots.all()) {
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
    // Owners and modes matter only where there is a root to stay inside: with "/" a root, none is read.
    this.ownUid = ownersMatter() ? ownUid() : -1;
    this.fileSystemRoot = fileSystemRoot(roots.hostRoot().getRoot());
  }

  /**
   * {@code /} as a remembered directory. Nobody renames {@code /} itself, so it is judged as the child
   * of a trusted directory: by its own owner and mode only.
   */
  private Dir fileSystemRoot(Path slash) {
    Stat stat = null;
    if (ownersMatter()) {
      try {
        stat = lstat(slash, true);
      } catch (IOException e) {
        stat = null; // unknown: nothing below it is trusted
      }
    }
    if (stat == null) {
      // "/" itself is never sysfs or procfs.
      return new Dir(slash, isConfined(slash), true, true, false, false, false);
    }
    return child(new Dir(slash, true, true, true, true, false, false), slash, stat);
  }

  private KernelMounts kernelMounts() {
    KernelMounts m = kernelMounts;
    if (m == null) {
      m = readKernelMounts();
      kernelMounts = m;
    }
    return m;
  }

  /** This process's mount table (proc(5), /proc/self/mountinfo), for the mounts below the sysfs and procfs roots. */
  private KernelMounts readKernelMounts() {
    try {
      byte[] text = BoundedText.readBytes(Path.of("/proc/self/mountinfo"), HostFs.MAX_FILE_BYTES);
      List<Path> kernelRoots = List.of(realOrSelf(roots.sysfsRoot()), realOrSelf(roots.procfsRoot()));
      return KernelMounts.parse(new String(text, StandardCharsets.UTF_8), kernelRoots);
    } catch (IOException | BoundedText.TextException | RuntimeException e) {
      return KernelMounts.NONE; // unknown: every read checks the file type first, as on any other tree
    }
  }

  /** Group or other write permission (S_IWGRP | S_IWOTH). */
  private static final int WRITABLE_BY_OTHERS = 0022;
  /** S_ISVTX: in a directory, only an entry's owner, the directory's owner and root may rename or remove it. */
  private static final int STICKY = 01000;

  private static int ownUid() {
    try {
      // /proc/self is the directory of this process, owned by its effective user.
      return ((Number) Files.getAttribute(Path.of("/proc/self"), "unix:uid")).intValue();
    } catch (IOException | RuntimeException e) {
      return -1;
    }
  }

  private boolean ownerIsTrusted(int uid) {
    return uid == 0 || (uid == ownUid && uid >= 0);
  }

  private static Path realOrSelf(Path p) {
    try {
      return p.toRealPath();
    } catch (IOException e) {
      return p;
    }
  }

  /** Drops the remembered real paths of directories and closes the handles (see {@link HostFs#forgetResolvedDirectories()}). */
  void forget() {
    realDirectories.clear();
    lastDir = null;
    handles.closeAll();
    kernelMounts = null;
  }

  DirectoryHandles handles() {
    return handles;
  }

  Dir fileSystemRoot() {
    return fileSystemRoot;
  }

  /** Whether {@code realPath} lies under one of the roots; everything does when a root is {@code /}. */
  boolean isConfined(Path realPath) {
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
   * What a path names: its real path, what it finally is ({@code null} for a directory already
   * remembered), whether it lies inside the roots, the remembered directory it is an entry of
   * ({@code in}; null for a remembered directory), for a directory looked up as one, itself as
   * remembered ({@code self}), and whether {@code stat} came from {@code in}'s handle rather than by path.
   * {@code stat} is {@link #UNCHECKED} for a value file in a kernel-made directory, not looked at yet.
   */
  record Resolved(Path real, Stat stat, boolean confined, Dir in, Dir self, boolean statAtHandle) {
    Resolved(Path real, Stat stat, boolean confined, Dir in, Dir self) {
      this(real, stat, confined, in, self, false);
    }

    boolean isDirectory() {
      return stat == null || stat.isDirectory();
    }
  }

  /**
   * What one {@code lstat(2)} said: the file type bits of {@code st_mode}, the size, and, when asked
   * for, the owner and the permission bits (-1 when not asked for).
   */
  record Stat(int type, long size, int uid, int mode) {
    boolean isDirectory() {
      return type == S_IFDIR;
    }

    boolean isSymbolicLink() {
      return type == S_IFLNK;
    }

    boolean isRegularFile() {
      return type == S_IFREG;
    }
  }

  /**
   * The stat of a value file in a directory of sysfs or procfs, where only regular files, directories
   * and symlinks exist ({@link KernelMounts}): not taken. The open finds out the rest: a symlink
   * refuses {@code O_NOFOLLOW} and is followed the careful way; a directory opens but refuses the read.
   * Its size is unknown, so the read goes on to the end of the file.
   */
  static final Stat UNCHECKED = new Stat(0100000, -1, -1, -1);

  /** File type bits of st_mode (sys/stat.h). */
  private static final int S_IFMT = 0170000;
  private static final int S_IFDIR = 0040000;
  private static final int S_IFLNK = 0120000;
  private static final int S_IFREG = 0100000;

  /**
   * A remembered directory: its real path; whether that lies inside the roots (asked once per
   * directory, not per read); whether it is the path it is remembered under (no link on the way, so
   * files below it are opened by the path the caller gave, without building another); whether nobody
   * but root or we can change what its path names ({@code stable}), and its entries as well
   * ({@code trusted}); and whether its entries that root or we own are as safe from others as that
   * ({@code sticky}: S_ISVTX on a stable directory root or we own, such as {@code /tmp}).
   */
  record Dir(Path real, boolean confined, boolean same, boolean stable, boolean trusted, boolean sticky,
      boolean kernelMade) {
    Dir keyedBy(Path key) {
      boolean s = real.equals(key);
      return s == same ? this : new Dir(real, confined, s, stable, trusted, sticky, kernelMade);
    }
  }

  /** The directory of the latest lookup and what it resolved to: reads come in runs per directory. */
  private record LastDir(String dir, Dir real) {}

  /**
   * Resolves {@code path} the way the kernel's path walk would, one element at a time: the directory
   * part through {@link #realDirectory}, the last element with one {@code lstat}, and a symlink, if
   * it is one, followed to the end. Null when anything on the way is missing (a dangling link, a file
   * where a directory belongs). With {@code confineDirectory}, a directory part that resolves outside
   * the roots is refused before anything below it is looked at. {@code maybeDirectory}: look the path
   * itself up among the remembered directories first, and a directory found is remembered with its
   * owner (not worth either for a value file).
   */
  Resolved resolve(Path path, boolean confineDirectory, boolean maybeDirectory) throws IOException {
    return resolve(path, confineDirectory, maybeDirectory, false);
  }

  /**
   * As above; with {@code valueInKernelFs}, a value file whose directory is kernel-made is not
   * stat'ed: its stat is {@link #UNCHECKED}.
   */
  Resolved resolve(Path path, boolean confineDirectory, boolean maybeDirectory, boolean valueInKernelFs)
      throws IOException {
    Path abs = path.toAbsolutePath();
    if (maybeDirectory) {
      Dir known = realDirectories.get(abs);
      if (known != null) {
        return new Resolved(known.real(), null, known.confined(), null, known);
      }
    }
    String text = abs.toString();
    int slash = text.lastIndexOf('/');
    int[] links = new int[1];
    Dir realParent = slash > 0 ? parentOf(abs, text, slash, links) : slash == 0 && text.length() > 1 ? fileSystemRoot : null;
    if (realParent == null) {
      if (abs.getParent() == null) {
        return new Resolved(fileSystemRoot.real(), null, fileSystemRoot.confined(), null, fileSystemRoot);
      }
      return null;
    }
    String name = text.substring(slash + 1);
    if (confineDirectory && !realParent.confined()) {
      throw outside(path, realParent.real());
    }
    if (name.equals(".") || name.equals("..")) {
      Dir dir = realDirectory(abs, links);
      return dir == null ? null : new Resolved(dir.real(), null, dir.confined(), null, dir);
    }
    Path candidate = realParent.same() ? abs : realParent.real().resolve(name);
    // A value file in a directory others can write is opened next relative to the directory's handle
    // (readOnce): its stat is taken there too, once, instead of by path and then again there.
    boolean atHandle = !maybeDirectory && readsViaHandles(realParent);
    if (valueInKernelFs && !maybeDirectory && !atHandle && realParent.kernelMade() && !kernelMounts().isMountPoint(candidate)) {
      return new Resolved(candidate, UNCHECKED, realParent.confined() || isConfined(candidate), realParent, null);
    }
    Stat stat = atHandle ? stat(DirectoryHandles.statAt(handles.handle(realParent), Path.of(name))) : lstat(candidate, maybeDirectory && ownersMatter());
    if (stat == null) {
      return null;
    }
    if (stat.isSymbolicLink()) {
      Resolved target = follow(linkTarget(candidate, realParent.real(), links), links, maybeDirectory);
      if (target != null && target.self() != null) {
        remember(abs, target.self());
      }
      return target;
    }
    Dir self = stat.isDirectory() && maybeDirectory ? remember(abs, child(realParent, candidate, stat)) : null;
    // Below a directory inside the roots is inside; outside, only a root itself can be (its parent is outside).
    return new Resolved(candidate, stat, realParent.confined() || isConfined(candidate), realParent, self, atHandle);
  }

  /**
   * The remembered directory holding {@code abs}, whose text is {@code text} with its last slash at
   * {@code slash > 0}. The directory part is matched as text against the latest lookup's first: no
   * parent and name Paths (each a copy of the bytes and an offset table) for the common read of the
   * next file in a directory. Null when the directory does not exist.
   */
  Dir parentOf(Path abs, String text, int slash, int[] links) throws IOException {
    LastDir last = lastDir;
    if (last != null && last.dir().length() == slash && text.startsWith(last.dir())) {
      return last.real();
    }
    Path parent = abs.getParent();
    Dir realParent = realDirectory(parent, links);
    if (realParent != null) {
      lastDir = new LastDir(parent.toString(), realParent);
    }
    return realParent;
  }

  /** A symlink's target (absolute, its directory part real) resolved to the end. */
  private Resolved follow(Path target, int[] links, boolean maybeDirectory) throws IOException {
    Dir known = realDirectories.get(target);
    if (known != null) {
      return new Resolved(known.real(), null, known.confined(), null, known);
    }
    Path parent = target.getParent();
    if (parent == null) {
      return new Resolved(fileSystemRoot.real(), null, fileSystemRoot.confined(), null, fileSystemRoot);
    }
    Dir realParent = realDirectory(parent, links);
    if (realParent == null) {
      return null;
    }
    String name = target.getFileName().toString();
    if (name.equals(".") || name.equals("..")) {
      Dir dir = realDirectory(target, links);
      return dir == null ? null : new Resolved(dir.real(), null, dir.confined(), null, dir);
    }
    Path candidate = realParent.same() ? target : realParent.real().resolve(name);
    Stat stat = lstat(candidate, maybeDirectory && ownersMatter());
    if (stat == null) {
      return null;
    }
    if (stat.isSymbolicLink()) {
      return follow(linkTarget(candidate, realParent.real(), links), links, maybeDirectory);
    }
    Dir self = stat.isDirectory() && maybeDirectory ? remember(candidate, child(realParent, candidate, stat)) : null;
    return new Resolved(candidate, stat, realParent.confined() || isConfined(candidate), realParent, self);
  }

  /**
   * The real path of a directory (absolute), remembered. Each element costs one {@code lstat} the
   * first time its directory is met and nothing after; only a symlink costs a {@code readlink}. (The
   * C library's realpath(3) instead reads every element of every path again: ten calls per path on
   * a PCI device tree, most of the time of a 4,096-VF discovery.) Null when it does not exist or is
   * not a directory.
   */
  Dir realDirectory(Path dir, int[] links) throws IOException {
    Dir known = realDirectories.get(dir);
    if (known != null) {
      return known;
    }
    Path parent = dir.getParent();
    if (parent == null) {
      return fileSystemRoot;
    }
    Dir realParent = realDirectory(parent, links);
    if (realParent == null) {
      return null;
    }
    String name = dir.getFileName().toString();
    Dir real;
    if (name.equals(".")) {
      real = realParent;
    } else if (name.equals("..")) {
      Path up = realParent.real().getParent();
      real = up == null ? realParent : realDirectory(up, links);
      if (real == null) {
        return null;
      }
    } else {
      Path candidate = realParent.same() ? dir : realParent.real().resolve(name);
      Stat stat = lstat(candidate, ownersMatter());
      if (stat == null) {
        return null;
      }
      if (stat.isSymbolicLink()) {
        real = realDirectory(linkTarget(candidate, realParent.real(), links), links);
        if (real == null) {
          return null;
        }
      } else if (stat.isDirectory()) {
        real = child(realParent, candidate, stat);
      } else {
        return null; // a file where a directory belongs: ENOTDIR, an absent path
      }
    }
    return remember(dir, real);
  }

  /**
   * A directory found in {@code parent}: its path can be changed by others unless {@code parent}'s
   * entries cannot (or {@code parent} is sticky and root or we own this one), and its own entries
   * can unless root or we own it and no group or other user may write it (inode(7), "The file type
   * and mode": S_ISVTX on a directory).
   */
  private Dir child(Dir parent, Path real, Stat stat) {
    boolean owned = stat.uid() >= 0 && ownerIsTrusted(stat.uid());
    boolean stable = parent.stable() && (parent.trusted() || (parent.sticky() && owned));
    boolean trusted = stable && owned && (stat.mode() & WRITABLE_BY_OTHERS) == 0;
    boolean sticky = stable && owned && (stat.mode() & STICKY) != 0;
    return new Dir(real, isConfined(real), true, stable, trusted, sticky, kernelMounts().kernelMade(real, parent.kernelMade()));
  }

  /**
   * Whether value files in the directory {@code dir} are opened without a stat first: it lies in sysfs
   * or procfs ({@link KernelMounts}) and is read by path. False when it does not exist.
   */
  boolean opensWithoutStat(Path dir) {
    try {
      Dir d = realDirectory(dir.toAbsolutePath(), new int[1]);
      return d != null && d.kernelMade() && !readsViaHandles(d);
    } catch (IOException e) {
      return false;
    }
  }

  private Dir remember(Path dir, Dir real) {
    if (realDirectories.size() >= MAX_REMEMBERED_DIRECTORIES) {
      // Cheap to rebuild: the next lookups re-resolve only the prefixes they meet, one lstat each.
      realDirectories.clear();
    }
    Dir d = real.keyedBy(dir);
    realDirectories.put(dir, d);
    return d;
  }

  /**
   * Owners and modes decide only how reads stay inside the roots; with {@code /} a root there is
   * nothing to stay inside, and the cheaper lstat, without them, does.
   */
  private boolean ownersMatter() {
    return !realRoots.isEmpty();
  }

  /** Whether reads in {@code dir} must go through directory handles (docs/design/host-reads.md). */
  boolean readsViaHandles(Dir dir) {
    return !dir.trusted() && ownersMatter();
  }

  /**
   * {@code lstat}; null when the path does not exist. With {@code owner}, through the "unix" view,
   * whose map costs a little more than {@link BasicFileAttributes}: asked for directories only.
   */
  static Stat lstat(Path path, boolean owner) throws IOException {
    try {
      if (owner) {
        Map<String, Object> a = Files.readAttributes(path, "unix:mode,uid,size", LinkOption.NOFOLLOW_LINKS);
        int mode = (Integer) a.get("mode");
        return new Stat(mode & S_IFMT, (Long) a.get("size"), (Integer) a.get("uid"), mode & 07777);
      }
      return stat(Files.readAttributes(path, BasicFileAttributes.class, LinkOption.NOFOLLOW_LINKS));
    } catch (NoSuchFileException | NotDirectoryException e) {
      return null;
    }
  }

  /** The type and size of {@code a}; null when {@code a} is (nothing there). */
  static Stat stat(BasicFileAttributes a) {
    if (a == null) {
      return null;
    }
    int type = a.isRegularFile() ? S_IFREG : a.isDirectory() ? S_IFDIR : a.isSymbolicLink() ? S_IFLNK : 0;
    return new Stat(type, a.size(), -1, -1);
  }

  /**
   * A symlink's target joined to the link's real directory. Leading {@code ..} elements are applied
   * at once (the directory is real, so its lexical parent is its real parent); any later {@code .}
   * or {@code ..} is resolved element by element after the links before it, as the kernel does.
   * More than {@link #MAX_LINKS} links in one lookup is a loop (ELOOP).
   */
  private static Path linkTarget(Path link, Path realDir, int[] links) throws IOException {
    if (++links[0] > MAX_LINKS) {
      throw new FileSystemLoopException(link.toString());
    }
    Path target = Files.readSymbolicLink(link);
    Path base = target.isAbsolute() ? target.getRoot() : realDir;
    int n = target.getNameCount();
    int i = 0;
    while (i < n && target.getName(i).toString().equals("..")) {
      base = base.getParent() == null ? base : base.getParent();
      i++;
    }
    if (i == n || target.toString().isEmpty()) {
      return base;
    }
    return base.resolve(target.subpath(i, n));
  }

  static HostFileException outside(Path path, Path real) {
    return new HostFileException(path, "resolves outside the host root (to " + real + "); symlink not followed", null);
  }
}
