package io.nodeatlas.discovery.cpu;

import io.nodeatlas.discovery.host.HostFileException;
import io.nodeatlas.discovery.host.HostFs;
import io.nodeatlas.discovery.parse.CpuListParser;
import io.nodeatlas.discovery.parse.CpuMaskParser;
import io.nodeatlas.discovery.parse.SizeParser;
import io.nodeatlas.discovery.topology.CpuSet;
import java.nio.file.Path;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.function.Consumer;
import java.util.function.Function;

/**
 * The readers' view of the host: {@link HostFs} reads plus parsing, where anything that goes wrong
 * with one file (unreadable, not a regular file, unparsable) becomes one warning and an absent value.
 * That is the source's contract: a broken file costs one fact, never the run.
 */
final class SysfsReader {

  /** One file of a CPU set the kernel prints under several names: a list, its mask twin, an older name. */
  record CpuSetFile(String name, boolean mask) {
    static CpuSetFile list(String name) {
      return new CpuSetFile(name, false);
    }

    static CpuSetFile mask(String name) {
      return new CpuSetFile(name, true);
    }
  }

  private final HostFs fs;
  private final Consumer<String> warnings;
  /**
   * Per chain of alternative names, the one that was present last time. A kernel creates the same
   * attribute files for every CPU, cache and node (one attribute group each), so after the first
   * object the file that exists is tried first: an old kernel without {@code shared_cpu_list} then
   * costs one failed lookup per run, not one per cache. Lives for one run only (one reader per run).
   */
  private final Map<List<String>, Integer> presentAlternative = new HashMap<>();

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
  Optional<CpuSet> cpuListOrMask(Path dir, String list, String mask) {
    return firstCpuSet(dir, List.of(CpuSetFile.list(list), CpuSetFile.mask(mask)));
  }

  /**
   * The CPU set from the first of {@code files} in {@code dir} that exists and parses, in the given
   * order, except that the alternative found last time in this run is tried first.
   */
  Optional<CpuSet> firstCpuSet(Path dir, List<CpuSetFile> files) {
    List<String> key = files.stream().map(CpuSetFile::name).toList();
    int preferred = presentAlternative.getOrDefault(key, 0);
    Optional<CpuSet> value = cpuSet(dir, files.get(preferred));
    if (value.isPresent()) {
      return value;
    }
    for (int i = 0; i < files.size(); i++) {
      if (i != preferred) {
        value = cpuSet(dir, files.get(i));
        if (value.isPresent()) {
          presentAlternative.put(key, i);
          return value;
        }
      }
    }
    return Optional.empty();
  }

  private Optional<CpuSet> cpuSet(Path dir, CpuSetFile file) {
    return file.mask() ? cpuMask(dir.resolve(file.name())) : cpuList(dir.resolve(file.name()));
  }

  /**
   * The raw value of the first of {@code names} in {@code dir} that exists (same order and memory as
   * {@link #firstCpuSet}); null when none does.
   */
  NamedValue firstValue(Path dir, List<String> names) {
    int preferred = presentAlternative.getOrDefault(names, 0);
    Optional<String> value = value(dir.resolve(names.get(preferred)));
    if (value.isPresent()) {
      return new NamedValue(names.get(preferred), value.get());
    }
    for (int i = 0; i < names.size(); i++) {
      if (i != preferred) {
        value = value(dir.resolve(names.get(i)));
        if (value.isPresent()) {
          presentAlternative.put(names, i);
          return new NamedValue(names.get(i), value.get());
        }
      }
    }
    return null;
  }

  /** A file's name and trimmed value. */
  record NamedValue(String name, String value) {}

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
