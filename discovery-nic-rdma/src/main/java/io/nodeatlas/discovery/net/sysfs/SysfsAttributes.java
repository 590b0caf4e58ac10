package io.nodeatlas.discovery.net.sysfs;

import io.nodeatlas.discovery.host.HostFileException;
import io.nodeatlas.discovery.host.HostFs;
import io.nodeatlas.discovery.net.parse.SysfsFormatException;
import java.io.IOException;
import java.nio.file.AccessDeniedException;
import java.nio.file.Path;
import java.util.Optional;
import java.util.function.Consumer;
import java.util.function.Function;

/**
 * Reads one object's attributes and turns every failure into an absent fact: a missing file silently
 * (the kernel or driver does not have it), a malformed or unusable one with one warning naming the
 * object and the file (house rule: a broken file costs one fact and one warning).
 */
final class SysfsAttributes {

  private final HostFs fs;
  private final Path dir;
  private final String subject;
  private final Consumer<String> warn;

  SysfsAttributes(HostFs fs, Path dir, String subject, Consumer<String> warn) {
    this.fs = fs;
    this.dir = dir;
    this.subject = subject;
    this.warn = warn;
  }

  Path dir() {
    return dir;
  }

  /** A file's value parsed; empty when missing, empty, unreadable or malformed (the last two warn). */
  <T> Optional<T> read(String file, Function<String, T> parser) {
    return parse(file, readText(file, false), parser);
  }

  /**
   * For attributes whose read fails with EINVAL/EOPNOTSUPP when the fact does not apply (speed of a
   * down link, phys_switch_id in legacy mode, gid_attrs of an empty GID; §7.2): an I/O error on
   * read is absence, not a warning. Permission and file-type problems still warn.
   */
  <T> Optional<T> readMayFail(String file, Function<String, T> parser) {
    return parse(file, readText(file, true), parser);
  }

  Optional<String> text(String file) {
    return readText(file, false);
  }

  Optional<String> textMayFail(String file) {
    return readText(file, true);
  }

  private Optional<String> readText(String file, boolean readErrorIsAbsence) {
    try {
      return fs.readValue(dir.resolve(file)).filter(s -> !s.isEmpty());
    } catch (HostFileException e) {
      if (readErrorIsAbsence && isReadError(e)) {
        return Optional.empty();
      }
      warn.accept(subject + ": " + file + " left out: " + e.getMessage());
      return Optional.empty();
    }
  }

  private <T> Optional<T> parse(String file, Optional<String> text, Function<String, T> parser) {
    if (text.isEmpty()) {
      return Optional.empty();
    }
    try {
      return Optional.ofNullable(parser.apply(text.get()));
    } catch (SysfsFormatException e) {
      warn.accept(subject + ": " + file + " left out: " + e.getMessage());
      return Optional.empty();
    }
  }

  /** The read itself failed with an errno (not a missing file, a wrong file type or a permission problem). */
  static boolean isReadError(HostFileException e) {
    Throwable cause = e.getCause();
    return cause instanceof IOException && !(cause instanceof AccessDeniedException);
  }

  void warn(String message) {
    warn.accept(subject + ": " + message);
  }
}
