package io.nodeatlas.discovery.host;

import java.nio.file.Path;
import java.util.ArrayList;
import java.util.Collections;
import java.util.HashMap;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.function.Consumer;
import java.util.function.Function;

/**
 * The one way a discovery source reads a host fact: a path, a pure {@link FactParser}, an outcome.
 *
 * <ul>
 *   <li>A missing file (or dangling link) is an absent fact, silently: kernels and drivers differ in
 *       which attributes they create.
 *   <li>A file that cannot be used (unreadable, a directory or FIFO where a value belongs, larger
 *       than {@link HostFs#MAX_FILE_BYTES}, a symlink resolving outside the host root, a loop) or
 *       that does not parse costs that fact and one warning, always in the form
 *       {@code <path as the host names it>: <reason>}.
 *   <li>Files with one fact per line ({@code meminfo}, {@code key: value}) are parsed line by line:
 *       a bad line costs that line's fact, not the file's.
 *   <li>Host text only reaches a warning through {@link Excerpt}: short, printable, escaped.
 * </ul>
 *
 * One reader serves one discovery run of one source; it remembers which of several alternative file
 * names a kernel has (see {@link #first}), so it is not shared between threads.
 */
public final class FactReader {

  private final HostFs fs;
  private final Consumer<String> warnings;
  /**
   * Per list of alternative file names, the one that was present last time. A kernel creates the
   * same attribute files for every CPU, cache and node (one attribute group each), so after the
   * first object the file that exists is tried first: an old kernel without {@code shared_cpu_list}
   * then costs one failed lookup per run, not one per cache.
   */
  private final Map<List<String>, Integer> presentAlternative = new HashMap<>();

  public FactReader(HostFs fs, Consumer<String> warnings) {
    this.fs = fs;
    this.warnings = warnings;
  }

  public HostFs fs() {
    return fs;
  }

  /** A warning about one file, in the one format: {@code /sys/...: reason}. */
  public void warn(Path file, String reason) {
    warnings.accept(Excerpt.scrub(fs.hostPath(file) + ": " + reason));
  }

  /** A warning about something that is not one file (a device, a relation between files). */
  public void warn(String message) {
    warnings.accept(Excerpt.scrub(message));
  }

  /** The whole text of a file; empty when missing (silently) or unusable (one warning). */
  public Optional<String> text(Path file) {
    try {
      return fs.readString(file);
    } catch (HostFileException e) {
      warn(file, e.reason());
      return Optional.empty();
    }
  }

  /** A single-value attribute, trimmed of whitespace and NUL; may be the empty string. */
  public Optional<String> value(Path file) {
    try {
      return fs.readValue(file);
    } catch (HostFileException e) {
      warn(file, e.reason());
      return Optional.empty();
    }
  }

  /**
   * A single-value attribute parsed: empty when the file is missing or holds only whitespace
   * (silently), or is unusable or does not parse (one warning).
   */
  public <T> Optional<T> read(Path file, FactParser<T> parser) {
    // The parse runs inside the read, on the reader's buffer where the parser can (FactParser#parseBytes).
    try {
      return Optional.ofNullable(fs.readParsed(file, parser));
    } catch (HostFileException e) {
      warn(file, e.reason());
    } catch (IllegalArgumentException e) {
      warn(file, "not understood: " + e.getMessage());
    }
    return Optional.empty();
  }

  /**
   * Like {@link #read}, for attributes whose read fails with an errno when the fact does not apply
   * (the speed of a down link, {@code phys_switch_id} of a legacy-mode NIC, a GID slot's type): such
   * a read error is absence, not a warning. Permission, file-type and confinement problems still warn.
   */
  public <T> Optional<T> readIfApplicable(Path file, FactParser<T> parser) {
    Optional<String> v;
    try {
      v = fs.readValue(file).filter(s -> !s.isEmpty());
    } catch (HostFileException e) {
      if (!e.isReadError()) {
        warn(file, e.reason());
      }
      return Optional.empty();
    }
    return parse(file, v, parser);
  }

  /**
   * A binary file handed whole to a parser ({@code /etc/ld.so.cache}): empty when the file is missing
   * (silently), unusable or not understood (one warning, as for text). The parser follows the
   * {@link FactParser} rules with bytes for text.
   */
  public <T> Optional<T> readBinary(Path file, Function<byte[], T> parser) {
    Optional<byte[]> bytes;
    try {
      bytes = fs.readBytes(file);
    } catch (HostFileException e) {
      warn(file, e.reason());
      return Optional.empty();
    }
    return parse(file, bytes, parser);
  }

  /** The whole text handed to a parser (for multi-line files parsed as a unit). */
  public <T> Optional<T> readText(Path file, FactParser<T> parser) {
    return parse(file, text(file), parser);
  }

  /**
   * A file of one fact per line: each non-blank line through {@code parser}; a line that does not
   * parse costs that line (one warning naming the line number), and the others still count.
   */
  public <T> List<T> lines(Path file, FactParser<T> parser) {
    Optional<String> text = text(file);
    if (text.isEmpty()) {
      return List.of();
    }
    List<T> out = new ArrayList<>();
    int number = 0;
    for (String line : text.get().replace("\0", "").split("\n", -1)) {
      number++;
      if (line.isBlank()) {
        continue;
      }
      try {
        T value = parser.parse(line);
        if (value != null) {
          out.add(value);
        }
      } catch (IllegalArgumentException e) {
        warn(file, "line " + number + " left out: " + e.getMessage());
      }
    }
    return out;
  }

