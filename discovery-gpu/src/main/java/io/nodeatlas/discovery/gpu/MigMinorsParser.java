package io.nodeatlas.discovery.gpu;

import io.nodeatlas.discovery.host.Excerpt;
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
 * {@code gpu<G>/gi<I>/ci<C>/access}, where G is the GPU's minor number (NVIDIA's "MIG User Guide",
 * "Device Nodes and Capabilities"). The file is read rather than the layout computed, as NVIDIA
 * advises. Parsed line by line ({@link #line}), so one malformed line costs that capability only.
 */
public final class MigMinorsParser {

  private static final Pattern LINE =
      Pattern.compile("^(config|monitor|gpu[0-9]{1,4}/gi[0-9]{1,4}/access|gpu[0-9]{1,4}/gi[0-9]{1,4}/ci[0-9]{1,4}/access)\\s+([0-9]{1,9})$");

  private MigMinorsParser() {}

  /** One line: a capability and the minor of its device node. */
  public record Capability(String name, int minor) {}

  /** Capability name → device minor. */
  public record MigMinors(SortedMap<String, Integer> minors) {
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

  /** One non-blank line; {@link IllegalArgumentException} when it is not {@code <capability> <minor>}. */
  public static Capability line(String text) {
    Matcher m = LINE.matcher(text.strip());
    if (!m.matches()) {
      throw new IllegalArgumentException("not \"<capability> <minor>\": " + Excerpt.of(text));
    }
    return new Capability(m.group(1), Integer.parseInt(m.group(2)));
  }

  /** The capabilities of the whole file, the first line of a capability winning. */
  public static MigMinors of(List<Capability> capabilities) {
    SortedMap<String, Integer> minors = new TreeMap<>();
    for (Capability c : capabilities) {
      minors.putIfAbsent(c.name(), c.minor());
    }
    return new MigMinors(minors);
  }
}
