package io.nodeatlas.cli;

import io.nodeatlas.cli.cdi.CdiCommand;
import io.nodeatlas.cli.discover.DiscoverCommand;
import io.nodeatlas.cli.doctor.DoctorCommand;
import io.nodeatlas.cli.match.MatchCommand;
import io.nodeatlas.cli.pools.PoolsCommand;
import io.nodeatlas.cli.run.RunCommand;
import io.nodeatlas.cli.slices.SlicesCommand;
import io.nodeatlas.discovery.engine.DiscoverySources;
import java.io.PrintWriter;
import java.util.Collection;
import java.util.Collections;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import picocli.CommandLine;
import picocli.CommandLine.Command;
import picocli.CommandLine.Model.CommandSpec;
import picocli.CommandLine.Model.OptionSpec;
import picocli.CommandLine.Spec;

/**
 * {@code nodeatlas}: the top-level command. Subcommands are registered here; each lives in its own
 * class. Exit statuses are uniform: 0 success, 1 the operation failed, 2 bad usage, with a one-line
 * reason on stderr.
 */
@Command(
    name = "nodeatlas",
    mixinStandardHelpOptions = true,
    versionProvider = VersionProvider.class,
    description = "Discovers this node's hardware and hands it out through Kubernetes DRA and CDI.")
public final class NodeAtlasCommand implements Runnable {

  /**
   * The subcommands, in the order help lists them. picocli reflects over a command's whole tree when
   * it is registered, and picocli's own classes (Java 5 bytecode) cannot go into the class-data
   * sharing archive; registering only the subcommand a run names saves that work on every
   * {@code discover}, so a one-shot run stays cheap.
   */
  static final Map<String, Class<?>> SUBCOMMANDS = subcommands();

  private static Map<String, Class<?>> subcommands() {
    Map<String, Class<?>> m = new LinkedHashMap<>();
    m.put("discover", DiscoverCommand.class);
    m.put("cdi", CdiCommand.class);
    m.put("match", MatchCommand.class);
    m.put("slices", SlicesCommand.class);
    m.put("pools", PoolsCommand.class);
    m.put("run", RunCommand.class);
    m.put("doctor", DoctorCommand.class);
    m.put("labels", io.nodeatlas.cli.labels.LabelsCommand.class);
    m.put("completion", io.nodeatlas.cli.completion.CompletionCommand.class);
    return Collections.unmodifiableMap(m);
  }

  @Spec CommandSpec spec;

  @Override
  public void run() {
    throw new CommandLine.ParameterException(spec.commandLine(), "a command is required (" + String.join(", ", SUBCOMMANDS.keySet()) + ")");
  }

  /** The configured command line with every subcommand and the installed sources, shared by {@link Main} and tests. */
  public static CommandLine commandLine() {
    return commandLine(SUBCOMMANDS.keySet(), installedSources());
  }

  /** The same over other sources than the installed ones (tests of the settings registration). */
  public static CommandLine commandLine(DiscoverySources sources) {
    return commandLine(SUBCOMMANDS.keySet(), sources);
  }

  /**
   * The command line for {@code args}: when the first argument names a subcommand, only that one is
   * registered; otherwise (help, version, a typo) all are, so help and error messages list them all.
   */
  public static CommandLine commandLineFor(String... args) {
    if (args.length > 0 && SUBCOMMANDS.containsKey(args[0])) {
      return commandLine(List.of(args[0]), installedSources());
    }
    return commandLine();
  }

  /** The discovery sources on this command's class path (the fat jar holds every source module). */
  public static DiscoverySources installedSources() {
    return InstalledSources.load(NodeAtlasCommand.class.getClassLoader());
  }

  private static CommandLine commandLine(Collection<String> names, DiscoverySources sources) {
    CommandLine cl = new CommandLine(new NodeAtlasCommand());
    for (String name : names) {
      cl.addSubcommand(name, SUBCOMMANDS.get(name));
    }
    cl.addSubcommand("help", new CommandLine.HelpCommand());
    return configure(cl, sources);
  }

