package io.nodeatlas.cli;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import com.fasterxml.jackson.dataformat.yaml.YAMLFactory;
import io.nodeatlas.discovery.host.SourceSetting;
import java.io.IOException;
import java.io.InputStream;
import java.nio.file.Files;
import java.nio.file.NoSuchFileException;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.Iterator;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.Optional;
import java.util.TreeMap;
import picocli.CommandLine.Model.CommandSpec;
import picocli.CommandLine.Model.OptionSpec;
import picocli.CommandLine.ParseResult;

/**
 * {@code /etc/nodeatlas/config.yaml}: a flat YAML map whose keys are the flags' long names in camel
 * case ({@code --driver-name} → {@code driverName}, {@code --sysfs-root} → {@code sysfsRoot}).
 * Precedence: command-line flag, then its environment twin, then the file, then the built-in default.
 * The keys are {@code run}'s flags; every command that reads the host reads the same file and takes
 * the keys it has a flag for ({@link ConfigDefaults}), so {@code slices} prints what {@code run}
 * publishes. Unknown keys are an error: a typo must not silently do nothing.
 */
public final class ConfigFile {

  private ConfigFile() {}

  /** Key of an option: its first long name in camel case (a source setting's {@link SourceSetting#configKey()}). */
  public static String key(OptionSpec option) {
    Optional<SourceSetting> setting = SourceSettingOptions.settingOf(option);
    if (setting.isPresent()) {
      return setting.get().configKey();
    }
    return camel(option.names()[0]);
  }

  /** Every key an option answers to: its key and each of its other long names in camel case. */
  static List<String> keys(OptionSpec option) {
    List<String> out = new ArrayList<>(List.of(key(option)));
    for (String name : option.names()) {
      if (name.startsWith("--") && !out.contains(camel(name))) {
        out.add(camel(name));
      }
    }
    return out;
  }

  /** {@code --driver-name} → {@code driverName}. */
  private static String camel(String flag) {
    String name = flag.replaceFirst("^-+", "");
    StringBuilder b = new StringBuilder();
    boolean upper = false;
    for (char c : name.toCharArray()) {
      if (c == '-') {
        upper = true;
      } else {
        b.append(upper ? Character.toUpperCase(c) : c);
        upper = false;
      }
    }
    return b.toString();
  }

  /**
   * The environment twin of an option: a source setting's or a {@link Flag}'s declared one, else the
   * variable its default reads ({@code ${env:NODEATLAS_SOURCES:-all}}), else
   * {@code NODEATLAS_<UPPER_SNAKE>}.
   */
  public static String envName(OptionSpec option) {
    Optional<SourceSetting> setting = SourceSettingOptions.settingOf(option);
    if (setting.isPresent()) {
      return setting.get().env();
    }
    Optional<Flag<?>> flag = Flag.from(option);
    if (flag.isPresent()) {
      return flag.get().env();
    }
    java.util.regex.Matcher m = ENV_DEFAULT.matcher(String.valueOf(option.toBuilder().defaultValue()));
    if (m.matches()) {
      return m.group(1);
    }
    return "NODEATLAS_" + option.names()[0].replaceFirst("^-+", "").toUpperCase(Locale.ROOT).replace('-', '_');
  }

  private static final java.util.regex.Pattern ENV_DEFAULT =
      java.util.regex.Pattern.compile("\\$\\{env:([A-Za-z_][A-Za-z0-9_]*)(:-.*)?}");

  /**
   * The flags to add to {@code parsed}'s arguments for the file's values that neither a flag nor an
   * environment variable already set.
   */
  public static List<String> extraArguments(Path file, boolean required, CommandSpec spec, ParseResult parsed,
      Map<String, String> env) {
    Map<String, String> values = read(file, required);
    Map<String, OptionSpec> byKey = new TreeMap<>();
    for (OptionSpec o : spec.options()) {
      if (!o.usageHelp() && !o.versionHelp() && !key(o).equals("config")) {
        byKey.put(key(o), o);
      }
    }
    List<String> out = new ArrayList<>();
    for (Map.Entry<String, String> e : values.entrySet()) {
      OptionSpec o = byKey.get(e.getKey());
      if (o == null) {
        throw new UsageException(unknownKey(file, e.getKey(), byKey.keySet()));
      }
      if (parsed.hasMatchedOption(o) || env.get(envName(o)) != null) {
        continue;
      }
      String longName = o.longestName().startsWith("--") ? o.names()[0] : o.longestName();
      if (o.arity().max() == 0) {
        if (Boolean.parseBoolean(e.getValue())) {
          out.add(longName);
        }
      } else {
        out.add(longName + "=" + e.getValue());
      }
    }
    return out;
  }

  /** The message for a key no flag has: the closest key when one is close, else every key. */
  static String unknownKey(Path file, String key, java.util.Collection<String> known) {
    Optional<String> near = Suggestions.closest(key, known);
    return "config file " + file + ": unknown key \"" + io.nodeatlas.discovery.host.Excerpt.scrub(key) + "\"; "
        + near.map(k -> "did you mean \"" + k + "\"?").orElse("known keys: " + String.join(", ", new java.util.TreeSet<>(known)));
  }

  /** A config file is a few lines; anything this large is not one. */
  static final int MAX_BYTES = 1024 * 1024;

  public static Map<String, String> read(Path file, boolean required) {
    byte[] bytes;
    try (InputStream in = Files.newInputStream(file)) {
      bytes = in.readNBytes(MAX_BYTES + 1);
    } catch (NoSuchFileException e) {
      if (required) {
        throw new UsageException("config file " + file + " does not exist");
      }
      return Map.of();
    } catch (IOException e) {
      throw new UsageException("config file " + file + ": cannot read: " + Messages.reason(e), e);
    }
    if (bytes.length > MAX_BYTES) {
      throw new UsageException("config file " + file + " is larger than " + MAX_BYTES / 1024 + " KiB");
    }
    JsonNode root;
    try {
      root = new ObjectMapper(new YAMLFactory()).readTree(bytes);
    } catch (IOException e) {
      throw new UsageException("config file " + file + " is not valid YAML: " + Messages.reason(e), e);
    }
    Map<String, String> out = new TreeMap<>();
    if (root == null || root.isNull() || root.isMissingNode()) {
      return out;
    }
    if (!root.isObject()) {
      throw new UsageException("config file " + file + " must be a map of settings");
    }
    for (Iterator<Map.Entry<String, JsonNode>> it = root.fields(); it.hasNext(); ) {
      Map.Entry<String, JsonNode> e = it.next();
      JsonNode v = e.getValue();
      if (v.isArray()) {
        List<String> items = new ArrayList<>();
        v.forEach(i -> items.add(i.asText()));
        out.put(e.getKey(), String.join(",", items));
      } else if (v.isValueNode()) {
        out.put(e.getKey(), v.asText());
      } else {
        throw new UsageException("config file " + file + ": \"" + e.getKey() + "\" must be a value or a list");
      }
    }
    return out;
  }
}
