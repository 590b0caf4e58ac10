package io.nodeatlas.discovery.gpu;

import io.nodeatlas.discovery.host.Excerpt;
import java.util.Collections;
import java.util.List;
import java.util.Optional;
import java.util.SortedMap;
import java.util.TreeMap;

/**
 * {@code /proc/devices} ({@code fs/proc/devices.c}: a {@code "Character devices:"} section of
 * {@code "%3d %s"} lines, then {@code "Block devices:"}): the character-device majors the kernel
 * handed out, which is where the dynamic majors of {@code nvidia-uvm} and {@code nvidia-caps} come
 * from. Only the character section counts; block majors are a different number space. Parsed line by
 * line ({@link #line}) so that one malformed line costs that line only.
 */
public final class ProcDevicesParser {

  private ProcDevicesParser() {}

  /** One line of the file: a section header or a {@code <major> <name>} entry. */
  public sealed interface Line permits Section, Major {}

  /** {@code "Character devices:"}, {@code "Block devices:"}. */
  public record Section(String name) implements Line {}

  /** {@code "195 nvidia-frontend"}. */
  public record Major(int major, String name) implements Line {}

  /** Character majors by driver name. */
  public record CharMajors(SortedMap<String, Integer> majors) {
    public CharMajors {
      majors = Collections.unmodifiableSortedMap(new TreeMap<>(majors));
    }

    public Optional<Integer> major(String name) {
      return Optional.ofNullable(majors.get(name));
    }

    /** The NVIDIA GPU major: {@code nvidia-frontend} and {@code nvidia} are synonyms (the toolkit treats them so). */
    public Optional<Integer> nvidiaMajor() {
      return major("nvidia-frontend").or(() -> major("nvidia"));
    }
  }

  /** One non-blank line; {@link IllegalArgumentException} when it is neither a header nor an entry. */
  public static Line line(String text) {
    String line = text.strip();
    if (line.endsWith(":") && line.length() > 1) {
      return new Section(line.substring(0, line.length() - 1));
    }
    int space = line.indexOf(' ');
    String number = space <= 0 ? "" : line.substring(0, space);
    String name = space <= 0 ? "" : line.substring(space + 1).strip();
    if (number.isEmpty() || number.length() > 4 || !number.chars().allMatch(c -> c >= '0' && c <= '9')
        || name.isEmpty() || name.chars().anyMatch(Character::isWhitespace)) {
      throw new IllegalArgumentException("not \"<major> <name>\" or \"<section>:\": " + Excerpt.of(text));
    }
    return new Major(Integer.parseInt(number), name);
  }

  /** The character majors among the lines of the whole file, the first of a name winning. */
  public static CharMajors of(List<Line> lines) {
    SortedMap<String, Integer> majors = new TreeMap<>();
    boolean inChar = false;
    for (Line line : lines) {
      if (line instanceof Section s) {
        inChar = s.name().equals("Character devices");
      } else if (inChar && line instanceof Major m) {
        majors.putIfAbsent(m.name(), m.major());
      }
    }
    return new CharMajors(majors);
  }
}
