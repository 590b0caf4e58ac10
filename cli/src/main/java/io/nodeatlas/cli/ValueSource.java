package io.nodeatlas.cli;

import io.nodeatlas.discovery.host.Excerpt;
import java.util.Map;
import picocli.CommandLine.Model.OptionSpec;

/**
 * Where an option's value came from, named as the user set it: the flag they typed
 * ({@code --host-root /x}), the environment variable ({@code NODEATLAS_HOST_ROOT=/x (environment)}) or
 * the config file's key ({@code hostRoot: /x (config file /etc/nodeatlas/config.yaml)}). An error
 * about a value names it this way, so nobody is told about a flag they never typed.
 */
public final class ValueSource {

  private ValueSource() {}

  /** How {@code option}, holding {@code value}, was set. */
  public static String describe(OptionSpec option, String value) {
    return describe(option, value, System.getenv());
  }

  static String describe(OptionSpec option, String value, Map<String, String> env) {
    String shown = Excerpt.scrub(value);
    if (typed(option)) {
      return flagName(option) + " " + shown;
    }
    if (option.command() != null && option.command().defaultValueProvider() instanceof ConfigDefaults config) {
      java.util.Optional<String> fromFile = config.given(option, shown);
      if (fromFile.isPresent()) {
        return fromFile.get();
      }
    }
    String envName = ConfigFile.envName(option);
    if (env.get(envName) != null) {
      return envName + "=" + shown + " (environment)";
    }
    return flagName(option) + " " + shown;
  }

  /** Whether the value was typed on the command line. */
  public static boolean typed(OptionSpec option) {
    return !option.originalStringValues().isEmpty();
  }

  /** The option's first long name ({@code --format} of {@code -o, --format}), as messages name it. */
  public static String flagName(OptionSpec option) {
    for (String name : option.names()) {
      if (name.startsWith("--")) {
        return name;
      }
    }
    return option.names()[0];
  }
}
