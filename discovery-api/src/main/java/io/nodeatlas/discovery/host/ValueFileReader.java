package io.nodeatlas.discovery.host;

import io.nodeatlas.discovery.host.PathWalker.Resolved;
import io.nodeatlas.discovery.host.PathWalker.Stat;
import java.io.IOException;
import java.nio.ByteBuffer;
import java.nio.channels.SeekableByteChannel;
import java.nio.charset.StandardCharsets;
import java.nio.file.AccessDeniedException;
import java.nio.file.FileSystemLoopException;
import java.nio.file.Files;
import java.nio.file.LinkOption;
import java.nio.file.NoSuchFileException;
import java.nio.file.NotDirectoryException;
import java.nio.file.OpenOption;
import java.nio.file.Path;
import java.nio.file.SecureDirectoryStream;
import java.nio.file.StandardOpenOption;
import java.nio.file.attribute.BasicFileAttributes;
import java.util.Arrays;
import java.util.Set;

/**
 * Reads of value files, confined by the {@link PathWalker} and bounded by {@link HostFs#MAX_FILE_BYTES}:
 * a regular file only, opened with {@code O_NOFOLLOW}, into a reused per-thread buffer. In sysfs and
 * procfs a file is opened before any stat (no FIFO can be there); bench/live-sysfs.sh's row fails
 * without that (docs/design/speed-paths.md).
 */
final class ValueFileReader {

  private final PathWalker walker;

  /** Read buffers up to this size are kept for the next read on the same thread; larger ones are dropped. */
  private static final int MAX_KEPT_BUFFER = 64 << 10;

  /** Host files are opened read-only and never through a symlink in the last element (see {@link #readOnce}). */
  private static final Set<OpenOption> READ_NO_FOLLOW = Set.of(StandardOpenOption.READ, LinkOption.NOFOLLOW_LINKS);

  /** One reused read buffer per reading thread (a run reads up to hundreds of thousands of small files). */
  private final ThreadLocal<byte[]> buffers = ThreadLocal.withInitial(() -> new byte[4096]);

  ValueFileReader(PathWalker walker) {
    this.walker = walker;
  }

  /** What a read makes of the bytes it read: {@code buf[0, length)}, valid only during the call. */
  @FunctionalInterface
  private interface Decoder<T> {
    T decode(byte[] buf, int length);
  }

  private static final Decoder<String> WHOLE_TEXT = (buf, length) -> new String(buf, 0, length, StandardCharsets.UTF_8);

  private static final Decoder<String> TRIMMED_TEXT = (buf, length) -> {
    int start = trimmedStart(buf, length);
    int end = trimmedEnd(buf, start, length);
    return trimValue(new String(buf, start, end - start, StandardCharsets.UTF_8));
  };

  /*
   * ASCII whitespace and NUL are single bytes that no UTF-8 sequence contains; trimValue then handles
   * the rarer non-ASCII whitespace, so a value trimmed of these bytes first is exactly trimValue(whole text).
   */

  /** The first byte of {@code buf[0, length)} that is no ASCII whitespace or NUL. */
  private static int trimmedStart(byte[] buf, int length) {
    int start = 0;
    while (start < length && isTrimByte(buf[start])) {
      start++;
    }
    return start;
  }

  /** One past the last byte of {@code buf[start, length)} that is no ASCII whitespace or NUL. */
  private static int trimmedEnd(byte[] buf, int start, int length) {
    int end = length;
    while (end > start && isTrimByte(buf[end - 1])) {
      end--;
    }
    return end;
  }

  /** The whole file as text; null when it does not exist. */
  String text(Path file) {
    return read(file, WHOLE_TEXT);
  }

  /** The file's text trimmed of whitespace and NUL bytes; null when it does not exist. */
  String value(Path file) {
    return read(file, TRIMMED_TEXT);
  }

