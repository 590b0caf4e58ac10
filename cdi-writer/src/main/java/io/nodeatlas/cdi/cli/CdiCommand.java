package io.nodeatlas.cdi.cli;

import picocli.CommandLine.Command;

/** {@code nodeatlas cdi}: generate, list and validate CDI specs (issue 5 fills the subcommands). */
@Command(name = "cdi", mixinStandardHelpOptions = true,
    description = "Generate, list and validate Container Device Interface specs.")
public final class CdiCommand implements Runnable {
  @Override
  public void run() {
    throw new io.nodeatlas.cli.UsageException("cdi: a subcommand is required (generate, list, validate)");
  }
}