  /**
   * Gives {@code cl} (a whole tree or one command on its own) our conventions: the flags its commands
   * declare as {@link Flag} rows and the installed sources' settings on every command that reads the host, case-insensitive enum values, and exit statuses 0
   * ok, 1 failed, 2 bad usage with a one-line reason on stderr.
   */
  public static CommandLine configure(CommandLine cl, DiscoverySources sources) {
    Flag.registerAll(cl);
    SourceSettingOptions.registerAll(cl, sources);
    spellOutputAsKubectl(cl);
    readConfigFile(cl, new ConfigVocabulary(sources));
    cl.setCaseInsensitiveEnumValuesAllowed(true);
    cl.setParameterExceptionHandler(NodeAtlasCommand::onBadUsage);
    cl.setExecutionExceptionHandler((ex, commandLine, parseResult) -> {
      PrintWriter err = commandLine.getErr();
      err.println("nodeatlas: " + (ex instanceof UsageException ? Messages.clean(ex.getMessage()) : Messages.reason(ex)));
      err.flush();
      return ex instanceof UsageException ? CommandLine.ExitCode.USAGE : CommandLine.ExitCode.SOFTWARE;
    });
    cl.setExitCodeExceptionMapper(t -> t instanceof UsageException ? CommandLine.ExitCode.USAGE : 1);
    CommandLine.IExecutionStrategy strategy = cl.getExecutionStrategy();
    cl.setExecutionStrategy(parseResult -> {
      try {
        return strategy.execute(parseResult);
      } catch (StackOverflowError | OutOfMemoryError e) {
        // Input that is too deep or too big is refused as bad input (exit 2) before it gets here; an error
        // that still escapes is our failure: one line naming it, no stack trace, exit 1.
        return internalFailure(parseResult.commandSpec().commandLine().getErr(), e);
      }
    });
    return cl;
  }

  /** Prints the one line for a JVM error that escaped a command and returns exit status 1. */
  static int internalFailure(PrintWriter err, VirtualMachineError e) {
    String what = e instanceof OutOfMemoryError ? "out of memory" : "stack overflow";
    err.println("nodeatlas: internal failure: " + what + (e.getMessage() == null ? "" : " (" + Messages.clean(e.getMessage()) + ")"));
    err.flush();
    return CommandLine.ExitCode.SOFTWARE;
  }

  /** kubectl's {@code -o} is also {@code --output}: every command with {@code -o} takes both. */
  private static void spellOutputAsKubectl(CommandLine cl) {
    CommandSpec spec = cl.getCommandSpec();
    OptionSpec o = spec.findOption("-o");
    if (o != null && spec.findOption("--output") == null) {
      List<String> names = new java.util.ArrayList<>(List.of(o.names()));
      names.add(names.indexOf("-o") + 1, "--output");
      spec.remove(o);
      OptionSpec.Builder b = o.toBuilder().names(names.toArray(String[]::new));
      if (o.type().isEnum()) {
        // Completion offers the values as people type them (json), not as Java spells the constants.
        List<String> values = new java.util.ArrayList<>();
        for (Object c : o.type().getEnumConstants()) {
          values.add(c.toString().toLowerCase(java.util.Locale.ROOT));
        }
        b.completionCandidates(values);
      }
      spec.addOption(b.build());
    }
    for (CommandLine sub : cl.getSubcommands().values()) {
      spellOutputAsKubectl(sub);
    }
  }

  /**
   * Every command that reads the host reads the config file too, as the defaults of its flags
   * ({@link ConfigDefaults}); {@code run} merges it itself, to read it again on SIGHUP.
   */
  private static void readConfigFile(CommandLine cl, ConfigVocabulary vocabulary) {
    CommandSpec spec = cl.getCommandSpec();
    boolean readsHost = spec.mixins().values().stream().anyMatch(m -> m.userObject() instanceof DiscoveryOptions);
    if (readsHost && !(spec.userObject() instanceof RunCommand) && spec.defaultValueProvider() == null) {
      cl.setDefaultValueProvider(new ConfigDefaults(System.getenv(), vocabulary, ConfigLocation.DEFAULT));
    }
    for (CommandLine sub : cl.getSubcommands().values()) {
      readConfigFile(sub, vocabulary);
    }
  }

