package io.nodeatlas.discovery.host;

import io.nodeatlas.discovery.files.BoundedText;
import java.io.File;
import java.io.IOException;
import java.nio.ByteBuffer;
import java.nio.channels.SeekableByteChannel;
import java.nio.charset.StandardCharsets;
import java.nio.file.AccessDeniedException;
import java.nio.file.ClosedDirectoryStreamException;
import java.nio.file.DirectoryStream;
import java.nio.file.FileSystemException;
import java.nio.file.FileSystemLoopException;
import java.nio.file.Files;
import java.nio.file.LinkOption;
import java.nio.file.NoSuchFileException;
import java.nio.file.NotDirectoryException;
import java.nio.file.NotLinkException;
import java.nio.file.OpenOption;
import java.nio.file.Path;
import java.nio.file.SecureDirectoryStream;
import java.nio.file.StandardOpenOption;
import java.nio.file.attribute.BasicFileAttributeView;
import java.nio.file.attribute.BasicFileAttributes;
import java.util.ArrayList;
import java.util.Arrays;
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
 * {@link #forgetResolvedDirectories()} (called when every discovery run starts and ends), so confinement
 * costs one {@code lstat} per read, not one {@code readlink} per path element. That {@code lstat} also
 * keeps us from opening a FIFO, whose {@code open(2)} would block; in sysfs and procfs, which have no
 * FIFOs ({@link KernelMounts}), it is left out and a value file costs what it costs in C.
 *
 * <p>Who may change the tree decides how it is read. Confinement is checked on real paths, and a path
 * only stays what it was checked as while nobody else can rename or replace a directory on the way.
 * So every remembered directory also records whether its path and its entries can be changed only by
 * root or by our own user: every directory from {@code /} down is owned by one of them and writable by
 * no group or other user (a sticky directory such as {@code /tmp} keeps the entries that root or we
 * own). That holds for a live host's {@code /sys}, {@code /proc} and {@code /dev} and for a tree we
 * unpacked ourselves; files there are opened by path (lstat, then open with {@code O_NOFOLLOW}), the
 * fastest way in Java. Below a directory that another user can write, that user could swap a
 * directory for a symlink between our check and our open, so files are opened, and directories
 * listed, only relative to directory handles ({@link SecureDirectoryStream}: {@code openat(2)} and
 * {@code fstatat(2)} with {@code O_NOFOLLOW}, one element at a time from a directory nobody else can
 * change). A directory swapped after its handle was opened is still read as the directory it was;
 * one swapped before is refused (the {@code fstatat} before each {@code openat} sees the symlink, and
 * {@code O_NOFOLLOW} refuses one swapped in between). What stays by path there: a symlink's own text (the
 * JDK has no {@code readlinkat}), checked against the handle's view of the link before and after;
 * and the file type check before an open, which a FIFO swapped in within microseconds could still
 * turn into a blocked read (Java opens without {@code O_NONBLOCK}).
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
  private final Map<Path, Dir> realDirectories = new ConcurrentHashMap<>();
  /** See {@link LastDir}; a racy memo of an immutable pair, so sharing the instance between threads is safe. */
  private volatile LastDir lastDir;
  /** Our effective user (the owner of {@code /proc/self}), or -1 when unknown: then only root's directories are trusted. */
  private final int ownUid;
  /** {@code /} as a remembered directory, with whether it can be trusted (see the class comment). */
  private final Dir fileSystemRoot;
  /**
   * The mount points below the sysfs and procfs roots and whether the kernel makes every entry there
   * ({@link KernelMounts}); null until the first directory is resolved after the remembered ones were
   * forgotten, so that a run reads the mount table once and a run that ends does not read it again.
   */
  private volatile KernelMounts kernelMounts;
  /**
   * Handles of directories that others can write, by real path, for reads relative to them; at most
   * {@link #MAX_HANDLES}, all closed when full and when a run starts. A reader whose handle another
   * thread closed meanwhile starts its read again ({@link ClosedDirectoryStreamException}).
   */
  private final Map<Path, SecureDirectoryStream<Path>> handles = new ConcurrentHashMap<>();
  /**
   * Handles of roots whose own path others can change (a tree under another user's home): opened
   * once, at the first read below them, and kept, so that the root stays the directory it was then.
   */
  private final Map<Path, SecureDirectoryStream<Path>> rootHandles = new ConcurrentHashMap<>();

  /** 256 descriptors (the JDK keeps two per handle): a 256-CPU machine's tree has about 600 directories. */
  private static final int MAX_HANDLES = 128;

  /**
   * A 4,096-VF node has about 37,000 directories on the paths one run reads (nine per VF); with room
   * for fewer, the memo was cleared mid-run and each VF's directory resolved 2.7 times. Held only
   * during a run: {@link io.nodeatlas.discovery.engine.NodeDiscovery} forgets it when the run ends.
   */
  private static final int MAX_REMEMBERED_DIRECTORIES = 65_536;

  /** Linux gives up after 40 symlinks in one lookup (fs/namei.c, MAXSYMLINKS); so do we. */
  private static final int MAX_LINKS = 40;

  /** Read buffers up to this size are kept for the next read on the same thread; larger ones are dropped. */
  private static final int MAX_KEPT_BUFFER = 64 << 10;

  /** Host files are opened read-only and never through a symlink in the last element (see {@link #read}). */
  private static final Set<OpenOption> READ_NO_FOLLOW = Set.of(StandardOpenOption.READ, LinkOption.NOFOLLOW_LINKS);

  /** One reused read buffer per reading thread (a run reads up to hundreds of thousands of small files). */
  private final ThreadLocal<byte[]> buffers = ThreadLocal.withInitial(() -> new byte[4096]);

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
    // Owners and modes matter only where there is a root to stay inside: with "/" a root, none is read.
    this.ownUid = ownersMatter() ? ownUid() : -1;
    this.fileSystemRoot = fileSystemRoot(hostRoot.getRoot());
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
      byte[] text = BoundedText.readBytes(Path.of("/proc/self/mountinfo"), MAX_FILE_BYTES);
      List<Path> roots = List.of(realOrSelf(sysfsRoot), realOrSelf(procfsRoot));
      return KernelMounts.parse(new String(text, StandardCharsets.UTF_8), roots);
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
    lastDir = null;
    closeHandles();
    kernelMounts = null;
  }

  private void closeHandles() {
    for (Path real : List.copyOf(handles.keySet())) {
      SecureDirectoryStream<Path> h = handles.remove(real);
      if (h != null) {
        closeQuietly(h);
      }
    }
  }

  private static void closeQuietly(DirectoryStream<Path> stream) {
    try {
      stream.close();
    } catch (IOException e) {
      // closing a directory only releases its descriptor; nothing to report
    }
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
    return Optional.ofNullable(read(file, WHOLE_TEXT));
  }

  /** A single-value attribute: the file's text trimmed of whitespace and NUL bytes. */
  public Optional<String> readValue(Path file) {
    return Optional.ofNullable(read(file, TRIMMED_TEXT));
  }

  /**
   * The whole file as bytes, for binary host files ({@code /etc/ld.so.cache}); empty when it does not
   * exist. The same checks and the same {@link #MAX_FILE_BYTES} bound as the text reads.
   */
  public Optional<byte[]> readBytes(Path file) {
    return Optional.ofNullable(read(file, (buf, length) -> Arrays.copyOf(buf, length)));
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
      Resolved r = resolve(path, false, true);
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
      r = resolve(dir, false, true);
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
      return new DirectoryCheck(false, outside(dir, r.real()).reason());
    }
    return r.isDirectory() ? new DirectoryCheck(true, null) : new DirectoryCheck(false, "not a directory");
  }

  /** Whether a path is a directory inside the roots, following symlinks. */
  public boolean isDirectory(Path path) {
    try {
      Resolved r = resolve(path, false, true);
      return r != null && r.isDirectory() && r.confined();
    } catch (IOException | HostFileException e) {
      return false;
    }
  }

  /**
   * What a path names: its real path, what it finally is ({@code null} for a directory already
   * remembered), whether it lies inside the roots, the remembered directory it is an entry of
   * ({@code in}; null for a remembered directory), for a directory looked up as one, itself as
   * remembered ({@code self}), and whether {@code stat} came from {@code in}'s handle rather than by path.
   * {@code stat} is {@link #UNCHECKED} for a value file in a kernel-made directory, not looked at yet.
   */
  private record Resolved(Path real, Stat stat, boolean confined, Dir in, Dir self, boolean statAtHandle) {
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
  private record Stat(int type, long size, int uid, int mode) {
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
  private static final Stat UNCHECKED = new Stat(0100000, -1, -1, -1);

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
  private record Dir(Path real, boolean confined, boolean same, boolean stable, boolean trusted, boolean sticky,
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
  private Resolved resolve(Path path, boolean confineDirectory, boolean maybeDirectory) throws IOException {
    return resolve(path, confineDirectory, maybeDirectory, false);
  }

  /**
   * As above; with {@code valueInKernelFs}, a value file whose directory is kernel-made is not
   * stat'ed: its stat is {@link #UNCHECKED}.
   */
  private Resolved resolve(Path path, boolean confineDirectory, boolean maybeDirectory, boolean valueInKernelFs)
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
    Stat stat = atHandle ? stat(statAt(handle(realParent), Path.of(name))) : lstat(candidate, maybeDirectory && ownersMatter());
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
  private Dir parentOf(Path abs, String text, int slash, int[] links) throws IOException {
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
  private Dir realDirectory(Path dir, int[] links) throws IOException {
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

  /** Whether reads in {@code dir} must go through directory handles (see the class comment). */
  private boolean readsViaHandles(Dir dir) {
    return !dir.trusted() && ownersMatter();
  }

  /**
   * {@code lstat}; null when the path does not exist. With {@code owner}, through the "unix" view,
   * whose map costs a little more than {@link BasicFileAttributes}: asked for directories only.
   */
  private static Stat lstat(Path path, boolean owner) throws IOException {
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
  private static Stat stat(BasicFileAttributes a) {
    if (a == null) {
      return null;
    }
    int type = a.isRegularFile() ? S_IFREG : a.isDirectory() ? S_IFDIR : a.isSymbolicLink() ? S_IFLNK : 0;
    return new Stat(type, a.size(), -1, -1);
  }

  /** {@code fstatat(2)} of {@code name} in {@code dir} with AT_SYMLINK_NOFOLLOW; null when it does not exist. */
  private static BasicFileAttributes statAt(SecureDirectoryStream<Path> dir, Path name) throws IOException {
    try {
      return dir.getFileAttributeView(name, BasicFileAttributeView.class, LinkOption.NOFOLLOW_LINKS).readAttributes();
    } catch (NoSuchFileException | NotDirectoryException e) {
      return null;
    }
  }

  private static final Path DOT = Path.of(".");

  /**
   * A held handle of {@code dir} (confined), for reads relative to it; see {@link #handles}. The
   * caller starts again on {@link ClosedDirectoryStreamException}.
   */
  private SecureDirectoryStream<Path> handle(Dir dir) throws IOException {
    SecureDirectoryStream<Path> h = handles.get(dir.real());
    if (h != null) {
      return h;
    }
    h = openDirectory(dir);
    if (handles.size() >= MAX_HANDLES) {
      closeHandles();
    }
    SecureDirectoryStream<Path> earlier = handles.putIfAbsent(dir.real(), h);
    if (earlier != null) {
      closeQuietly(h);
      return earlier;
    }
    return h;
  }

  /**
   * A new handle of {@code dir} (confined). By path where nobody else can change the path; for a
   * root others can replace, from the handle taken at the first read below it; otherwise one element
   * down from its parent's handle, {@code fstatat} first (a FIFO put there would block the open) and
   * then {@code openat} with {@code O_NOFOLLOW}, which refuses a symlink swapped in since (ELOOP).
   */
  private SecureDirectoryStream<Path> openDirectory(Dir dir) throws IOException {
    Path real = dir.real();
    if (dir.stable()) {
      return secure(Files.newDirectoryStream(real), real);
    }
    Path parentPath = real.getParent();
    Dir parent = parentPath == null ? null : realDirectory(parentPath, new int[1]);
    if (parent == null || !parent.confined()) {
      SecureDirectoryStream<Path> root = rootHandles.get(real);
      if (root == null) {
        root = secure(Files.newDirectoryStream(real), real);
        SecureDirectoryStream<Path> earlier = rootHandles.putIfAbsent(real, root);
        if (earlier != null) {
          closeQuietly(root);
          root = earlier;
        }
      }
      return root.newDirectoryStream(DOT, LinkOption.NOFOLLOW_LINKS);
    }
    SecureDirectoryStream<Path> in = handle(parent);
    Path name = real.getFileName();
    BasicFileAttributes now = statAt(in, name);
    if (now == null) {
      throw new NoSuchFileException(real.toString());
    }
    if (!now.isDirectory()) {
      throw new FileSystemException(real.toString(), null, now.isSymbolicLink() ? SWAPPED : "not a directory");
    }
    return in.newDirectoryStream(name, LinkOption.NOFOLLOW_LINKS);
  }

  private static final String SWAPPED = "replaced by a symlink while being read; not followed";

  private static SecureDirectoryStream<Path> secure(DirectoryStream<Path> stream, Path dir) throws IOException {
    if (stream instanceof SecureDirectoryStream<Path> s) {
      return s;
    }
    closeQuietly(stream);
    throw new FileSystemException(dir.toString(), null,
        "other users can write this tree, and this platform cannot read relative to a directory handle (no openat); not read");
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

  private static HostFileException outside(Path path, Path real) {
    return new HostFileException(path, "resolves outside the host root (to " + real + "); symlink not followed", null);
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
   * confinement, absence and errors), for walks of large trees such as {@code /sys/devices/pci*} that
   * follow only a few names of each directory.
   */
  public List<String> listNames(Path dir) {
    Resolved r;
    try {
      r = resolve(dir, false, true);
    } catch (FileSystemLoopException e) {
      // A dangling link is an absent directory; a link cycle is a broken one (ELOOP), not absence.
      throw new HostFileException(dir, "symlink loop", e);
    } catch (AccessDeniedException e) {
      throw new HostFileException(dir, "permission denied", e);
    } catch (IOException e) {
      throw new HostFileException(dir, e.toString(), e);
    }
    if (r == null) {
      return List.of();
    }
    if (!r.confined()) {
      throw outside(dir, r.real());
    }
    if (!r.isDirectory()) {
      throw new HostFileException(dir, "not a directory", null);
    }
    if (r.self() != null && readsViaHandles(r.self())) {
      return againIfHandlesClosed(dir, () -> listViaHandle(dir, r.self()));
    }
    // java.io.File.list is opendir/readdir/closedir and one String per entry: three system calls
    // fewer than a DirectoryStream (which dups the descriptor and fstats it in fdopendir) and no Path
    // per entry. It answers null for every failure, so the rare failure is listed again below for
    // its reason. Names are sorted as strings.
    String[] entries = new File(r.real().toString()).list();
    if (entries != null) {
      Arrays.sort(entries);
      return Arrays.asList(entries);
    }
    return sortedNames(dir, () -> Files.newDirectoryStream(r.real()));
  }

  /** {@link #listNames} of a directory others can write: read from a new handle of it, never by path. */
  private List<String> listViaHandle(Path dir, Dir self) {
    return sortedNames(dir, () -> openDirectory(self));
  }

  /** Opens a directory stream. */
  private interface DirectoryOpener {
    DirectoryStream<Path> open() throws IOException;
  }

  /** The names {@code opener}'s stream lists, sorted; empty when the directory is gone. */
  private static List<String> sortedNames(Path dir, DirectoryOpener opener) {
    List<String> names = new ArrayList<>();
    try (DirectoryStream<Path> stream = opener.open()) {
      for (Path p : stream) {
        names.add(p.getFileName().toString());
      }
    } catch (NoSuchFileException | NotDirectoryException e) {
      return List.of();
    } catch (AccessDeniedException e) {
      throw new HostFileException(dir, "permission denied", e);
    } catch (IOException e) {
      throw new HostFileException(dir, ioReason(e), e);
    }
    names.sort(null);
    return names;
  }

  /** Reads that meet handles closed by other threads this many times in a row give up. */
  private static final int MAX_ATTEMPTS = 3;

  /**
   * {@code op}, started again when another thread closed the directory handles it was using (they were
   * full, or a run began): the next attempt looks its directories up again.
   */
  private <T> T againIfHandlesClosed(Path path, java.util.function.Supplier<T> op) {
    for (int attempt = 1; ; attempt++) {
      try {
        return op.get();
      } catch (ClosedDirectoryStreamException e) {
        if (attempt == MAX_ATTEMPTS) {
          throw new HostFileException(path, "directory handles closed by other readers while reading; try again", e);
        }
      }
    }
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
    Path abs = link.toAbsolutePath();
    String text = abs.toString();
    int slash = text.lastIndexOf('/');
    if (slash < 0 || slash == text.length() - 1) {
      return Optional.empty(); // "/" itself
    }
    Dir in;
    try {
      in = slash == 0 ? fileSystemRoot : parentOf(abs, text, slash, new int[1]);
    } catch (IOException e) {
      return Optional.empty(); // a loop or no permission on the way: nothing to read, as readlink(2) says
    }
    if (in == null) {
      return Optional.empty();
    }
    String name = text.substring(slash + 1);
    if (!in.confined()) {
      throw outside(link, in.real().resolve(name));
    }
    Path path = in.same() ? abs : in.real().resolve(name);
    if (readsViaHandles(in)) {
      return againIfHandlesClosed(link, () -> readLinkViaHandle(link, in, path, Path.of(name)));
    }
    // readlink(2) alone: it answers "not a link" (EINVAL) and "missing" itself, and links are what
    // callers ask about almost always (device, driver, class entries), so no lstat before it.
    try {
      return Optional.of(Files.readSymbolicLink(path));
    } catch (NotLinkException | NoSuchFileException | NotDirectoryException e) {
      return Optional.empty();
    } catch (IOException e) {
      if (!Files.isSymbolicLink(path)) {
        return Optional.empty(); // no link to read (a loop or no permission on the way): not a link
      }
      throw new HostFileException(link, e.toString(), e);
    }
  }

  /**
   * {@link #readLink} in a directory others can write. The JDK has no readlinkat, so the text is read
   * by path; the link there must be the one the directory's handle shows, before and after.
   */
  private Optional<Path> readLinkViaHandle(Path link, Dir in, Path path, Path name) {
    try {
      SecureDirectoryStream<Path> h = handle(in);
      BasicFileAttributes before = statAt(h, name);
      if (before == null || !before.isSymbolicLink()) {
        return Optional.empty();
      }
      Path target = Files.readSymbolicLink(path);
      BasicFileAttributes after = statAt(h, name);
      BasicFileAttributes byPath = Files.readAttributes(path, BasicFileAttributes.class, LinkOption.NOFOLLOW_LINKS);
      if (after == null || !Objects.equals(before.fileKey(), after.fileKey()) || !Objects.equals(before.fileKey(), byPath.fileKey())) {
        throw new HostFileException(link, "replaced while being read; not followed", null);
      }
      return Optional.of(target);
    } catch (NotLinkException | NoSuchFileException | NotDirectoryException e) {
      return Optional.empty();
    } catch (IOException e) {
      throw new HostFileException(link, ioReason(e), e);
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

  /**
   * A file's text, trimmed ({@code trim}) or whole; null when absent. One stat answers "missing",
   * "dangling link", "directory" and "FIFO" at once; it has to come before open(2), which would block
   * on a FIFO. Discovery reads thousands of small sysfs files, so the calls per read matter: the stat
   * is an lstat of the last element under its directory's remembered real path (a link costs a
   * readlink more), then open, read into a reused buffer to EOF or to the size the lstat saw, close;
   * the text is decoded once, from the trimmed bytes.
   */
  /** What a read makes of the bytes it read: {@code buf[0, length)}, valid only during the call. */
  @FunctionalInterface
  private interface Decoder<T> {
    T decode(byte[] buf, int length);
  }

  private static final Decoder<String> WHOLE_TEXT = (buf, length) -> new String(buf, 0, length, StandardCharsets.UTF_8);

  private static final Decoder<String> TRIMMED_TEXT = (buf, length) -> {
    // ASCII whitespace and NUL are single bytes that no UTF-8 sequence contains; trimValue then
    // handles the rarer non-ASCII whitespace, so the result is exactly trimValue(whole text).
    int start = 0;
    int end = length;
    while (start < end && isTrimByte(buf[start])) {
      start++;
    }
    while (end > start && isTrimByte(buf[end - 1])) {
      end--;
    }
    return trimValue(new String(buf, start, end - start, StandardCharsets.UTF_8));
  };

  private <T> T read(Path file, Decoder<T> decoder) {
    return againIfHandlesClosed(file, () -> readOnce(file, decoder, false));
  }

  /**
   * One read of a value file. {@code careful}: stat it before the open wherever it is; otherwise a
   * file in a kernel-made directory is opened straight away, a symlink there (which the open refuses)
   * sends the read back here with {@code careful}, and every other answer is the one the careful way
   * gives: absent, permission denied, is a directory, or the read's own error.
   */
  private <T> T readOnce(Path file, Decoder<T> decoder, boolean careful) {
    Resolved r;
    try {
      r = resolve(file, true, false, !careful);
      if (r == null) {
        return null; // absent, or a dangling symlink: the fact is absent
      }
      if (!r.confined()) {
        throw outside(file, r.real());
      }
    } catch (NoSuchFileException | NotDirectoryException e) {
      return null; // a directory on the way, opened as a handle, is gone: the fact is absent
    } catch (AccessDeniedException e) {
      throw new HostFileException(file, "permission denied", e);
    } catch (FileSystemLoopException e) {
      throw new HostFileException(file, "symlink loop", e);
    } catch (IOException e) {
      throw new HostFileException(file, ioReason(e), e);
    }
    Stat stat = r.stat();
    boolean unchecked = stat == UNCHECKED;
    if (stat == null || !stat.isRegularFile()) {
      // Never open a FIFO or socket (it could block) and never treat a directory as a value.
      throw new HostFileException(file, stat == null || stat.isDirectory() ? "is a directory" : "not a regular file", null);
    }
    // The size the lstat saw: a read that has reached it is at the end of the file, and the read(2) that
    // would answer 0 is not made (one call in four of a small file's read). A file that grew since is read
    // as it was at the lstat, as if the read had come first. Files that do not know their size never stop
    // early: procfs says 0, and sysfs a page for every attribute (fs/sysfs/file.c), which a shorter
    // value never reaches and a value of a whole page ends at anyway (show() writes at most a page).
    long size = stat.size();
    // open(2) with O_NOFOLLOW and no fstat(2) after it (FileInputStream adds one to refuse
    // directories, which the lstat above already did): a read is lstat, open, read (to EOF where the
    // size is unknown), close; in sysfs and procfs, where no FIFO can be, open, read to EOF, close.
    // O_NOFOLLOW also refuses a symlink swapped in since the lstat.
    SeekableByteChannel channel;
    try {
      if (r.in() != null && readsViaHandles(r.in())) {
        // Others can write a directory on the way: the same steps, relative to the directory's handle.
        SecureDirectoryStream<Path> in = handle(r.in());
        Path name = r.real().getFileName();
        if (!r.statAtHandle()) {
          // The file was reached through a link, its type and size seen by path: look again, here.
          BasicFileAttributes now = statAt(in, name);
          if (now == null) {
            return null;
          }
          if (!now.isRegularFile()) {
            throw new HostFileException(file, now.isSymbolicLink() ? SWAPPED : now.isDirectory() ? "is a directory" : "not a regular file", null);
          }
          size = now.size();
        }
        channel = in.newByteChannel(name, READ_NO_FOLLOW);
      } else {
        channel = Files.newByteChannel(r.real(), READ_NO_FOLLOW);
      }
    } catch (NoSuchFileException | NotDirectoryException e) {
      return null; // gone since the lstat (or absent, unchecked): absent
    } catch (AccessDeniedException e) {
      throw new HostFileException(file, "permission denied", e);
    } catch (IOException e) {
      if (unchecked) {
        return readOnce(file, decoder, true); // a symlink (O_NOFOLLOW's ELOOP): followed the usual way
      }
      throw new HostFileException(file, ioReason(e), e);
    }
    byte[] buf = buffers.get();
    int length = 0;
    try (channel) {
      ByteBuffer window = ByteBuffer.wrap(buf);
      while (true) {
        if (length == buf.length) {
          if (buf.length > MAX_FILE_BYTES) {
            throw new HostFileException(file, "larger than " + (MAX_FILE_BYTES >> 20) + " MiB", null);
          }
          buf = Arrays.copyOf(buf, Math.min(buf.length * 4, MAX_FILE_BYTES + 1));
          if (buf.length <= MAX_KEPT_BUFFER) {
            buffers.set(buf);
          }
          window = ByteBuffer.wrap(buf, length, buf.length - length);
        }
        int n = channel.read(window);
        if (n < 0) {
          break;
        }
        length += n;
        if (length == size) {
          break;
        }
      }
    } catch (IOException e) {
      // Unchecked, a directory opens and only its read fails (EISDIR): one lstat tells it from an
      // attribute whose read failed (EINVAL from a link-down NIC's speed), which is not read again.
      if (unchecked && isDirectoryNoFollow(r.real())) {
        throw new HostFileException(file, "is a directory", null);
      }
      throw new HostFileException(file, ioReason(e), e);
    }
    if (length > MAX_FILE_BYTES) {
      throw new HostFileException(file, "larger than " + (MAX_FILE_BYTES >> 20) + " MiB", null);
    }
    return decoder.decode(buf, length);
  }

  /** The bytes {@link Character#isWhitespace} accepts below 0x80, and NUL. */
  private static boolean isTrimByte(byte b) {
    return b == 0 || b == ' ' || (b >= 0x09 && b <= 0x0d) || (b >= 0x1c && b <= 0x1f);
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
