package io.nodeatlas.cli;

import io.nodeatlas.cli.discover.DiscoverCommand;
import io.nodeatlas.discovery.host.HostContext;
import io.nodeatlas.discovery.host.SourceOptions;
import io.nodeatlas.discovery.spi.DiscoverySource;
import io.nodeatlas.discovery.engine.DiscoverySources;
import io.nodeatlas.discovery.engine.NodeDiscovery;
import io.nodeatlas.discovery.host.SourceSetting;
import java.io.PrintWriter;
import java.nio.file.Path;
import java.time.Clock;
import java.util.Collections;
import java.util.HashMap;
import java.util.IdentityHashMap;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.OptionalInt;
import java.util.Set;
import java.util.TreeMap;
import java.util.function.Supplier;

/**
 * Answers {@code --version}, top-level {@code --help} and {@code discover} with plain options without
 * building picocli's command tree, with picocli's output, messages and exit statuses (HotPathTest runs
 * both); any line it is not sure of is picocli's. {@code --version} and {@code --help} alone need only
 * this class, Version and TopLevelHelp (the launcher runs them from nodeatlas-top.jar). A speed path:
 * the rows of bench/version-vs-hello.sh and bench/discover-vs-lstopo.sh fail without it
 * (docs/design/speed-paths.md).
 */
final class HotPath {

  private final Map<String, String> env;
  private final Supplier<DiscoverySources> installed;
  private final java.util.function.BooleanSupplier configExists;

  /**
   * @param env the environment (the env twins' values)
   * @param installed the installed sources, loaded only when a discover line is taken
   */
  HotPath(Map<String, String> env, Supplier<DiscoverySources> installed) {
    this(env, installed, () -> ConfigLocation.mayHaveKeys(ConfigLocation.DEFAULT));
  }

  /** @param configExists whether the default config file may set something (only asked for a discover line) */
  HotPath(Map<String, String> env, Supplier<DiscoverySources> installed, java.util.function.BooleanSupplier configExists) {
    this.env = env;
    this.installed = installed;
    this.configExists = configExists;
  }

  /** The exit status when this path ran {@code args}, empty when picocli must run them. */
  OptionalInt run(String[] args, Supplier<PrintWriter> out, Supplier<PrintWriter> err) {
    OptionalInt top = topLevel(args, env, out);
    if (top.isPresent()) {
      return top;
    }
    // A config file may set any option: picocli's command reads it (ConfigDefaults).
    if (args.length >= 1 && args[0].equals("discover") && env.get(ConfigLocation.CONFIG.env()) == null
        && !configExists.getAsBoolean()) {
      Optional<Discover> parsed = parseDiscover(args);
      if (parsed.isPresent()) {
        return OptionalInt.of(parsed.get().run(out.get(), err.get()));
      }
    }
    return OptionalInt.empty();
  }

  /**
   * {@code --version}, {@code -V}, {@code --help} or {@code -h} alone, answered with classes of this
   * path only (Version, TopLevelHelp): the launcher runs these lines from its small jar, before the big
   * one on the class path is opened. Empty when the line is another or picocli must answer it.
   */
  static OptionalInt topLevel(String[] args, Map<String, String> env, Supplier<PrintWriter> out) {
    if (args.length == 1 && (args[0].equals("--version") || args[0].equals("-V"))) {
      // picocli prints each line of the version provider, then exits 0.
      PrintWriter o = out.get();
      for (String line : Version.lines()) {
        o.println(line);
      }
      o.flush();
      return OptionalInt.of(0);
    }
    if (args.length == 1 && (args[0].equals("--help") || args[0].equals("-h"))) {
      Boolean colour = helpInColour(env);
      String help = colour == null ? null : TopLevelHelp.text(colour);
      if (help != null) {
        // picocli prints the usage message as one string and exits 0.
        PrintWriter o = out.get();
        o.print(help);
        o.flush();
        return OptionalInt.of(0);
      }
    }
    return OptionalInt.empty();
  }

  /**
   * Whether picocli colours help here, by its own heuristics for a host that is not Windows
   * (CommandLine.Help.Ansi.AUTO, picocli 4.7: {@code NO_COLOR}, then {@code CLICOLOR_FORCE}, then
   * {@code CLICOLOR=0}, then a terminal); null where picocli should decide (its system properties,
   * Windows), as the width it prints at is then not the default.
   */
  private static Boolean helpInColour(Map<String, String> env) {
    if (System.getProperty("picocli.ansi") != null || System.getProperty("picocli.usage.width") != null
        || System.getProperty("os.name", "").toLowerCase(java.util.Locale.ROOT).contains("win")) {
      return null;
    }
    if (env.get("NO_COLOR") != null) {
      return false;
    }
    String force = env.get("CLICOLOR_FORCE");
    if (force != null && !force.equals("0")) {
      return true;
    }
    if ("0".equals(env.get("CLICOLOR")) || "OFF".equals(env.get("ConEmuANSI"))) {
      return false;
    }
    return onTerminal();
  }

