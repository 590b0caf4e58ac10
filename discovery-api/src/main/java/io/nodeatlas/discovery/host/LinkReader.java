package io.nodeatlas.discovery.host;

import io.nodeatlas.discovery.host.PathWalker.Dir;
import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.LinkOption;
import java.nio.file.NoSuchFileException;
import java.nio.file.NotDirectoryException;
import java.nio.file.NotLinkException;
import java.nio.file.Path;
import java.nio.file.SecureDirectoryStream;
import java.nio.file.attribute.BasicFileAttributes;
import java.util.Objects;
import java.util.Optional;

/** Symlinks and real paths on the host, confined by the {@link PathWalker}: readlink(2) and realpath(3). */
final class LinkReader {

  private final PathWalker walker;

  LinkReader(PathWalker walker) {
    this.walker = walker;
  }

  /** The target of a symlink as written (e.g. {@code ../../node/node0}); empty when not a symlink. */
  Optional<Path> readLink(Path link) {
    Path abs = link.toAbsolutePath();
    String text = abs.toString();
    int slash = text.lastIndexOf('/');
    if (slash < 0 || slash == text.length() - 1) {
      return Optional.empty(); // "/" itself
    }
    Dir in;
    try {
      in = slash == 0 ? walker.fileSystemRoot() : walker.parentOf(abs, text, slash, new int[1]);
    } catch (IOException e) {
      return Optional.empty(); // a loop or no permission on the way: nothing to read, as readlink(2) says
    }
    if (in == null) {
      return Optional.empty();
    }
    String name = text.substring(slash + 1);
    if (!in.confined()) {
      throw PathWalker.outside(link, in.real().resolve(name));
    }
    Path path = in.same() ? abs : in.real().resolve(name);
    if (walker.readsViaHandles(in)) {
      return DirectoryHandles.againIfClosed(link, () -> readLinkViaHandle(link, in, path, Path.of(name)));
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
      SecureDirectoryStream<Path> h = walker.handles().handle(in);
      BasicFileAttributes before = DirectoryHandles.statAt(h, name);
      if (before == null || !before.isSymbolicLink()) {
        return Optional.empty();
      }
      Path target = Files.readSymbolicLink(path);
      BasicFileAttributes after = DirectoryHandles.statAt(h, name);
      BasicFileAttributes byPath = Files.readAttributes(path, BasicFileAttributes.class, LinkOption.NOFOLLOW_LINKS);
      if (after == null || !Objects.equals(before.fileKey(), after.fileKey()) || !Objects.equals(before.fileKey(), byPath.fileKey())) {
        throw new HostFileException(link, "replaced while being read; not followed", null);
      }
      return Optional.of(target);
    } catch (NotLinkException | NoSuchFileException | NotDirectoryException e) {
      return Optional.empty();
    } catch (IOException e) {
      throw new HostFileException(link, HostFileException.ioReason(e), e);
    }
  }

  /** The canonical path of an existing file, symlinks resolved; empty when it does not exist. */
  Optional<Path> realPath(Path path) {
    try {
      Path real = path.toRealPath();
      if (!walker.isConfined(real)) {
        throw new HostFileException(path, "resolves outside the host root (to " + real + "); symlink not followed", null);
      }
      return Optional.of(real);
    } catch (NoSuchFileException e) {
      return Optional.empty();
    } catch (IOException e) {
      throw new HostFileException(path, e.toString(), e);
    }
  }
}
