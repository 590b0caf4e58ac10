package io.nodeatlas.cli.cdi;

import io.nodeatlas.cli.NodeAtlasCommand;
import io.nodeatlas.cli.UsageException;
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
   * A command line for {@code cdi} on its own (tests) with the same conventions as the
   * {@code nodeatlas} root command: exit 0 ok, 1 failed, 2 bad usage, a one-line reason on stderr.
   */
  public static CommandLine commandLine() {
    return NodeAtlasCommand.configure(new CommandLine(new CdiCommand()), NodeAtlasCommand.installedSources());
  }
}
