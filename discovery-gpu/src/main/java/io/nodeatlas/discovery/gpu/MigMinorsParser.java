package io.nodeatlas.discovery.gpu;

import java.util.Collections;
import java.util.List;
import java.util.Optional;
import java.util.SortedMap;
import java.util.TreeMap;
import java.util.regex.Matcher;
import java.util.regex.Pattern;

/**
 * {@code /proc/driver/nvidia-caps/mig-minors}: the fixed minor of every MIG capability device
 * ({@code /dev/nvidia-caps/nvidia-cap<minor>}), one {@code "<capability> <minor>"} per line, with
 * capabilities {@code config}, {@code monitor}, {@code gpu<G>/gi<I>/access} and
 * {@code gpu<G>/gi<I>/ci<C>/access}, where G is the GPU's minor number (nvml.md §3.2). The file is
 * read rather than the layout computed, as NVIDIA advises.
 */
public final class MigMinorsParser {

  private static final Pattern LINE =
      Pattern.compile("^(config|monitor|gpu[0-9]{1,4}/gi[0-9]{1,4}/access|gpu[0-9]{1,4}/gi[0-9]{1,4}/ci[0-9]{1,4}/access)\\s+([0-9]{1,9})$");

  private MigMinorsParser() {}

  /** Capability name → device minor, plus the number of lines that did not parse. */
  public record MigMinors(SortedMap<String, Integer> minors, int badLines) {
    public MigMinors {
      minors = Collections.unmodifiableSortedMap(new TreeMap<>(minors));
    }

    /** The minor of {@code gpu<gpuMinor>/gi<gi>/access}. */
    public Optional<Integer> gpuInstance(int gpuMinor, int gi) {
      return Optional.ofNullable(minors.get("gpu" + gpuMinor + "/gi" + gi + "/access"));
    }

    /** The minor of {@code gpu<gpuMinor>/gi<gi>/ci<ci>/access}. */
    public Optional<Integer> computeInstance(int gpuMinor, int gi, int ci) {
      return Optional.ofNullable(minors.get("gpu" + gpuMinor + "/gi" + gi + "/ci" + ci + "/access"));
    }
  }

  public static MigMinors parse(List<String> lines) {
    SortedMap<String, Integer> minors = new TreeMap<>();
    int bad = 0;
    for (String raw : lines) {
      String line = raw.strip();
      if (line.isEmpty()) {
        continue;
      }
      Matcher m = LINE.matcher(line);
      if (!m.matches()) {
        bad++;
        continue;
      }
      minors.putIfAbsent(m.group(1), Integer.parseInt(m.group(2)));
    }
    return new MigMinors(minors, bad);
  }
}
