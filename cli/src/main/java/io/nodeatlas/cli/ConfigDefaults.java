package io.nodeatlas.cli;

import java.nio.file.Files;
import java.nio.file.InvalidPathException;
import java.nio.file.Path;
import java.util.IdentityHashMap;
import java.util.Map;
import java.util.Set;
import java.util.function.Supplier;
import picocli.CommandLine;
import picocli.CommandLine.Model.ArgSpec;
import picocli.CommandLine.Model.CommandSpec;
import picocli.CommandLine.Model.OptionSpec;

/**
 * The config file as the defaults of a command that reads the host ({@code discover}, {@code slices},
 * {@code match}, {@code cdi generate}, {@code labels}), through picocli's default-value provider: an
 * option neither typed nor set by its env twin takes the file's value for its key, converted and
 * checked as the flag's. The file's keys are {@code run}'s ({@code vocabulary}): a key {@code run}
 * knows and this command has no flag for is left alone, a key {@code run} does not know is an error
 * here as there. {@code run} merges the file itself ({@code RunCommand#withConfigFile}), for SIGHUP.
 */
final class ConfigDefaults implements CommandLine.IDefaultValueProvider {

  private final Map<String, String> env;
  private final Supplier<Set<String>> vocabulary;
  private final Path defaultFile;

  /** The file read for the current parse and its values; read once. */
  private Path file;
  private String fileOrigin = "";
  private Map<String, String> values;

  /** The options this provider gave a value, with the key it came from. */
  private final Map<OptionSpec, String> supplied = new IdentityHashMap<>();

  ConfigDefaults(Map<String, String> env, Supplier<Set<String>> vocabulary, Path defaultFile) {
    this.env = env;
    this.vocabulary = vocabulary;
    this.defaultFile = defaultFile;
  }

  @Override
  public String defaultValue(ArgSpec arg) {
    if (!(arg instanceof OptionSpec o) || o.usageHelp() || o.versionHelp() || o.longestName().equals("--config")
        || o.command() == null) {
      return null;
    }
    Map<String, String> v = values(o.command());
    for (String key : ConfigFile.keys(o)) {
      String value = v.get(key);
      if (value == null) {
        continue;
      }
      if (env.get(ConfigFile.envName(o)) != null) {
        return null; // the env twin wins over the file
      }
      supplied.put(o, key);
      // picocli expands ${...} in a provider's value; a file's text stays literal.
      return value.replace("${", "$${");
    }
    return null;
  }

  /** Where {@code option}'s value came from when this provider gave it: {@code key: value (config file F)}. */
  java.util.Optional<String> given(OptionSpec option, String value) {
    String key = supplied.get(option);
    return key == null ? java.util.Optional.empty()
        : java.util.Optional.of(key + ": " + value + " (config file " + file + fileOrigin + ")");
  }

  /** {@code config file F, key K} when this provider gave {@code option} its value. */
  java.util.Optional<String> origin(OptionSpec option) {
    String key = supplied.get(option);
    return key == null ? java.util.Optional.empty()
        : java.util.Optional.of("config file " + file + fileOrigin + ", key " + key);
  }

  private Map<String, String> values(CommandSpec command) {
    Path wanted;
    boolean required;
    String origin;
    OptionSpec config = command.findOption("--config");
    String fromEnv = env.get(ConfigLocation.CONFIG.env());
    if (config != null && !config.originalStringValues().isEmpty()) {
      wanted = config.getValue();
      required = true;
      origin = "";
    } else if (fromEnv != null && !fromEnv.isEmpty()) {
      try {
        wanted = Path.of(fromEnv);
      } catch (InvalidPathException e) {
        throw new CommandLine.ParameterException(command.commandLine(),
            ConfigLocation.CONFIG.env() + "=" + io.nodeatlas.discovery.host.Excerpt.scrub(fromEnv) + " (environment) is not a path");
      }
      required = true;
      origin = " from env " + ConfigLocation.CONFIG.env();
    } else {
      wanted = defaultFile;
      required = false;
      origin = "";
    }
    if (values != null && wanted.equals(file)) {
      return values;
    }
    file = wanted;
    fileOrigin = origin;
    supplied.clear();
    if (!required && Files.exists(wanted) && !Files.isReadable(wanted)) {
      // The node's file, readable by root alone: a user's discover still runs, and says so.
      command.commandLine().getErr().println("nodeatlas: warning: config file " + wanted
          + " is not readable by this user; going on without it");
      values = Map.of();
      return values;
    }
    try {
      values = ConfigFile.read(wanted, required);
    } catch (UsageException e) {
      throw new CommandLine.ParameterException(command.commandLine(), e.getMessage() + (origin.isEmpty() ? "" : " (" + origin.strip() + ")"));
    }
    if (!values.isEmpty()) {
      Set<String> known = vocabulary.get();
      for (String key : values.keySet()) {
        if (!known.contains(key)) {
          throw new CommandLine.ParameterException(command.commandLine(),
              ConfigFile.unknownKey(wanted, key, known));
        }
      }
    }
    return values;
  }
}