  /** Set by the launcher for --help: whether standard input and output are both terminals. */
  static final String TERMINAL_PROPERTY = "nodeatlas.terminal";

  /** Whether this process has a terminal, as picocli asks: {@code System.console()}, and on JDK 22+ its isTerminal(). */
  private static boolean onTerminal() {
    // The launcher tells it (bash's -t 0 and -t 1, the test the JDK makes): on JDK 22+ System.console()
    // looks up console providers, which costs a cold JVM more than the rest of --help.
    String told = System.getProperty(TERMINAL_PROPERTY);
    if ("true".equals(told) || "false".equals(told)) {
      return Boolean.parseBoolean(told);
    }
    java.io.Console console = System.console();
    if (console == null) {
      return false;
    }
    try {
      return (Boolean) java.io.Console.class.getMethod("isTerminal").invoke(console);
    } catch (ReflectiveOperationException | RuntimeException e) {
      return true; // JDK 17-21 have no isTerminal: a console is a terminal, as picocli takes it
    }
  }

  /** A parsed {@code discover} line. */
  private record Discover(DiscoverySources installed, String sources, OutputFormat format, Map<Flag<Path>, Path> roots,
      Map<SourceSetting, String> settings, Set<Object> fromFlag, String sourcesGiven) {

    /** What DiscoverCommand.call does, with its exception handling (NodeAtlasCommand.configure). */
    int run(PrintWriter out, PrintWriter err) {
      try {
        List<DiscoverySource> selected;
        try {
          selected = installed.select(sources);
        } catch (IllegalArgumentException e) {
          throw new UsageException(DiscoveryOptions.badSources(e.getMessage(), sourcesGiven, installed.names()), e);
        }
        HostContext host = new HostContext(HostOptions.toHostFs(roots::get, (flag, dir) -> fromFlag.contains(flag)
            ? flag.name() + " " + dir : flag.env() + "=" + dir + " (environment)"), sourceOptions(), Clock.systemUTC());
        return DiscoverCommand.print(NodeDiscovery.run(selected, host), format, out, err, true);
      } catch (StackOverflowError | OutOfMemoryError e) {
        return NodeAtlasCommand.internalFailure(err, e);
      } catch (Exception ex) {
        // As NodeAtlasCommand.configure's handler words it.
        err.println("nodeatlas: " + (ex instanceof UsageException ? Messages.clean(ex.getMessage()) : Messages.reason(ex)));
        err.flush();
        return ex instanceof UsageException ? 2 : 1;
      }
    }

    private SourceOptions sourceOptions() {
      Map<String, String> values = new TreeMap<>();
      for (SourceSetting setting : installed.settings()) {
        String value = settings.get(setting);
        if (value == null || value.isEmpty()) {
          continue;
        }
        values.put(setting.key(), DiscoveryOptions.validated(setting, value,
            () -> fromFlag.contains(setting) ? "" : " (from env " + setting.env() + ")"));
      }
      return new SourceOptions(values);
    }
  }

  /** The keys of {@code --sources} and {@code --format} among a parsed line's options. */
  private static final Object SOURCES = new Object();
  private static final Object FORMAT = new Object();

  /** The root flags, built when a discover line is parsed (a static field would load them for --version). */
  private static List<Flag<Path>> roots() {
    return List.of(HostOptions.HOST_ROOT, HostOptions.SYSFS_ROOT, HostOptions.PROCFS_ROOT, HostOptions.DEV_ROOT);
  }

