package io.nodeatlas.cli;

import io.nodeatlas.cli.cdi.CdiCommand;
import io.nodeatlas.cli.discover.DiscoverCommand;
import io.nodeatlas.cli.match.MatchCommand;
import io.nodeatlas.cli.pools.PoolsCommand;
import io.nodeatlas.cli.run.RunCommand;
import io.nodeatlas.cli.slices.SlicesCommand;
import io.nodeatlas.discovery.spi.DiscoverySources;
import java.io.PrintWriter;
import java.util.Collection;
import java.util.Collections;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import picocli.CommandLine;
import picocli.CommandLine.Command;
import picocli.CommandLine.Model.CommandSpec;
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
    return Collections.unmodifiableMap(m);
  }

  @Spec CommandSpec spec;

  @Override
  public void run() {
    throw new CommandLine.ParameterException(spec.commandLine(), "a command is required (discover, cdi, match, slices, pools, run)");
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
    return DiscoverySources.load(NodeAtlasCommand.class.getClassLoader());
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
    cl.setCaseInsensitiveEnumValuesAllowed(true);
    cl.setParameterExceptionHandler(NodeAtlasCommand::onBadUsage);
    cl.setExecutionExceptionHandler((ex, commandLine, parseResult) -> {
      PrintWriter err = commandLine.getErr();
      err.println("nodeatlas: " + (ex.getMessage() == null ? ex.toString() : ex.getMessage()));
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
    err.println("nodeatlas: internal failure: " + what + " (" + e + ")");
    err.flush();
    return CommandLine.ExitCode.SOFTWARE;
  }

  private static int onBadUsage(CommandLine.ParameterException ex, String[] args) {
    CommandLine cl = ex.getCommandLine();
    PrintWriter err = cl.getErr();
    err.println("nodeatlas: " + ex.getMessage());
    err.println("Try '" + cl.getCommandSpec().qualifiedName() + " --help' for more information.");
    err.flush();
    return CommandLine.ExitCode.USAGE;
  }
}
