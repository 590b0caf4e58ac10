package io.nodeatlas.agent.cli;

import io.nodeatlas.cdi.cli.CdiCommand;
import io.nodeatlas.cli.UsageException;
import io.nodeatlas.match.cli.MatchCommand;
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
    m.put("run", io.nodeatlas.agent.run.RunCommand.class);
    return Collections.unmodifiableMap(m);
  }

  @Spec CommandSpec spec;

  @Override
  public void run() {
    throw new CommandLine.ParameterException(spec.commandLine(), "a command is required (discover, cdi, match, run)");
  }

  /** The configured command line with every subcommand, shared by {@link Main} and tests. */
  public static CommandLine commandLine() {
    return commandLine(SUBCOMMANDS.keySet());
  }

  /**
   * The command line for {@code args}: when the first argument names a subcommand, only that one is
   * registered; otherwise (help, version, a typo) all are, so help and error messages list them all.
   */
  public static CommandLine commandLineFor(String... args) {
    if (args.length > 0 && SUBCOMMANDS.containsKey(args[0])) {
      return commandLine(List.of(args[0]));
    }
    return commandLine();
  }

  private static CommandLine commandLine(Collection<String> names) {
    CommandLine cl = new CommandLine(new NodeAtlasCommand());
    for (String name : names) {
      cl.addSubcommand(name, SUBCOMMANDS.get(name));
    }
    cl.addSubcommand("help", new CommandLine.HelpCommand());
    cl.setCaseInsensitiveEnumValuesAllowed(true);
    cl.setParameterExceptionHandler(NodeAtlasCommand::onBadUsage);
    cl.setExecutionExceptionHandler((ex, commandLine, parseResult) -> {
      PrintWriter err = commandLine.getErr();
      err.println("nodeatlas: " + (ex.getMessage() == null ? ex.toString() : ex.getMessage()));
      err.flush();
      return ex instanceof UsageException ? CommandLine.ExitCode.USAGE : CommandLine.ExitCode.SOFTWARE;
    });
    cl.setExitCodeExceptionMapper(t -> t instanceof UsageException ? CommandLine.ExitCode.USAGE : 1);
    return cl;
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
