package io.nodeatlas.discovery.host;

import io.nodeatlas.discovery.host.PathWalker.Dir;
import io.nodeatlas.discovery.host.PathWalker.Resolved;
import java.io.File;
import java.io.IOException;
import java.nio.file.AccessDeniedException;
import java.nio.file.DirectoryStream;
import java.nio.file.FileSystemLoopException;
import java.nio.file.Files;
import java.nio.file.NoSuchFileException;
import java.nio.file.NotDirectoryException;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.List;

/** Sorted listings of host directories, confined by the {@link PathWalker}; through a handle where others can write. */
final class DirectoryLister {

  private final PathWalker walker;

  DirectoryLister(PathWalker walker) {
    this.walker = walker;
  }

  /**
   * The names of a directory's entries, sorted: {@link HostFs#list} without a {@link Path} per entry (the same
   * confinement, absence and errors), for walks of large trees such as {@code /sys/devices/pci*} that
   * follow only a few names of each directory.
   */
  List<String> names(Path dir) {
    Resolved r;
    try {
      r = walker.resolve(dir, false, true);
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
      throw PathWalker.outside(dir, r.real());
    }
    if (!r.isDirectory()) {
      throw new HostFileException(dir, "not a directory", null);
    }
    if (r.self() != null && walker.readsViaHandles(r.self())) {
      return DirectoryHandles.againIfClosed(dir, () -> listViaHandle(dir, r.self()));
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

  /** {@link #names} of a directory others can write: read from a new handle of it, never by path. */
  private List<String> listViaHandle(Path dir, Dir self) {
    return sortedNames(dir, () -> walker.handles().openDirectory(self));
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
      throw new HostFileException(dir, HostFileException.ioReason(e), e);
    }
    names.sort(null);
    return names;
  }
}
