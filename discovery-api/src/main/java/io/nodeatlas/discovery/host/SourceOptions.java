package io.nodeatlas.discovery.host;

import java.nio.file.Path;
import java.util.Collections;
import java.util.Map;
import java.util.Optional;
import java.util.TreeMap;

/**
 * The values of the settings sources declare ({@link SourceSetting}), keyed {@code <source>.<name>}
 * ({@code gpu.nvmlLibrary}), as the command line, env twins and the config file gave them. Sources
 * are pluggable, so only the source that declared a setting reads it, through its own
 * {@link SourceSetting} constant; a value missing here means the declared default.
 */
public record SourceOptions(Map<String, String> values) {

  public static final SourceOptions NONE = new SourceOptions(Map.of());

  public SourceOptions {
    values = Collections.unmodifiableMap(new TreeMap<>(values));
  }

  public Optional<String> get(String key) {
    return Optional.ofNullable(values.get(key)).filter(v -> !v.isEmpty());
  }

  /** A setting's value, or its default; empty when neither is set. */
  public Optional<String> get(SourceSetting setting) {
    return get(setting.key()).or(() -> Optional.of(setting.defaultValue()).filter(v -> !v.isEmpty()));
  }

  /** A boolean setting's value, or its default. */
  public boolean flag(SourceSetting setting) {
    return Boolean.parseBoolean(setting.validate(get(setting).orElse("false")));
  }

  /** A path setting's value. */
  public Optional<Path> path(SourceSetting setting) {
    return get(setting).map(v -> Path.of(setting.validate(v)));
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

  public SourceOptions with(SourceSetting setting, String value) {
    return with(setting.key(), value);
  }
}
