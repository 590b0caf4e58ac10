package io.nodeatlas.discovery.cpu;

import io.nodeatlas.discovery.host.HostFileException;
import io.nodeatlas.discovery.host.HostFs;
import io.nodeatlas.discovery.parse.CpuListParser;
import io.nodeatlas.discovery.parse.CpuMaskParser;
import io.nodeatlas.discovery.parse.SizeParser;
import io.nodeatlas.discovery.topology.CpuSet;
import java.nio.file.Path;
import java.util.List;
import java.util.Optional;
import java.util.function.Consumer;
import java.util.function.Function;

/**
 * The readers' view of the host: {@link HostFs} reads plus parsing, where anything that goes wrong
 * with one file (unreadable, not a regular file, unparsable) becomes one warning and an absent value.
 * That is the source's contract: a broken file costs one fact, never the run.
 */
final class SysfsReader {

  private final HostFs fs;
  private final Consumer<String> warnings;

  SysfsReader(HostFs fs, Consumer<String> warnings) {
    this.fs = fs;
    this.warnings = warnings;
  }

  HostFs fs() {
    return fs;
  }

  void warn(String message) {
    warnings.accept(message);
  }

  /** The trimmed value, or empty when the file is missing (silently) or broken (with a warning). */
  Optional<String> value(Path file) {
    try {
      return fs.readValue(file);
    } catch (HostFileException e) {
      warn(e.getMessage());
      return Optional.empty();
    }
  }

  /** The whole text, or empty when missing or broken (with a warning). */
  Optional<String> text(Path file) {
    try {
      return fs.readString(file);
    } catch (HostFileException e) {
      warn(e.getMessage());
      return Optional.empty();
    }
  }

  /** The parsed value; a parse failure is a warning naming the file and an absent value. */
  <T> Optional<T> parsed(Path file, Function<String, T> parser) {
    Optional<String> raw = text(file);
    if (raw.isEmpty()) {
      return Optional.empty();
    }
    try {
      return Optional.of(parser.apply(raw.get()));
    } catch (IllegalArgumentException e) {
      warn("cannot parse " + file + ": " + e.getMessage());
      return Optional.empty();
    }
  }

  Optional<Long> count(Path file) {
    return parsed(file, SizeParser::parseCount);
  }

  Optional<Long> signed(Path file) {
    return parsed(file, SizeParser::parseSigned);
  }

  /** A small signed id such as {@code physical_package_id} ({@code -1} on s390 and POWER when unknown). */
  Optional<Integer> id(Path file) {
    return parsed(file, text -> {
      long v = SizeParser.parseSigned(text);
      if (v < -1 || v > Integer.MAX_VALUE) {
        throw new IllegalArgumentException("id out of range: " + v);
      }
      return (int) v;
    });
  }

  Optional<CpuSet> cpuList(Path file) {
    return parsed(file, CpuListParser::parse);
  }

  Optional<CpuSet> cpuMask(Path file) {
    return parsed(file, CpuMaskParser::parse);
  }

  /** A list file ({@code <name>_list} or {@code cpulist}) or, on kernels without one, its mask twin. */
  Optional<CpuSet> cpuListOrMask(Path list, Path mask) {
    Optional<CpuSet> fromList = cpuList(list);
    return fromList.isPresent() ? fromList : cpuMask(mask);
  }

  boolean isDirectory(Path path) {
    return fs.isDirectory(path);
  }

  /** Directory entries sorted by name; a broken directory is a warning and no entries. */
  List<Path> list(Path dir) {
    try {
      return fs.list(dir);
    } catch (HostFileException e) {
      warn(e.getMessage());
      return List.of();
    }
  }

  /** The number after {@code prefix} in an entry name such as {@code cpu12} or {@code node3}; -1 when it is not one. */
  static int numberedEntry(String name, String prefix) {
    if (!name.startsWith(prefix) || name.length() == prefix.length() || name.length() > prefix.length() + 7) {
      return -1;
    }
    int value = 0;
    for (int i = prefix.length(); i < name.length(); i++) {
      char c = name.charAt(i);
      if (c < '0' || c > '9') {
        return -1;
      }
      value = value * 10 + (c - '0');
    }
    return value;
  }
}
