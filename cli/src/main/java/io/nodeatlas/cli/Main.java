package io.nodeatlas.cli;

import java.io.BufferedWriter;
import java.io.OutputStream;
import java.io.OutputStreamWriter;
import java.io.PrintWriter;
import java.nio.charset.Charset;
import java.util.OptionalInt;

/** Entry point of the {@code nodeatlas} command. */
public final class Main {

  private Main() {}

  /**
   * The command lines an AOT-cache recording run adds after the user's own (see the launcher): every
   * source and output format once, so that the cache a first {@code discover} records also serves the
   * command lines that come later. Plain {@code discover} takes the hot path, {@code -o table} picocli's.
   */
  static final java.util.List<String[]> TRAINING = java.util.List.of(
      new String[] {"--version"},
      new String[] {"discover", "--sources", "all"},
      new String[] {"discover", "--sources", "all", "-o", "yaml"},
      new String[] {"discover", "--sources", "all", "-o", "table"},
      new String[] {"discover", "--sources", "all", "-o", "tree", "--whole-pci"},
      new String[] {"slices", "-o", "json"});

  public static void main(String[] args) {
    int status = run(args);
    if ("1".equals(System.getenv("NODEATLAS_AOT_TRAINING"))) {
      train();
    }
    System.exit(status);
  }

  /** Runs {@link #TRAINING} with standard output and error discarded; its outcome does not matter. */
  static void train() {
    System.out.flush();
    System.err.flush();
    java.io.PrintStream out = System.out;
    java.io.PrintStream err = System.err;
    java.io.PrintStream none = new java.io.PrintStream(OutputStream.nullOutputStream(), false);
    System.setOut(none);
    System.setErr(none);
    try {
      for (String[] line : TRAINING) {
        try {
          run(line);
        } catch (RuntimeException e) {
          // A command that fails on this host still loaded what it needed until then.
        }
      }
    } finally {
      System.setOut(out);
      System.setErr(err);
    }
  }

  /** Runs a command line and returns its exit status (0 ok, 1 a source or operation failed, 2 bad usage). */
  public static int run(String... args) {
    try {
      // --version and a plain discover skip building picocli's model (HotPath says why); every other
      // line, and any line the hot path is not sure of, is picocli's.
      OptionalInt hot = new HotPath(System.getenv(), NodeAtlasCommand::installedSources)
          .run(args, () -> writer(System.out, "sun.stdout.encoding"), () -> writer(System.err, "sun.stderr.encoding"));
      if (hot.isPresent()) {
        return hot.getAsInt();
      }
      return NodeAtlasCommand.commandLineFor(args).execute(args);
    } catch (StackOverflowError | OutOfMemoryError e) {
      // Outside any command (building the command line): the same one line as inside one.
      return NodeAtlasCommand.internalFailure(new java.io.PrintWriter(System.err, true), e);
    }
  }

  /** The writer picocli gives a command for {@code stream}: the charset its property names, else the default. */
  private static PrintWriter writer(OutputStream stream, String charsetProperty) {
    Charset charset;
    try {
      String name = System.getProperty(charsetProperty);
      charset = Charset.forName("cp65001".equalsIgnoreCase(name) ? "UTF-8" : name);
    } catch (RuntimeException e) {
      charset = Charset.defaultCharset();
    }
    return new PrintWriter(new BufferedWriter(new OutputStreamWriter(stream, charset)), true);
  }
}
