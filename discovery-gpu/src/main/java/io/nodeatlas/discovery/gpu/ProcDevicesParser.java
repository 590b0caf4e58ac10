package io.nodeatlas.discovery.gpu;

import java.util.Collections;
import java.util.List;
import java.util.Optional;
import java.util.SortedMap;
import java.util.TreeMap;

/**
 * {@code /proc/devices}: the character-device majors the kernel handed out, which is where the
 * dynamic majors of {@code nvidia-uvm} and {@code nvidia-caps} come from (nvml.md §3.1). Only the
 * "Character devices:" section counts; block majors are a different number space.
 */
public final class ProcDevicesParser {

  private ProcDevicesParser() {}

  /** Character majors by driver name, plus the lines that were not {@code <major> <name>}. */
  public record CharMajors(SortedMap<String, Integer> majors, int badLines) {
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

  public static CharMajors parse(List<String> lines) {
    SortedMap<String, Integer> majors = new TreeMap<>();
    int bad = 0;
    boolean inChar = false;
    for (String raw : lines) {
      String line = raw.strip();
      if (line.isEmpty()) {
        continue;
      }
      if (line.endsWith(":")) {
        inChar = line.equals("Character devices:");
        continue;
      }
      if (!inChar) {
        continue;
      }
      int space = line.indexOf(' ');
      if (space <= 0) {
        bad++;
        continue;
      }
      String number = line.substring(0, space);
      String name = line.substring(space + 1).strip();
      if (name.isEmpty() || name.contains(" ") || !number.chars().allMatch(c -> c >= '0' && c <= '9')
          || number.length() > 4) {
        bad++;
        continue;
      }
      majors.putIfAbsent(name, Integer.parseInt(number));
    }
    return new CharMajors(majors, bad);
  }
}
