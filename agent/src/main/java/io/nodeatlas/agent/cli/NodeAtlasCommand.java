package io.nodeatlas.agent.cli;

import io.nodeatlas.cdi.cli.CdiCommand;
import io.nodeatlas.cli.UsageException;
import io.nodeatlas.match.cli.MatchCommand;
import java.io.PrintWriter;
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
    description = "Discovers this node's hardware and hands it out through Kubernetes DRA and CDI.",
    subcommands = {
        DiscoverCommand.class,
        CdiCommand.class,
        MatchCommand.class,
        io.nodeatlas.agent.run.RunCommand.class,
        CommandLine.HelpCommand.class
    })
public final class NodeAtlasCommand implements Runnable {

  @Spec CommandSpec spec;

  @Override
  public void run() {
    throw new CommandLine.ParameterException(spec.commandLine(), "a command is required (discover, cdi, match, run)");
  }

  /** The configured command line, shared by {@link Main} and tests. */
  public static CommandLine commandLine() {
    CommandLine cl = new CommandLine(new NodeAtlasCommand());
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
