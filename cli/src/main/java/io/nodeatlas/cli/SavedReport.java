package io.nodeatlas.cli;

import io.nodeatlas.discovery.host.Excerpt;
import io.nodeatlas.discovery.report.NodeReport;
import io.nodeatlas.discovery.report.NodeReportCodec;
import java.io.IOException;
import java.io.InputStream;
import java.nio.charset.CharacterCodingException;
import java.nio.charset.CodingErrorAction;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.NoSuchFileException;
import java.nio.file.Path;
import java.nio.ByteBuffer;

/**
 * A saved {@code nodeatlas discover -o json} document, read back for {@code cdi generate --discovered},
 * {@code match --discovered} and {@code run --replay-report}. The file is hostile input: it is read up
 * to {@link #MAX_BYTES} (a node of 64 PFs with 64 VFs each is a few MiB), must be UTF-8, and must be a
 * document of the schema this build writes. Every problem is one line naming the option, the file and
 * the reason.
 */
public final class SavedReport {

  /**
   * The largest document read; far above any real node, small enough to keep a bad file harmless: the
   * text, its tree and the report fit the launcher's 128 MiB heap (a 30 MiB document did not).
   */
  public static final long MAX_BYTES = 16L * 1024 * 1024;

  /** A saved report that cannot be used; the message names the option, the file and the reason. */
  public static final class InvalidReportException extends Exception {
    private static final long serialVersionUID = 1L;

    InvalidReportException(String message, Throwable cause) {
      super(message, cause);
    }
  }

  private SavedReport() {}

  /** Reads {@code file} given with {@code option}; a problem is a usage error (exit status 2). */
  public static NodeReport readForOption(String option, Path file) {
    try {
      return read(option, file);
    } catch (InvalidReportException e) {
      throw new UsageException(e.getMessage(), e.getCause());
    }
  }

  /** Reads {@code file} given with {@code option}. */
  public static NodeReport read(String option, Path file) throws InvalidReportException {
    return parse(option, file, readText(option, file));
  }

  /** The discover document in {@code text}, read from {@code file} given with {@code option}. */
  public static NodeReport parse(String option, Path file, String text) throws InvalidReportException {
    try {
      return new NodeReportCodec().fromJson(text);
    } catch (RuntimeException e) {
      // The codec rejects with IllegalArgumentException; anything else from a malformed tree is the
      // same verdict, the file is not a document this build can use.
      String why = e.getCause() instanceof com.fasterxml.jackson.core.JsonProcessingException j
          ? "not a nodeatlas discover document: " + Messages.reason(j) : Excerpt.scrub(String.valueOf(e.getMessage()));
      throw new InvalidReportException(option + " " + file + ": " + why, e);
    }
  }

  /** The text of {@code file}: at most {@link #MAX_BYTES}, UTF-8. */
  public static String readText(String option, Path file) throws InvalidReportException {
    String where = option + " " + file + ": ";
    byte[] bytes;
    try (InputStream in = Files.newInputStream(file)) {
      // A regular file's size is known: one over the bound is refused unread.
      boolean tooLarge = Files.isRegularFile(file) && Files.size(file) > MAX_BYTES;
      bytes = tooLarge ? null : in.readNBytes((int) MAX_BYTES + 1);
    } catch (NoSuchFileException e) {
      throw new InvalidReportException(where + "no such file", e);
    } catch (IOException e) {
      throw new InvalidReportException(where + "cannot read: " + Messages.reason(e), e);
    }
    if (bytes == null || bytes.length > MAX_BYTES) {
      throw new InvalidReportException(where + "larger than " + MAX_BYTES / (1024 * 1024)
          + " MiB; not a saved discover document", null);
    }
    try {
      return StandardCharsets.UTF_8.newDecoder().onMalformedInput(CodingErrorAction.REPORT)
          .onUnmappableCharacter(CodingErrorAction.REPORT).decode(ByteBuffer.wrap(bytes)).toString();
    } catch (CharacterCodingException e) {
      throw new InvalidReportException(where + "not UTF-8 text", e);
    }
  }
}