  /** The config file's keys: {@code run}'s flags (the node's configuration), found when a file has keys. */
  private static final class ConfigVocabulary implements java.util.function.Supplier<java.util.Set<String>> {
    private final DiscoverySources sources;
    private java.util.Set<String> keys;

    ConfigVocabulary(DiscoverySources sources) {
      this.sources = sources;
    }

    @Override
    public java.util.Set<String> get() {
      if (keys == null) {
        java.util.Set<String> k = new java.util.TreeSet<>();
        for (OptionSpec o : configure(new CommandLine(new RunCommand()), sources).getCommandSpec().options()) {
          if (!o.usageHelp() && !o.versionHelp() && !o.longestName().equals("--config")) {
            k.add(ConfigFile.key(o));
          }
        }
        keys = k;
      }
      return keys;
    }
  }

  /** picocli's message for a value it could not convert: {@code Invalid value for option '--x': REASON}. */
  private static final java.util.regex.Pattern INVALID_VALUE =
      java.util.regex.Pattern.compile("^Invalid value for option '[^']*'(?: \\([^)]*\\))?: ");

  /** Whether {@code args} name {@code option} ({@code --x v}, {@code --x=v}, {@code -ov}): a value that failed to convert is not recorded as typed. */
  private static boolean onCommandLine(OptionSpec option, String[] args) {
    for (String arg : args) {
      for (String name : option.names()) {
        if (arg.equals(name) || arg.startsWith(name + "=") || (!name.startsWith("--") && arg.startsWith(name))) {
          return true;
        }
      }
    }
    return false;
  }

  private static int onBadUsage(CommandLine.ParameterException ex, String[] args) {
    CommandLine cl = ex.getCommandLine();
    PrintWriter err = cl.getErr();
    String message = ex.getMessage();
    String hint = null;
    if (ex instanceof CommandLine.UnmatchedArgumentException u && !u.getUnmatched().isEmpty()) {
      String arg = u.getUnmatched().get(0);
      CommandSpec spec = cl.getCommandSpec();
      if (arg.startsWith("-")) {
        String name = arg.contains("=") ? arg.substring(0, arg.indexOf('=')) : arg;
        java.util.List<String> names = new java.util.ArrayList<>();
        spec.options().stream().filter(o -> !o.hidden()).forEach(o -> names.addAll(List.of(o.names())));
        message = "unknown option '" + io.nodeatlas.discovery.host.Excerpt.scrub(name) + "' for '" + spec.qualifiedName() + "'";
        hint = Suggestions.closest(name, names).map(n -> "Did you mean '" + n + "'?").orElse(null);
      } else if (!spec.subcommands().isEmpty()) {
        java.util.List<String> names = new java.util.ArrayList<>(spec.subcommands().keySet());
        message = "'" + io.nodeatlas.discovery.host.Excerpt.scrub(arg) + "' is not a command of '" + spec.qualifiedName() + "'";
        hint = Suggestions.closest(arg, names).map(n -> "Did you mean '" + spec.qualifiedName() + " " + n + "'?").orElse(null);
      }
    } else if (ex.getArgSpec() instanceof OptionSpec o && ex.getValue() != null) {
      if (!ValueSource.typed(o) && !onCommandLine(o, args)) {
        // A value the user did not type (an env twin, the config file): name where it was set.
        java.util.regex.Matcher m = INVALID_VALUE.matcher(message);
        if (m.find()) {
          message = "invalid value " + ValueSource.describe(o, ex.getValue()) + ": " + message.substring(m.end());
        }
      }
      // A misspelt value of a closed list (-o tabel).
      if (o.completionCandidates() != null) {
        java.util.List<String> values = new java.util.ArrayList<>();
        o.completionCandidates().forEach(values::add);
        hint = Suggestions.closest(ex.getValue(), values).map(v -> "Did you mean '" + v + "'?").orElse(null);
      }
    }
    err.println("nodeatlas: " + message);
    if (hint != null) {
      err.println(hint);
    }
    err.println("Try '" + cl.getCommandSpec().qualifiedName() + " --help' for more information.");
    err.flush();
    return CommandLine.ExitCode.USAGE;
  }
}
