package io.nodeatlas.discovery.host;

import io.nodeatlas.discovery.host.PathWalker.Dir;
import java.io.IOException;
import java.nio.file.ClosedDirectoryStreamException;
import java.nio.file.DirectoryStream;
import java.nio.file.FileSystemException;
import java.nio.file.Files;
import java.nio.file.LinkOption;
import java.nio.file.NoSuchFileException;
import java.nio.file.NotDirectoryException;
import java.nio.file.Path;
import java.nio.file.SecureDirectoryStream;
import java.nio.file.attribute.BasicFileAttributeView;
import java.nio.file.attribute.BasicFileAttributes;
import java.util.List;
import java.util.Map;
import java.util.concurrent.ConcurrentHashMap;
import java.util.function.Supplier;

/**
 * Held handles of the directories that other users can write, so that files there are opened, and
 * directories listed, relative to a directory nobody else can change ({@code openat(2)} and
 * {@code fstatat(2)} with {@code O_NOFOLLOW} through {@link SecureDirectoryStream}).
 */
final class DirectoryHandles {

  private final PathWalker walker;
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

  DirectoryHandles(PathWalker walker) {
    this.walker = walker;
  }

  void closeAll() {
    for (Path real : List.copyOf(handles.keySet())) {
      SecureDirectoryStream<Path> h = handles.remove(real);
      if (h != null) {
        closeQuietly(h);
      }
    }
  }

  static void closeQuietly(DirectoryStream<Path> stream) {
    try {
      stream.close();
    } catch (IOException e) {
      // closing a directory only releases its descriptor; nothing to report
    }
  }

  /** {@code fstatat(2)} of {@code name} in {@code dir} with AT_SYMLINK_NOFOLLOW; null when it does not exist. */
  static BasicFileAttributes statAt(SecureDirectoryStream<Path> dir, Path name) throws IOException {
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
  SecureDirectoryStream<Path> handle(Dir dir) throws IOException {
    SecureDirectoryStream<Path> h = handles.get(dir.real());
    if (h != null) {
      return h;
    }
    h = openDirectory(dir);
    if (handles.size() >= MAX_HANDLES) {
      closeAll();
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
  SecureDirectoryStream<Path> openDirectory(Dir dir) throws IOException {
    Path real = dir.real();
    if (dir.stable()) {
      return secure(Files.newDirectoryStream(real), real);
    }
    Path parentPath = real.getParent();
    Dir parent = parentPath == null ? null : walker.realDirectory(parentPath, new int[1]);
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

  static final String SWAPPED = "replaced by a symlink while being read; not followed";

  private static SecureDirectoryStream<Path> secure(DirectoryStream<Path> stream, Path dir) throws IOException {
    if (stream instanceof SecureDirectoryStream<Path> s) {
      return s;
    }
    closeQuietly(stream);
    throw new FileSystemException(dir.toString(), null,
        "other users can write this tree, and this platform cannot read relative to a directory handle (no openat); not read");
  }

  /** Reads that meet handles closed by other threads this many times in a row give up. */
  private static final int MAX_ATTEMPTS = 3;

  /**
   * {@code op}, started again when another thread closed the directory handles it was using (they were
   * full, or a run began): the next attempt looks its directories up again.
   */
  static <T> T againIfClosed(Path path, Supplier<T> op) {
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
}