  /**
   * The file's value (as {@link #value}) through {@code parser}, from its bytes where
   * {@link FactParser#parseBytes} can tell; null when the file does not exist, the value is empty or
   * the parser says nothing. A value the parser refuses raises its {@link IllegalArgumentException}.
   */
  <T> T parsed(Path file, FactParser<T> parser) {
    return read(file, (buf, length) -> {
      int start = trimmedStart(buf, length);
      int end = trimmedEnd(buf, start, length);
      if (start == end) {
        return null;
      }
      T fast = parser.parseBytes(buf, start, end);
      if (fast != null) {
        return fast;
      }
      String text = trimValue(new String(buf, start, end - start, StandardCharsets.UTF_8));
      return text.isEmpty() ? null : parser.parse(text);
    });
  }

  /** The whole file as bytes; null when it does not exist. */
  byte[] bytes(Path file) {
    return read(file, (buf, length) -> Arrays.copyOf(buf, length));
  }

  private <T> T read(Path file, Decoder<T> decoder) {
    return DirectoryHandles.againIfClosed(file, () -> readOnce(file, decoder, false));
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
      r = walker.resolve(file, true, false, !careful);
      if (r == null) {
        return null; // absent, or a dangling symlink: the fact is absent
      }
      if (!r.confined()) {
        throw PathWalker.outside(file, r.real());
      }
    } catch (NoSuchFileException | NotDirectoryException e) {
      return null; // a directory on the way, opened as a handle, is gone: the fact is absent
    } catch (AccessDeniedException e) {
      throw new HostFileException(file, "permission denied", e);
    } catch (FileSystemLoopException e) {
      throw new HostFileException(file, "symlink loop", e);
    } catch (IOException e) {
      throw new HostFileException(file, HostFileException.ioReason(e), e);
    }
    Stat stat = r.stat();
    boolean unchecked = stat == PathWalker.UNCHECKED;
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
      if (r.in() != null && walker.readsViaHandles(r.in())) {
        // Others can write a directory on the way: the same steps, relative to the directory's handle.
        SecureDirectoryStream<Path> in = walker.handles().handle(r.in());
        Path name = r.real().getFileName();
        if (!r.statAtHandle()) {
          // The file was reached through a link, its type and size seen by path: look again, here.
          BasicFileAttributes now = DirectoryHandles.statAt(in, name);
          if (now == null) {
            return null;
          }
          if (!now.isRegularFile()) {
            throw new HostFileException(file, now.isSymbolicLink() ? DirectoryHandles.SWAPPED : now.isDirectory() ? "is a directory" : "not a regular file", null);
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
      throw new HostFileException(file, HostFileException.ioReason(e), e);
    }
    byte[] buf = buffers.get();
    int length = 0;
    try (channel) {
      ByteBuffer window = ByteBuffer.wrap(buf);
      while (true) {
        if (length == buf.length) {
          if (buf.length > HostFs.MAX_FILE_BYTES) {
            throw new HostFileException(file, "larger than " + (HostFs.MAX_FILE_BYTES >> 20) + " MiB", null);
          }
          buf = Arrays.copyOf(buf, Math.min(buf.length * 4, HostFs.MAX_FILE_BYTES + 1));
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
      if (unchecked && Files.isDirectory(r.real(), LinkOption.NOFOLLOW_LINKS)) {
        throw new HostFileException(file, "is a directory", null);
      }
      throw new HostFileException(file, HostFileException.ioReason(e), e);
    }
    if (length > HostFs.MAX_FILE_BYTES) {
      throw new HostFileException(file, "larger than " + (HostFs.MAX_FILE_BYTES >> 20) + " MiB", null);
    }
    return decoder.decode(buf, length);
  }

  /** The bytes {@link Character#isWhitespace} accepts below 0x80, and NUL. */
  private static boolean isTrimByte(byte b) {
    return b == 0 || b == ' ' || (b >= 0x09 && b <= 0x0d) || (b >= 0x1c && b <= 0x1f);
  }

  /** Strips leading and trailing whitespace and NUL bytes. */
  static String trimValue(String text) {
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
}
