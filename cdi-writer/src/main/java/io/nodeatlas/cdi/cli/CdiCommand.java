package io.nodeatlas.cdi.cli;

import io.nodeatlas.cli.UsageException;
import java.io.PrintWriter;
import picocli.CommandLine;
import picocli.CommandLine.Command;

/** {@code nodeatlas cdi}: generate, list and validate CDI spec files. */
@Command(name = "cdi", mixinStandardHelpOptions = true,
    description = "Generate, list and validate Container Device Interface specs.",
    subcommands = {CdiGenerateCommand.class, CdiListCommand.class, CdiValidateCommand.class})
public final class CdiCommand implements Runnable {
  @Override
  public void run() {
    throw new UsageException("cdi: a subcommand is required (generate, list, validate)");
  }

  /**
   * A command line for {@code cdi} on its own (tests, {@link CdiMain}) with the same conventions as the
   * {@code nodeatlas} root command: exit 0 ok, 1 failed, 2 bad usage, a one-line reason on stderr.
   */
  public static CommandLine commandLine() {
    CommandLine cl = new CommandLine(new CdiCommand());
    cl.setCaseInsensitiveEnumValuesAllowed(true);
    cl.setParameterExceptionHandler((ex, args) -> {
      PrintWriter err = ex.getCommandLine().getErr();
      err.println("nodeatlas: " + ex.getMessage());
      err.flush();
      return CommandLine.ExitCode.USAGE;
    });
    cl.setExecutionExceptionHandler((ex, commandLine, parseResult) -> {
      PrintWriter err = commandLine.getErr();
      err.println("nodeatlas: " + (ex.getMessage() == null ? ex.toString() : ex.getMessage()));
      err.flush();
      return ex instanceof UsageException ? CommandLine.ExitCode.USAGE : CommandLine.ExitCode.SOFTWARE;
    });
    return cl;
  }
}
