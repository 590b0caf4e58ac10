package io.nodeatlas.cli;

import picocli.CommandLine;

/** Entry point of the {@code nodeatlas} command. */
public final class Main {

  private Main() {}

  public static void main(String[] args) {
    System.exit(run(args));
  }

  /** Runs a command line and returns its exit status (0 ok, 1 a source or operation failed, 2 bad usage). */
  public static int run(String... args) {
    try {
      return NodeAtlasCommand.commandLineFor(args).execute(args);
    } catch (StackOverflowError | OutOfMemoryError e) {
      // Outside any command (building the command line): the same one line as inside one.
      return NodeAtlasCommand.internalFailure(new java.io.PrintWriter(System.err, true), e);
    }
  }
}
