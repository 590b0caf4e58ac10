package io.nodeatlas.discovery.files;

import java.io.IOException;
import java.nio.ByteBuffer;
import java.nio.channels.FileChannel;
import java.nio.file.AtomicMoveNotSupportedException;
import java.nio.file.DirectoryStream;
import java.nio.file.FileAlreadyExistsException;
import java.nio.file.FileSystemException;
import java.nio.file.Files;
import java.nio.file.LinkOption;
import java.nio.file.NoSuchFileException;
import java.nio.file.Path;
import java.nio.file.SecureDirectoryStream;
import java.nio.file.StandardCopyOption;
import java.nio.file.StandardOpenOption;
import java.nio.file.attribute.FileAttribute;
import java.nio.file.attribute.PosixFilePermission;
import java.nio.file.attribute.PosixFilePermissions;
import java.security.SecureRandom;
import java.util.ArrayList;
import java.util.EnumSet;
import java.util.HexFormat;
import java.util.List;
import java.util.Set;
import java.util.function.Predicate;

/**
 * The one way nodeatlas replaces a file that others read (CDI specs, watched by container runtimes)
 * or that it must find intact after a crash (the checkpoint). The rules, and why:
 *
 * <ol>
 *   <li>The content goes to a temporary file in the same directory, created with {@code O_CREAT|O_EXCL}
 *       ({@link StandardOpenOption#CREATE_NEW}) and {@code O_NOFOLLOW}: a symlink planted at the
 *       temporary name makes the write fail instead of redirecting it (a root write of any file).
 *       Its name starts with a dot, which runtimes skip when they scan a CDI directory
 *       (CDI spec v0.6+: only {@code *.json}/{@code *.yaml} files are read), and carries
 *       {@link #TEMP_MARKER} so {@link #removeStaleTemps} can find what a crash left.
 *   <li>It is {@code fsync}ed, then {@code rename(2)}d over the target: readers see the old or the
 *       new file, never half of one. A file system that cannot rename atomically is refused, not
 *       worked around with a copy.
 *   <li>The directory is {@code fsync}ed, so the rename survives a power cut. A failure there is an
 *       error too: the caller must not answer "prepared" for a file that may vanish.
 * </ol>
 *
 * <p>{@link #replace} keeps rules 1 and 2's rename but leaves out both {@code fsync}s: readers still
 * see the old or the new file, never half of one, and a process killed at any point leaves one of
 * the two (the page cache survives the process). Only a power cut or kernel crash may lose it, and
 * then the target may be missing, old, empty or partial (a new file's data may not have reached the
 * disk when its rename did). It is for files the caller re-creates from a durable record of its own
 * after such an event, so their {@code fsync}s would buy nothing.
 */
public final class AtomicFiles {

  /** Part of every temporary file's name, so stale ones can be told from anyone else's files. */
  public static final String TEMP_MARKER = ".nodeatlas-tmp-";

  /** Owner read/write only (checkpoints: they name claims and devices of other tenants). */
  public static final Set<PosixFilePermission> OWNER_ONLY = EnumSet.of(PosixFilePermission.OWNER_READ, PosixFilePermission.OWNER_WRITE);

  /** World-readable (CDI specs: the container runtime may not run as our user). */
  public static final Set<PosixFilePermission> WORLD_READABLE = PosixFilePermissions.fromString("rw-r--r--");

  private static final SecureRandom RANDOM = new SecureRandom();

  private AtomicFiles() {}

  /**
   * Replaces {@code target} with {@code content}, durably, with {@code permissions}. The target's
   * directory must exist. Throws on any failure; the target is then unchanged and no temporary
   * file is left behind.
   */
  public static void write(Path target, byte[] content, Set<PosixFilePermission> permissions) throws IOException {
    byte[] random = new byte[6];
    RANDOM.nextBytes(random);
    write(target, content, permissions, HexFormat.of().formatHex(random));
  }

  /** {@link #write(Path, byte[], Set)} with a chosen temporary name (tests plant files there). */
  static void write(Path target, byte[] content, Set<PosixFilePermission> permissions, String tempSuffix)
      throws IOException {
    write(target, content, permissions, tempSuffix, true);
  }

  /**
   * Replaces {@code target} with {@code content} atomically (temporary file and rename, as {@link
   * #write}) but without any {@code fsync}: see the class comment for what a power cut may leave.
   * Throws on any failure; the target is then unchanged and no temporary file is left behind.
   */
  public static void replace(Path target, byte[] content, Set<PosixFilePermission> permissions) throws IOException {
    byte[] random = new byte[6];
    RANDOM.nextBytes(random);
    write(target, content, permissions, HexFormat.of().formatHex(random), false);
  }

  /** {@link #replace(Path, byte[], Set)} with a chosen temporary name (tests plant files there). */
  static void replace(Path target, byte[] content, Set<PosixFilePermission> permissions, String tempSuffix)
      throws IOException {
    write(target, content, permissions, tempSuffix, false);
  }

