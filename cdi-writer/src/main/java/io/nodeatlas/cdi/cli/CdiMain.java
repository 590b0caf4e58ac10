package io.nodeatlas.cdi.cli;

/**
 * Runs {@code nodeatlas cdi ...} without the agent jar (the e2e script's fallback while developing):
 * {@code java -cp <cdi-writer classpath> io.nodeatlas.cdi.cli.CdiMain generate ...}.
 */
public final class CdiMain {

  private CdiMain() {}

  public static void main(String[] args) {
    System.exit(CdiCommand.commandLine().execute(args));
  }
}
