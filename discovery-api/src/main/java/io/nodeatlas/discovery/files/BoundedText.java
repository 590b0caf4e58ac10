package io.nodeatlas.discovery.files;

import java.io.IOException;
import java.io.InputStream;
import java.nio.ByteBuffer;
import java.nio.CharBuffer;
import java.nio.charset.CharsetDecoder;
import java.nio.charset.CoderResult;
import java.nio.charset.CodingErrorAction;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;

/**
 * Reads a user-supplied text file within a byte bound and as strict UTF-8, for the commands that parse
 * hostile files ({@code cdi validate}, {@code match -f}). The bound is checked while reading, never
 * trusted from the file's size alone (a FIFO or {@code /proc} file reports 0), so at most
 * {@code maxBytes + 1} bytes are ever held. Invalid UTF-8 is reported with the byte offset of its first
 * bad byte, which a user can find with {@code xxd -s}.
 */
public final class BoundedText {

  /** Why a file could not be used as text; {@link #getMessage()} is one line without the file name. */
  public static final class TextException extends Exception {
    private static final long serialVersionUID = 1L;

    TextException(String message) {
      super(message);
    }
  }

  private BoundedText() {}

  /** The file's bytes, at most {@code maxBytes} of them. */
  public static byte[] readBytes(Path file, long maxBytes) throws IOException, TextException {
    if (maxBytes < 0 || maxBytes >= Integer.MAX_VALUE) {
      throw new IllegalArgumentException("maxBytes out of range: " + maxBytes);
    }
    byte[] bytes;
    try (InputStream in = Files.newInputStream(file)) {
      // A regular file's size is known: one over the bound is refused unread.
      boolean tooLarge = Files.isRegularFile(file) && Files.size(file) > maxBytes;
      bytes = tooLarge ? null : in.readNBytes((int) maxBytes + 1);
    }
    if (bytes == null || bytes.length > maxBytes) {
      throw new TextException("larger than the limit of " + maxBytes + " bytes (" + describe(maxBytes) + ")");
    }
    return bytes;
  }

  /** The file as text: at most {@code maxBytes} bytes of UTF-8 (a leading byte order mark is kept). */
  public static String read(Path file, long maxBytes) throws IOException, TextException {
    return utf8(readBytes(file, maxBytes));
  }

  /** Strict UTF-8: a malformed or truncated sequence is an error naming the offset of its first byte. */
  public static String utf8(byte[] bytes) throws TextException {
    checkUtf8(bytes);
    return new String(bytes, StandardCharsets.UTF_8);
  }

  /** Checks that {@code bytes} are UTF-8 without building a string (a small buffer is reused). */
  public static void checkUtf8(byte[] bytes) throws TextException {
    CharsetDecoder decoder = StandardCharsets.UTF_8.newDecoder()
        .onMalformedInput(CodingErrorAction.REPORT)
        .onUnmappableCharacter(CodingErrorAction.REPORT);
    ByteBuffer in = ByteBuffer.wrap(bytes);
    CharBuffer out = CharBuffer.allocate(8192);
    while (true) {
      CoderResult r = decoder.decode(in, out, true);
      if (r.isError()) {
        throw new TextException("not UTF-8: invalid byte sequence at byte offset " + in.position()
            + " (0x" + String.format("%02x", bytes[in.position()] & 0xff) + ")");
      }
      out.clear();
      if (r.isUnderflow()) {
        break;
      }
    }
    CoderResult end = decoder.flush(out);
    if (end.isError()) {
      throw new TextException("not UTF-8: truncated sequence at the end (byte offset " + bytes.length + ")");
    }
  }

  private static String describe(long bytes) {
    return bytes % (1024 * 1024) == 0 ? bytes / (1024 * 1024) + " MiB" : bytes / 1024 + " KiB";
  }
}