  private static void write(Path target, byte[] content, Set<PosixFilePermission> permissions, String tempSuffix,
      boolean durable) throws IOException {
    Path dir = target.toAbsolutePath().getParent();
    if (dir == null || !Files.isDirectory(dir, LinkOption.NOFOLLOW_LINKS)) {
      throw new IOException("cannot write " + target + ": " + dir + " is not a directory");
    }
    Path temp = dir.resolve("." + target.getFileName() + TEMP_MARKER + tempSuffix);
    FileAttribute<Set<PosixFilePermission>> mode = PosixFilePermissions.asFileAttribute(permissions);
    FileChannel ch;
    try {
      ch = FileChannel.open(temp, Set.of(StandardOpenOption.CREATE_NEW, StandardOpenOption.WRITE, LinkOption.NOFOLLOW_LINKS), mode);
    } catch (FileAlreadyExistsException e) {
      // Not ours (a planted file or link): leave it, and write nothing through it.
      throw new IOException("cannot write " + target + ": temporary file " + temp + " already exists", e);
    }
    boolean moved = false;
    try {
      try (ch) {
        ByteBuffer buf = ByteBuffer.wrap(content);
        while (buf.hasRemaining()) {
          ch.write(buf);
        }
        if (durable) {
          ch.force(true);
        }
      }
      // The umask may have narrowed the mode given at creation; set it exactly.
      Files.setPosixFilePermissions(temp, permissions);
      try {
        Files.move(temp, target, StandardCopyOption.ATOMIC_MOVE, StandardCopyOption.REPLACE_EXISTING);
      } catch (AtomicMoveNotSupportedException e) {
        throw new IOException("cannot replace " + target + " atomically on this file system: " + e.getMessage(), e);
      }
      moved = true;
      if (durable) {
        try {
          syncDirectory(dir);
        } catch (IOException e) {
          throw new NotDurableException(target, e);
        }
      }
    } finally {
      if (!moved) {
        Files.deleteIfExists(temp);
      }
    }
  }

  /**
   * The new content was renamed into place (readers and a restarted process see it) but the directory's
   * {@code fsync} failed, so a power cut may still take it back: the caller must neither count on the
   * new content nor assume the old one is still there.
   */
  public static final class NotDurableException extends IOException {
    private static final long serialVersionUID = 1L;

    public NotDurableException(Path target, IOException cause) {
      super("replaced " + target + ", but cannot make it durable: " + cause.getMessage(), cause);
    }
  }

  /** {@code fsync} of a directory, so a rename or unlink in it is durable. */
  public static void syncDirectory(Path dir) throws IOException {
    try (FileChannel ch = FileChannel.open(dir, StandardOpenOption.READ)) {
      ch.force(true);
    }
  }

  /**
   * Deletes {@code file} if it exists and makes the deletion durable, through a handle on its directory
   * opened without following a link ({@code openat(O_NOFOLLOW|O_DIRECTORY)} and {@code unlinkat}): a
   * directory swapped for a symbolic link fails the call, as {@link #write} does, instead of deleting
   * the same name wherever the link points. A link at the file's own name is removed, not followed.
   */
  public static boolean delete(Path file) throws IOException {
    Path abs = file.toAbsolutePath();
    Path dir = abs.getParent();
    Path parent = dir == null ? null : dir.getParent();
    if (parent == null) {
      throw new IOException("cannot delete " + file + ": not in a directory of its own");
    }
    boolean deleted;
    try (DirectoryStream<Path> up = Files.newDirectoryStream(parent)) {
      if (!(up instanceof SecureDirectoryStream<Path> secureParent)) {
        throw new IOException("cannot delete " + file + ": this file system cannot open " + dir + " without following links");
      }
      SecureDirectoryStream<Path> handle;
      try {
        handle = secureParent.newDirectoryStream(dir.getFileName(), LinkOption.NOFOLLOW_LINKS);
      } catch (NoSuchFileException e) {
        return false;
      } catch (FileSystemException e) {
        if (Files.isSymbolicLink(dir)) {
          throw new IOException("cannot delete " + file + ": " + dir + " is a symbolic link, and nodeatlas does not follow"
              + " links to the directories it writes", e);
        }
        throw e;
      }
      try (handle) {
        handle.deleteFile(abs.getFileName());
        deleted = true;
      } catch (NoSuchFileException e) {
        deleted = false;
      }
    } catch (NoSuchFileException e) {
      return false;
    }
    if (deleted) {
      // O_NOFOLLOW again: the fsync goes to the directory the entry was removed from, or fails.
      try (FileChannel ch = FileChannel.open(dir, StandardOpenOption.READ, LinkOption.NOFOLLOW_LINKS)) {
        ch.force(true);
      }
    }
    return deleted;
  }

  /**
   * Removes the temporary files a crash left in {@code dir} for targets whose names start with
   * {@code targetPrefix} (ours only: other writers' files are never touched). Returns what was removed.
   */
  public static List<Path> removeStaleTemps(Path dir, String targetPrefix) throws IOException {
    return removeStaleTemps(dir, target -> target.startsWith(targetPrefix));
  }

  /**
   * Removes the temporary files a crash left in {@code dir} for the target file names {@code ours}
   * accepts (for writers that share a prefix with files they must leave alone, such as another
   * writer's files in the same directory). Returns what was removed.
   */
  public static List<Path> removeStaleTemps(Path dir, Predicate<String> ours) throws IOException {
    List<Path> removed = new ArrayList<>();
    if (!Files.isDirectory(dir, LinkOption.NOFOLLOW_LINKS)) {
      return removed;
    }
    try (DirectoryStream<Path> entries = Files.newDirectoryStream(dir, ".*" + TEMP_MARKER + "*")) {
      for (Path p : entries) {
        String name = p.getFileName().toString();
        int marker = name.lastIndexOf(TEMP_MARKER);
        if (marker < 1 || !ours.test(name.substring(1, marker))) {
          continue;
        }
        if (Files.isRegularFile(p, LinkOption.NOFOLLOW_LINKS) || Files.isSymbolicLink(p)) {
          Files.deleteIfExists(p);
          removed.add(p);
        }
      }
    }
    if (!removed.isEmpty()) {
      syncDirectory(dir);
    }
    return removed;
  }
}
