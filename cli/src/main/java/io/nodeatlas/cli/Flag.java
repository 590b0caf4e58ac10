package io.nodeatlas.cli;

import java.util.ArrayList;
import java.util.List;
import java.util.Optional;
import picocli.CommandLine;
import picocli.CommandLine.Help.Visibility;
import picocli.CommandLine.Model.CommandSpec;
import picocli.CommandLine.Model.OptionSpec;

/**
 * One flag with an environment twin, declared as a row of data: long name, value label, type, env
 * twin, default and help sentence. Every row becomes its picocli option the same way ({@link #option()}):
 * the env twin is the default-value source ({@code ${env:NAME:-default}}), and the help line ends with
 * the default and the env name, the shape of every flag's help (a source setting's too,
 * {@link SourceSettingOptions#helpLine}). The row is the option's user object, so the config file and
 * error messages read the env twin from here instead of guessing it.
 *
 * @param names the long name first, then any aliases ({@code -v})
 * @param label the value's name in help ({@code DIR}); unused for a boolean
 * @param type the value's type; picocli converts to it ({@code int.class}, {@link java.nio.file.Path})
 * @param env the environment variable twin
 * @param defaultValue the value when neither flag nor env is given; empty for none
 * @param shownDefault what help says the default is, when it is not {@code defaultValue} itself (a
 *     derived default such as {@code <host-root>/sys}); empty to say nothing
 * @param description one sentence for help, without the default or env (added here)
 * @param converter how a value is turned into {@code type}, or null for picocli's own conversion
 */
public record Flag<T>(List<String> names, String label, Class<T> type, String env, String defaultValue,
    String shownDefault, String description, CommandLine.ITypeConverter<T> converter) {

  public Flag {
    names = List.copyOf(names);
  }

  /** A flag whose help shows {@code defaultValue} as its default (none when empty). */
  public static <T> Flag<T> of(String name, String label, Class<T> type, String env, String defaultValue, String description) {
    return new Flag<>(List.of(name), label, type, env, defaultValue, defaultValue, description, null);
  }

  /** The same flag, with help saying {@code text} for its default ({@code <host-root>/sys}); empty to say nothing. */
  public Flag<T> defaultShownAs(String text) {
    return new Flag<>(names, label, type, env, defaultValue, text, description, converter);
  }

  /** The same flag, with more names ({@code -v}). */
  public Flag<T> alias(String alias) {
    List<String> more = new ArrayList<>(names);
    more.add(alias);
    return new Flag<>(more, label, type, env, defaultValue, shownDefault, description, converter);
  }

  /** The same flag, converted by {@code c}. */
  public Flag<T> convertedBy(CommandLine.ITypeConverter<T> c) {
    return new Flag<>(names, label, type, env, defaultValue, shownDefault, description, c);
  }

  /** The long name, as messages name the flag. */
  public String name() {
    return names.get(0);
  }

  /** The picocli option of this row. */
  OptionSpec option() {
    OptionSpec.Builder b = OptionSpec.builder(names.toArray(String[]::new))
        .type(type)
        .defaultValue("${env:" + env + (defaultValue.isEmpty() ? "" : ":-" + defaultValue) + "}")
        .showDefaultValue(Visibility.NEVER)
        .description(helpLine())
        .userObject(this);
    if (type != boolean.class) {
      b.paramLabel(label);
    } else if ("true".equals(defaultValue)) {
      // On unless told otherwise: --x=false (also the config file's "x: false") turns it off; a bare --x
      // stays on, where picocli would otherwise take it to mean "not the default".
      b.arity("0..1").fallbackValue("true").paramLabel("true|false");
    }
    if (converter != null) {
      b.converters(converter);
    }
    return b.build();
  }

  /** {@code <description> (default: <default>; env <NAME>).}, without the default when none is shown. */
  String helpLine() {
    String text = description.strip();
    if (text.endsWith(".")) {
      text = text.substring(0, text.length() - 1);
    }
    String shown = shownDefault.equals(defaultValue) && !defaultValue.isEmpty() ? "${DEFAULT-VALUE}" : shownDefault;
    return text + " (" + (shown.isEmpty() ? "" : "default: " + shown + "; ") + "env " + env + ").";
  }

  /** The row an option was made from, if it was made from one. */
  public static Optional<Flag<?>> from(OptionSpec option) {
    return option.userObject() instanceof Flag<?> f ? Optional.of(f) : Optional.empty();
  }

  /**
   * The flags of one command part ({@link HostOptions}, {@code run}'s own), added to the command that
   * parses them by {@link #registerAll} and read back with {@link #value}.
   */
  public static final class Table {
    private final List<Flag<?>> flags;
    private final java.util.Map<Flag<?>, OptionSpec> options = new java.util.HashMap<>();

    public Table(Flag<?>... flags) {
      this.flags = List.of(flags);
    }

    /** The value parsed for {@code flag} (from the flag, its env twin or its default). */
    @SuppressWarnings("unchecked")
    public <T> T value(Flag<T> flag) {
      OptionSpec option = options.get(flag);
      if (option == null) {
        throw new IllegalStateException(flag.name() + " is not registered; build the command line with NodeAtlasCommand.configure");
      }
      return (T) option.getValue();
    }

    /** How {@code flag}'s value was set, to name it in a message ({@link ValueSource}). */
    public String given(Flag<?> flag, String value) {
      OptionSpec option = options.get(flag);
      return option == null ? flag.name() + " " + value : ValueSource.describe(option, value);
    }

    private void registerIn(CommandSpec spec) {
      if (!options.isEmpty()) {
        return;
      }
      for (Flag<?> flag : flags) {
        OptionSpec option = flag.option();
        spec.addOption(option);
        options.put(flag, option);
      }
    }
  }

  /** A command, or a mixin of one, whose flags are a {@link Table}. */
  public interface Declaring {
    Table flags();
  }

  /** Adds the tables of every command of {@code cl}'s tree, and of their mixins, to the command that parses them. */
  static void registerAll(CommandLine cl) {
    register(cl.getCommandSpec(), cl.getCommandSpec());
    for (CommandLine sub : cl.getSubcommands().values()) {
      registerAll(sub);
    }
  }

  private static void register(CommandSpec command, CommandSpec part) {
    if (part.userObject() instanceof Declaring d) {
      d.flags().registerIn(command);
    }
    for (CommandSpec mixin : part.mixins().values()) {
      register(command, mixin);
    }
  }
}