  /**
   * A {@code key: value} file ({@code /proc/meminfo}, a node's {@code meminfo} whose keys carry
   * {@code keyPrefix} such as {@code "Node 0 "}): keys in file order, the first occurrence winning.
   * A non-blank line without a key costs that line and one warning. Parse each value with
   * {@link #field}, so one malformed value costs one fact.
   */
  public KeyValues keyValues(Path file, String keyPrefix) {
    Map<String, String> out = new LinkedHashMap<>();
    Optional<String> text = text(file);
    if (text.isPresent()) {
      int number = 0;
      for (String raw : text.get().replace("\0", "").split("\n", -1)) {
        number++;
        if (raw.isBlank()) {
          continue;
        }
        int colon = raw.indexOf(':');
        String key = colon <= 0 ? "" : raw.substring(0, colon).trim();
        if (!keyPrefix.isEmpty() && key.startsWith(keyPrefix)) {
          key = key.substring(keyPrefix.length()).trim();
        }
        if (key.isEmpty()) {
          warn(file, "line " + number + " left out: not \"key: value\": " + Excerpt.of(raw));
          continue;
        }
        out.putIfAbsent(key, raw.substring(colon + 1).trim());
      }
    }
    return new KeyValues(file, Collections.unmodifiableMap(out));
  }

  /** The values of one {@code key: value} file, as read by {@link #keyValues}. */
  public record KeyValues(Path file, Map<String, String> values) {
    public boolean isEmpty() {
      return values.isEmpty();
    }
  }

  /** One value of a {@code key: value} file parsed; a bad value costs that key with one warning. */
  public <T> Optional<T> field(KeyValues file, String key, FactParser<T> parser) {
    String raw = file.values().get(key);
    if (raw == null) {
      return Optional.empty();
    }
    try {
      return Optional.ofNullable(parser.parse(raw));
    } catch (IllegalArgumentException e) {
      warn(file.file(), key + " left out: " + e.getMessage());
      return Optional.empty();
    }
  }

  /**
   * The first of {@code names} in {@code dir} that exists and parses, in the given order, except
   * that the name found last time in this run is tried first. Empty when none does.
   */
  public <T> Optional<T> first(Path dir, List<String> names, List<FactParser<T>> parsers) {
    if (names.size() != parsers.size()) {
      throw new IllegalArgumentException("one parser per name");
    }
    int preferred = presentAlternative.getOrDefault(names, 0);
    Optional<T> value = read(dir.resolve(names.get(preferred)), parsers.get(preferred));
    if (value.isPresent()) {
      return value;
    }
    for (int i = 0; i < names.size(); i++) {
      if (i != preferred) {
        value = read(dir.resolve(names.get(i)), parsers.get(i));
        if (value.isPresent()) {
          presentAlternative.put(names, i);
          return value;
        }
      }
    }
    return Optional.empty();
  }

  /** Directory entries sorted by name; missing is empty, a broken directory one warning and empty. */
  public List<Path> list(Path dir) {
    try {
      return fs.list(dir);
    } catch (HostFileException e) {
      warn(dir, e.reason());
      return List.of();
    }
  }

  /** Names in a directory, sorted (see {@link HostFs#listNames}); missing is empty, a broken directory one warning and empty. */
  public List<String> names(Path dir) {
    try {
      return fs.listNames(dir);
    } catch (HostFileException e) {
      warn(dir, e.reason());
      return List.of();
    }
  }

  /**
   * {@link #readText} of a file that is usually absent (the {@code cpuN/online} of CPUs that cannot be
   * unplugged): the absent case costs one stat(2) and no exception (see {@link HostFs#isAbsent}). A
   * symlink loop or an unsearchable directory at the path then reads as absent, without the warning
   * {@link #readText} gives, so use it only where absence is the usual answer and the fallback is safe.
   */
  public <T> Optional<T> readTextIfPresent(Path file, FactParser<T> parser) {
    return fs.isAbsent(file) ? Optional.empty() : readText(file, parser);
  }

  /**
   * {@link #isDirectory} of a path that is usually absent ({@code cpuN/cache/index4}): the same answer
   * (both are false for missing paths, dangling links and loops), the absent case without an exception.
   */
  public boolean isDirectoryIfPresent(Path path) {
    return !fs.isAbsent(path) && fs.isDirectory(path);
  }

  public boolean exists(Path path) {
    return fs.exists(path);
  }

  public boolean isDirectory(Path path) {
    return fs.isDirectory(path);
  }

  /**
   * A symlink's target, resolved lexically against the link's directory (captured trees keep
   * dangling links); empty when not a link. A target outside the roots is refused with a warning.
   */
  public Optional<Path> link(Path link) {
    Optional<Path> target;
    try {
      target = fs.resolveLink(link);
    } catch (HostFileException e) {
      warn(link, e.reason());
      return Optional.empty();
    }
    if (target.isPresent() && !fs.isConfined(target.get()) && !fs.isConfined(target.get().toAbsolutePath().normalize())) {
      warn(link, "points outside the host root (to " + Excerpt.of(target.get().toString()) + "); not followed");
      return Optional.empty();
    }
    return target;
  }

  /** The last element of a symlink's target ({@code mlx5_core} for a {@code driver} link); empty when not a link. */
  public Optional<String> linkName(Path link) {
    try {
      return fs.readLink(link).map(Path::getFileName).map(Path::toString);
    } catch (HostFileException e) {
      warn(link, e.reason());
      return Optional.empty();
    }
  }

  private <T> Optional<T> parse(Path file, Optional<String> text, FactParser<T> parser) {
    return parse(file, text, (Function<String, T>) parser::parse);
  }

  private <I, T> Optional<T> parse(Path file, Optional<I> input, Function<I, T> parser) {
    if (input.isEmpty()) {
      return Optional.empty();
    }
    try {
      return Optional.ofNullable(parser.apply(input.get()));
    } catch (IllegalArgumentException e) {
      warn(file, "not understood: " + e.getMessage());
      return Optional.empty();
    }
  }
}
