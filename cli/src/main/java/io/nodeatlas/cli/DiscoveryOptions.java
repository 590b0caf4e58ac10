package io.nodeatlas.cli;

import io.nodeatlas.discovery.host.HostContext;
import io.nodeatlas.discovery.host.SourceOptions;
import io.nodeatlas.discovery.spi.DiscoverySource;
import io.nodeatlas.discovery.engine.DiscoverySources;
import io.nodeatlas.discovery.host.SourceSetting;
import java.time.Clock;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.TreeMap;
import picocli.CommandLine.Model.CommandSpec;
import picocli.CommandLine.Model.OptionSpec;
import picocli.CommandLine.Option;
import picocli.CommandLine.ParseResult;

/**
 * Which sources to run and their settings; mixed into every command that reads the host
 * ({@code discover}, {@code cdi generate}, {@code match}, {@code run}). The settings are not written
 * here: each installed source declares its own ({@link DiscoverySource#settings()}), and
 * {@link SourceSettingOptions} adds them to the command when its command line is built
 * ({@link NodeAtlasCommand#configure}). Their values travel to the sources as {@link SourceOptions}
 * keyed {@link SourceSetting#key()}.
 */
public final class DiscoveryOptions implements Flag.Declaring {

  private final HostOptions host = new HostOptions();

  @Option(names = "--sources", paramLabel = "LIST", defaultValue = "${env:NODEATLAS_SOURCES:-all}",
      description = "Sources to run: all, or a comma list of the installed sources; -NAME drops one "
          + "(default: ${DEFAULT-VALUE}; env NODEATLAS_SOURCES).")
  String sources;

  /** The host-root flags ({@link HostOptions}). */
  @Override
  public Flag.Table flags() {
    return host.flags();
  }

  /** The installed sources; set when the command line is configured, else found on first use. */
  private DiscoverySources installed;

  /** The options registered for the sources' settings, in declaration order. */
  private final Map<SourceSetting, OptionSpec> settings = new LinkedHashMap<>();

  /** Called once per command by {@link SourceSettingOptions#register}. */
  void registered(DiscoverySources installed, Map<SourceSetting, OptionSpec> options) {
    this.installed = installed;
    settings.putAll(options);
  }

  /** Whether {@link SourceSettingOptions#register} already ran for this command. */
  boolean isRegistered() {
    return installed != null;
  }

  /** The installed sources this command selects from. */
  public DiscoverySources installed() {
    if (installed == null) {
      installed = DiscoverySources.load(DiscoveryOptions.class.getClassLoader());
    }
    return installed;
  }

  /**
   * The settings each source reads, keyed {@code <source>.<name>}. A value that the setting refuses
   * is a usage error naming the flag and where the value came from.
   */
  public SourceOptions sourceOptions() {
    Map<String, String> values = new TreeMap<>();
    for (Map.Entry<SourceSetting, OptionSpec> e : settings.entrySet()) {
      SourceSetting setting = e.getKey();
      OptionSpec option = e.getValue();
      String value = option.getValue();
      if (value == null || value.isEmpty()) {
        continue;
      }
      values.put(setting.key(), validated(setting, value, () -> origin(setting, option)));
    }
    return new SourceOptions(values);
  }

  /**
   * {@code value} as {@code setting} accepts it; a value it refuses is a usage error naming the flag
   * and, after it, {@code origin} (where the value came from). Shared with {@link HotPath}.
   */
  static String validated(SourceSetting setting, String value, java.util.function.Supplier<String> origin) {
    try {
      return setting.validate(value);
    } catch (IllegalArgumentException ex) {
      throw new UsageException(ex.getMessage() + origin.get(), ex);
    }
  }

  /** Where a value came from, for the error message: nothing for a flag, else the env twin. */
  private static String origin(SourceSetting setting, OptionSpec option) {
    ParseResult parsed = option.command() == null || option.command().commandLine() == null ? null
        : option.command().commandLine().getParseResult();
    if (parsed != null && parsed.hasMatchedOption(option)) {
      return "";
    }
    if (option.command() != null && option.command().defaultValueProvider() instanceof ConfigDefaults config) {
      Optional<String> fromFile = config.origin(option);
      if (fromFile.isPresent()) {
        return " (from " + fromFile.get() + ")";
      }
    }
    return Optional.ofNullable(System.getenv(setting.env())).map(v -> " (from env " + setting.env() + ")").orElse("");
  }

  /** The config file {@code --config} or its env twin names, or null for the default one. */
  public java.nio.file.Path configFile() {
    return host.configFile();
  }

  public HostContext hostContext() {
    return new HostContext(host.toHostFs(), sourceOptions(), Clock.systemUTC());
  }

  @picocli.CommandLine.Spec(picocli.CommandLine.Spec.Target.MIXEE) CommandSpec command;

  /** The selected sources from the installed ones; a bad selection is a usage error naming where the list came from. */
  public List<DiscoverySource> selectedSources() {
    try {
      return installed().select(sources);
    } catch (IllegalArgumentException e) {
      OptionSpec option = command == null ? null : command.findOption("--sources");
      String given = option == null || ValueSource.typed(option) ? null : ValueSource.describe(option, sources);
      throw new UsageException(badSources(e.getMessage(), given, installed().names()), e);
    }
  }

  /**
   * The message of a bad source list, naming the env twin or config key it came from ({@code given},
   * null: the flag) and, for a misspelt name, the installed source it probably meant.
   */
  static String badSources(String message, String given, java.util.Collection<String> names) {
    java.util.regex.Matcher unknown = UNKNOWN_SOURCE.matcher(message);
    if (unknown.find()) {
      // "unknown source 'gpx'; installed sources: ...": the one meant, when one is close.
      Optional<String> near = Suggestions.closest(unknown.group(1), names);
      if (near.isPresent()) {
        message = message.substring(0, unknown.end()) + " (did you mean '" + near.get() + "'?)" + message.substring(unknown.end());
      }
    }
    return given == null || given.startsWith("--sources") ? message
        : message.replace("--sources is empty", "the list is empty") + " (" + given + ")";
  }

  private static final java.util.regex.Pattern UNKNOWN_SOURCE = java.util.regex.Pattern.compile("^unknown source '([^']*)'");
}
