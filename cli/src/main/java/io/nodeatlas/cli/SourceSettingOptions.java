package io.nodeatlas.cli;

import io.nodeatlas.discovery.engine.DiscoverySources;
import io.nodeatlas.discovery.host.SourceSetting;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import picocli.CommandLine;
import picocli.CommandLine.Help.Visibility;
import picocli.CommandLine.Model.CommandSpec;
import picocli.CommandLine.Model.OptionSpec;

/**
 * Turns the settings the installed sources declare ({@link SourceSetting}) into options of the commands
 * that read the host, with picocli's programmatic API: the flag and its aliases, the env twin as the
 * default-value source ({@code ${env:NAME}}), and a help line that shows the env name and the declared
 * default. A setting's config-file key is its flag in camel case ({@link SourceSetting#configKey()}),
 * like every other flag's, and the option carries its {@link SourceSetting} as user object so the
 * config file and help know its env twin. The command line itself names no setting of any source.
 */
public final class SourceSettingOptions {

  private SourceSettingOptions() {}

  /**
   * Adds every installed source's settings to each command of {@code cl}'s tree that mixes in
   * {@link DiscoveryOptions}, and lists the installed source names in its {@code --sources} help.
   */
  public static void registerAll(CommandLine cl, DiscoverySources installed) {
    for (CommandSpec mixin : new ArrayList<>(cl.getCommandSpec().mixins().values())) {
      if (mixin.userObject() instanceof DiscoveryOptions options && !options.isRegistered()) {
        register(cl.getCommandSpec(), options, installed);
      }
    }
    for (CommandLine sub : cl.getSubcommands().values()) {
      registerAll(sub, installed);
    }
  }

  static void register(CommandSpec spec, DiscoveryOptions options, DiscoverySources installed) {
    describeSources(spec, installed);
    Map<SourceSetting, OptionSpec> added = new LinkedHashMap<>();
    for (SourceSetting setting : installed.settings()) {
      OptionSpec option = option(setting);
      for (String name : option.names()) {
        OptionSpec taken = spec.optionsMap().get(name);
        if (taken != null) {
          throw new IllegalStateException("source " + setting.source() + " declares setting " + setting.key()
              + " with flag " + name + ", which command " + spec.qualifiedName() + " already has"
              + (taken.userObject() instanceof SourceSetting other ? " for setting " + other.key() : ""));
        }
      }
      spec.addOption(option);
      added.put(setting, option);
    }
    options.registered(installed, added);
  }

  /** The option of one setting. Values are text; {@link DiscoveryOptions#sourceOptions()} validates them. */
  static OptionSpec option(SourceSetting setting) {
    List<String> names = new ArrayList<>();
    names.add(setting.flag());
    names.addAll(setting.aliases());
    OptionSpec.Builder b = OptionSpec.builder(names.toArray(String[]::new))
        .type(String.class)
        .paramLabel(setting.type().label())
        .defaultValue("${env:" + setting.env() + "}")
        .showDefaultValue(Visibility.NEVER)
        .description(escape(helpLine(setting)))
        .userObject(setting);
    if (setting.type() == SourceSetting.Type.BOOLEAN) {
      // The flag alone means true, as every boolean flag of ours; --flag=false is accepted too.
      b.arity("0..1").fallbackValue("true");
    } else {
      b.arity("1");
    }
    return b.build();
  }

  /**
   * {@code <description> (default: <default>; env <NAME>; source <source>).}, without the default
   * when it has none: the same shape as every other flag's help.
   */
  static String helpLine(SourceSetting setting) {
    String text = setting.description().strip();
    if (text.endsWith(".")) {
      text = text.substring(0, text.length() - 1);
    }
    String defaults = setting.defaultValue().isEmpty() ? "" : "default: " + setting.defaultValue() + "; ";
    return text + " (" + defaults + "env " + setting.env() + "; source " + setting.source() + ").";
  }

  /** The setting an option was made for, if it was made here. */
  public static Optional<SourceSetting> settingOf(OptionSpec option) {
    return option.userObject() instanceof SourceSetting s ? Optional.of(s) : Optional.empty();
  }

  /** {@code --sources}' help line with the names of the sources installed in this build. */
  private static void describeSources(CommandSpec spec, DiscoverySources installed) {
    OptionSpec sources = spec.findOption("--sources");
    if (sources == null) {
      return;
    }
    String names = installed.names().isEmpty() ? "(none installed)" : String.join(", ", installed.names());
    spec.remove(sources);
    spec.addOption(sources.toBuilder()
        .description("Sources to run: all, or a comma list of " + escape(names) + "; -NAME drops one, and a list of "
            + "only -NAME items starts from all (default: ${DEFAULT-VALUE}; env NODEATLAS_SOURCES).")
        .build());
  }

  /**
   * picocli formats descriptions with {@link String#format} and expands {@code ${...}}: a declared
   * {@code %} or {@code ${} must stay literal.
   */
  private static String escape(String text) {
    return text.replace("%", "%%").replace("${", "$${");
  }
}
