package io.nodeatlas.cli;

import com.fasterxml.jackson.core.JsonLocation;
import com.fasterxml.jackson.core.JsonProcessingException;
import io.nodeatlas.discovery.host.Excerpt;
import java.nio.file.AccessDeniedException;
import java.nio.file.DirectoryNotEmptyException;
import java.nio.file.FileAlreadyExistsException;
import java.nio.file.FileSystemException;
import java.nio.file.NoSuchFileException;
import java.nio.file.NotDirectoryException;
import java.util.regex.Pattern;

/**
 * The reason of a failure as a user reads it: one line, without Java class names ({@code
 * java.nio.file.AccessDeniedException: /x/.spec.json.tmp1234}) and without the names of our temporary
 * files; the caller names the file or address it was working on.
 */
public final class Messages {

  private Messages() {}

  /** {@code java.io.IOException: } and the like, where a message carries a wrapped exception's text. */
  private static final Pattern CLASS_PREFIX = Pattern.compile("\\b(?:[a-z][a-z0-9_]*\\.)+[A-Z][A-Za-z0-9_$]*(?:Exception|Error): ?");

  /** The reason of {@code e}, without the file a file-system exception names (the caller names it). */
  public static String reason(Throwable e) {
    if (e instanceof JsonProcessingException j) {
      JsonLocation at = j.getLocation();
      String where = at == null || at.getLineNr() < 1 ? "" : " (line " + at.getLineNr() + ", column " + at.getColumnNr() + ")";
      // Jackson names where a bracket opened as "[Source: REDACTED (...); line: 1, column: 36]": keep the place.
      String said = String.valueOf(j.getOriginalMessage()).replaceAll("\\[Source: [^;\\]]*; ", "[");
      return clean(said) + where;
    }
    if (e instanceof FileSystemException f) {
      String why = f.getReason();
      if (why == null || why.isBlank()) {
        why = e instanceof NoSuchFileException ? "no such file or directory"
            : e instanceof AccessDeniedException ? "permission denied"
            : e instanceof FileAlreadyExistsException ? "file exists"
            : e instanceof NotDirectoryException ? "not a directory"
            : e instanceof DirectoryNotEmptyException ? "directory not empty"
            : "file system error";
      }
      return clean(why);
    }
    if (e instanceof java.net.UnknownHostException) {
      return "unknown host " + clean(String.valueOf(e.getMessage()));
    }
    if (e instanceof java.net.SocketTimeoutException) {
      return "timed out";
    }
    String message = e.getMessage();
    if (message == null || message.isBlank()) {
      return e.getCause() != null && e.getCause() != e ? reason(e.getCause()) : "unexpected failure";
    }
    return clean(message);
  }

  /** {@code text} on one line, printable, without class-name prefixes. */
  public static String clean(String text) {
    String one = CLASS_PREFIX.matcher(text).replaceAll("").strip();
    int nl = one.indexOf('\n');
    return Excerpt.scrub(nl < 0 ? one : one.substring(0, nl).strip());
  }
}
