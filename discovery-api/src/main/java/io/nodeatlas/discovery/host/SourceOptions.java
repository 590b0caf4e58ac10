package io.nodeatlas.discovery.host;

import java.util.Collections;
import java.util.Map;
import java.util.Optional;
import java.util.TreeMap;

/**
 * Per-source settings from flags, env twins and the config file, keyed {@code <source>.<setting>}
 * (for example {@code gpu.nvmlLibrary}, {@code nic-rdma.includeVirtual}). Sources are pluggable, so
 * the agent cannot know their settings' types; each source reads and validates its own keys.
 */
public record SourceOptions(Map<String, String> values) {

  public static final SourceOptions NONE = new SourceOptions(Map.of());

  public SourceOptions {
    values = Collections.unmodifiableMap(new TreeMap<>(values));
  }

  public Optional<String> get(String key) {
    return Optional.ofNullable(values.get(key)).filter(v -> !v.isEmpty());
  }

  /** A boolean setting: {@code true}/{@code false}, absent means {@code defaultValue}. */
  public boolean flag(String key, boolean defaultValue) {
    return get(key).map(v -> {
      if (v.equalsIgnoreCase("true")) {
        return true;
      }
      if (v.equalsIgnoreCase("false")) {
        return false;
      }
      throw new IllegalArgumentException("setting " + key + " must be true or false, got \"" + v + "\"");
    }).orElse(defaultValue);
  }

  public SourceOptions with(String key, String value) {
    Map<String, String> copy = new TreeMap<>(values);
    copy.put(key, value);
    return new SourceOptions(copy);
  }
}
