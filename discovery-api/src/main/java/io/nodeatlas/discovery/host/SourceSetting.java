package io.nodeatlas.discovery.host;

import io.nodeatlas.discovery.model.Names;
import java.util.Objects;
import java.util.regex.Pattern;

/**
 * One setting a discovery source declares and owns (NFD's per-source configuration). The command
 * line registers it as {@link #flag()} with its {@link #env()} twin and shows {@link #description()}
 * in {@code --help}; the config file takes it under {@link #configKey()}; the source reads it back
 * from {@link io.nodeatlas.discovery.host.SourceOptions} under {@link #key()}
 * ({@code <source>.<name>}). No other module names a source's settings.
 *
 * @param source the owning source's name ({@code gpu})
 * @param name the setting's camel-case name within the source ({@code nvmlLibrary})
 * @param flag the long option ({@code --nvml-library}); further {@code aliases} may be given
 * @param env the environment variable twin ({@code NODEATLAS_NVML_LIBRARY})
 * @param type how the value is checked and shown
 * @param defaultValue the value when none is given, as text; empty for "none"
 * @param description one sentence for {@code --help}, without the default or env (added for it)
 * @param check the setting's own check of a value, after its type's ({@link Check#NONE} when none): a
 *     CPU list, one of a few words. A value it refuses is bad usage, like a malformed number.
 */
public record SourceSetting(
    String source,
    String name,
    String flag,
    java.util.List<String> aliases,
    String env,
    Type type,
    String defaultValue,
    String description,
    Check check) {

  /**
   * A source's own check of a setting's value: returns the value to use (normalised or as given), or
   * throws {@link IllegalArgumentException} with a reason; {@link #validate} prefixes the flag.
   */
  @FunctionalInterface
  public interface Check {
    Check NONE = value -> value;

    String check(String value);
  }

  /** What kind of value a setting takes. */
  public enum Type {
    /** {@code true} or {@code false}; the flag alone means true. */
    BOOLEAN("true|false"),
    /** Free text. */
    STRING("TEXT"),
    /** A file or directory. */
    PATH("PATH"),
    /** A whole number. */
    INTEGER("N");

    private final String label;

    Type(String label) {
      this.label = label;
    }

    public String label() {
      return label;
    }
  }

  private static final Pattern NAME = Pattern.compile("^[a-z][A-Za-z0-9]{0,62}$");
  private static final Pattern FLAG = Pattern.compile("^--[a-z][a-z0-9-]{0,62}$");
  private static final Pattern ENV = Pattern.compile("^[A-Z][A-Z0-9_]{0,127}$");

  public SourceSetting {
    if (!Names.isDnsLabel(source)) {
      throw new IllegalArgumentException("setting of source \"" + source + "\": not a source name");
    }
    if (name == null || !NAME.matcher(name).matches()) {
      throw new IllegalArgumentException("setting \"" + name + "\" of " + source + ": name must be camelCase");
    }
    if (flag == null || !FLAG.matcher(flag).matches()) {
      throw new IllegalArgumentException("setting " + source + "." + name + ": flag \"" + flag + "\" is not --kebab-case");
    }
    aliases = aliases == null ? java.util.List.of() : java.util.List.copyOf(aliases);
    for (String a : aliases) {
      if (!FLAG.matcher(a).matches()) {
        throw new IllegalArgumentException("setting " + source + "." + name + ": alias \"" + a + "\" is not --kebab-case");
      }
    }
    if (env == null || !ENV.matcher(env).matches()) {
      throw new IllegalArgumentException("setting " + source + "." + name + ": env \"" + env + "\" is not UPPER_SNAKE_CASE");
    }
    Objects.requireNonNull(type, "type");
    defaultValue = defaultValue == null ? "" : defaultValue;
    Objects.requireNonNull(description, "description");
    if (type == Type.BOOLEAN && !defaultValue.equals("true") && !defaultValue.equals("false")) {
      throw new IllegalArgumentException("setting " + source + "." + name + ": a boolean's default must be true or false");
    }
    check = check == null ? Check.NONE : check;
  }

  /** A setting without a check of its own beyond its type's. */
  public SourceSetting(String source, String name, String flag, java.util.List<String> aliases, String env, Type type,
      String defaultValue, String description) {
    this(source, name, flag, aliases, env, type, defaultValue, description, Check.NONE);
  }

  /** A free-text setting; {@code check} refuses the values it cannot use. */
  public static SourceSetting string(String source, String name, String flag, String env, String defaultValue,
      String description, Check check) {
    return new SourceSetting(source, name, flag, java.util.List.of(), env, Type.STRING, defaultValue, description, check);
  }

  /** A boolean setting. */
  public static SourceSetting bool(String source, String name, String flag, String env, boolean defaultValue, String description) {
    return new SourceSetting(source, name, flag, java.util.List.of(), env, Type.BOOLEAN, Boolean.toString(defaultValue), description);
  }

  /** A path setting without a default. */
  public static SourceSetting path(String source, String name, String flag, String env, String description) {
    return new SourceSetting(source, name, flag, java.util.List.of(), env, Type.PATH, "", description);
  }

  /** The same setting with more flag names. */
  public SourceSetting withAliases(String... more) {
    return new SourceSetting(source, name, flag, java.util.List.of(more), env, type, defaultValue, description, check);
  }

  /** The key in {@link io.nodeatlas.discovery.host.SourceOptions}: {@code <source>.<name>}. */
  public String key() {
    return source + "." + name;
  }

  /** The key in {@code /etc/nodeatlas/config.yaml}: the flag in camel case, as every other flag's. */
  public String configKey() {
    StringBuilder out = new StringBuilder();
    boolean upper = false;
    for (char c : flag.substring(2).toCharArray()) {
      if (c == '-') {
        upper = true;
      } else {
        out.append(upper ? Character.toUpperCase(c) : c);
        upper = false;
      }
    }
    return out.toString();
  }

  /**
   * Checks a value given by flag, env or file, by its type and then by the setting's own {@link #check()};
   * throws {@link IllegalArgumentException} naming the flag.
   */
  public String validate(String value) {
    String typed = validateType(value);
    try {
      return check.check(typed);
    } catch (IllegalArgumentException e) {
      throw new IllegalArgumentException(flag + ": " + e.getMessage(), e);
    }
  }

  private String validateType(String value) {
    switch (type) {
      case BOOLEAN -> {
        if (!value.equalsIgnoreCase("true") && !value.equalsIgnoreCase("false")) {
          throw new IllegalArgumentException(flag + " must be true or false, got \"" + value + "\"");
        }
        return value.toLowerCase(java.util.Locale.ROOT);
      }
      case INTEGER -> {
        try {
          Long.parseLong(value);
        } catch (NumberFormatException e) {
          throw new IllegalArgumentException(flag + " must be a whole number, got \"" + value + "\"");
        }
        return value;
      }
      case PATH -> {
        if (value.indexOf('\0') >= 0) {
          throw new IllegalArgumentException(flag + " must be a path, got a NUL byte");
        }
        return value;
      }
      default -> {
        return value;
      }
    }
  }
}