  /** {@code discover ARGS}, or empty when picocli should parse them. */
  private Optional<Discover> parseDiscover(String[] args) {
    DiscoverySources sources = installed.get();
    List<Flag<Path>> rootFlags = roots();
    // Option name -> its key: SOURCES, FORMAT, a root flag or a source setting.
    Map<String, Object> names = new HashMap<>();
    names.put("--sources", SOURCES);
    names.put("-o", FORMAT);
    names.put("--format", FORMAT);
    names.put("--output", FORMAT);
    for (Flag<Path> root : rootFlags) {
      for (String name : root.names()) {
        names.put(name, root);
      }
    }
    for (SourceSetting setting : sources.settings()) {
      names.put(setting.flag(), setting);
      for (String alias : setting.aliases()) {
        names.put(alias, setting);
      }
    }
    // By identity: every key is one of the objects above, and the records among them (flags, settings)
    // would otherwise be hashed through their generated hashCode, which a cold start pays for (see Order).
    Map<Object, String> given = new IdentityHashMap<>();
    for (String arg : args) {
      if (arg.startsWith("@")) {
        return Optional.empty(); // picocli reads @FILE as more arguments
      }
    }
    for (int i = 1; i < args.length; i++) {
      String arg = args[i];
      int eq = arg.indexOf('=');
      String name = eq > 0 && arg.startsWith("--") ? arg.substring(0, eq) : arg;
      Object key = names.get(name);
      if (key == null) {
        return Optional.empty(); // help, a positional, a typo, "--", a clustered "-ojson": picocli's to judge
      }
      String value;
      if (eq > 0 && arg.startsWith("--")) {
        value = arg.substring(eq + 1);
      } else if (key instanceof SourceSetting s && s.type() == SourceSetting.Type.BOOLEAN) {
        // picocli's arity 0..1 takes a next argument that is not an option as the value: only an
        // option or the end leaves no doubt.
        if (i + 1 < args.length && names.get(optionName(args[i + 1])) == null) {
          return Optional.empty();
        }
        value = "true";
      } else if (i + 1 < args.length && !args[i + 1].startsWith("-")) {
        value = args[++i];
      } else {
        return Optional.empty();
      }
      if (value.isEmpty() || value.contains("${") || given.put(key, value) != null) {
        return Optional.empty(); // an empty value, an expression, an option given twice
      }
    }
    // The env twins, where no flag was given; an empty or interpolating one is left to picocli.
    String sourceList = valueOrEnv(given.get(SOURCES), "NODEATLAS_SOURCES", "all");
    String formatText = valueOrEnv(given.get(FORMAT), "NODEATLAS_FORMAT", "json");
    if (sourceList == null || formatText == null) {
      return Optional.empty();
    }
    OutputFormat format = null;
    for (OutputFormat f : List.of(OutputFormat.JSON, OutputFormat.YAML, OutputFormat.TABLE)) {
      if (f.name().equalsIgnoreCase(formatText)) {
        format = f;
      }
    }
    if (format == null) {
      return Optional.empty();
    }
    Map<Flag<Path>, Path> roots = new IdentityHashMap<>();
    for (Flag<Path> root : rootFlags) {
      String text = valueOrEnv(given.get(root), root.env(), root.defaultValue());
      if (text == null) {
        return Optional.empty();
      }
      roots.put(root, text.isEmpty() ? null : Path.of(text));
    }
    Map<SourceSetting, String> settings = new IdentityHashMap<>();
    Set<Object> fromFlag = Collections.newSetFromMap(new IdentityHashMap<>());
    for (Flag<Path> root : rootFlags) {
      if (given.containsKey(root)) {
        fromFlag.add(root);
      }
    }
    for (SourceSetting setting : sources.settings()) {
      if (given.containsKey(setting)) {
        fromFlag.add(setting);
      }
      String text = valueOrEnv(given.get(setting), setting.env(), "");
      if (text == null) {
        return Optional.empty();
      }
      settings.put(setting, text);
    }
    // How the source list was set when not by the flag (DiscoveryOptions.badSources names it so).
    String sourcesGiven = given.containsKey(SOURCES) || env.get("NODEATLAS_SOURCES") == null ? null
        : "NODEATLAS_SOURCES=" + io.nodeatlas.discovery.host.Excerpt.scrub(sourceList) + " (environment)";
    return Optional.of(new Discover(sources, sourceList, format, roots, settings, fromFlag, sourcesGiven));
  }

  /** The name part of an argument ({@code --x} of {@code --x=1}). */
  private static String optionName(String arg) {
    int eq = arg.indexOf('=');
    return eq > 0 && arg.startsWith("--") ? arg.substring(0, eq) : arg;
  }

  /**
   * The flag's value, else its env twin's, else {@code fallback} ({@code ""} for none); null when the
   * env twin is set but empty or holds an expression, which picocli's {@code ${env:...}} would treat
   * in its own way.
   */
  private String valueOrEnv(String flagValue, String envName, String fallback) {
    if (flagValue != null) {
      return flagValue;
    }
    String v = env.get(envName);
    if (v == null) {
      return fallback;
    }
    return v.isEmpty() || v.contains("$") ? null : v;
  }
}
