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

  public static void main(String[] args) {
    if (args.length > 0 && "run".equals(args[0])) {
      // First: a SIGHUP while the agent starts must not end it (run.StartSignals).
      io.nodeatlas.cli.run.StartSignals.holdHangup();
    }
    // --version and --help alone return without System.exit, whose logger look-up (JDK 21+, Runtime.exit
    // events) costs a cold JVM milliseconds; no thread of ours runs then.
    OptionalInt top = topLevel(args);
    if (top.isPresent() && top.getAsInt() == 0) {
      return;
    }
    int status = top.isPresent() ? top.getAsInt() : run(args);
    // A discover that succeeded and left no thread that would keep the JVM up returns too: the logger
    // look-up of System.exit scans the class path for logging services, which opens the whole jar
    // that a discover otherwise never opens.
    if (status == 0 && args.length > 0 && "discover".equals(args[0]) && !otherThreadsKeepTheJvmUp()) {
      return;
    }
    System.exit(status);
  }

  /** Whether a live non-daemon thread besides this one exists in this thread's group or below. */
  static boolean otherThreadsKeepTheJvmUp() {
    Thread self = Thread.currentThread();
    Thread[] threads = new Thread[self.getThreadGroup().activeCount() + 8];
    int n = self.getThreadGroup().enumerate(threads, true);
    if (n == threads.length) {
      return true; // more than were counted a moment ago: do not guess
    }
    for (int i = 0; i < n; i++) {
      if (threads[i] != self && !threads[i].isDaemon() && threads[i].isAlive()) {
        return true;
      }
    }
    return false;
  }

  /**
   * {@code --version} and top-level {@code --help} with no class of the command tree (the launcher runs
   * them from its small jar; no lambda, whose first use costs a cold JVM milliseconds).
   */
  private static OptionalInt topLevel(String[] args) {
    return HotPath.topLevel(args, System.getenv(), new java.util.function.Supplier<PrintWriter>() {
      @Override
      public PrintWriter get() {
        return writer(System.out, "sun.stdout.encoding");
      }
    });
  }

  /** Runs a command line and returns its exit status (0 ok, 1 a source or operation failed, 2 bad usage). */
  public static int run(String... args) {
    try {
      OptionalInt top = topLevel(args);
      if (top.isPresent()) {
        return top.getAsInt();
      }
      // A plain discover skips building picocli's model too (HotPath); every other
      // line, and any line the hot path is not sure of, is picocli's.
      OptionalInt hot = new HotPath(System.getenv(), Main::installedSources)
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

  /**
   * The discovery sources on the class path, as {@link NodeAtlasCommand#installedSources()} finds them,
   * without initialising NodeAtlasCommand: its subcommand table loads every command class, whose
   * verification then loads picocli's (old bytecode, outside the start-up cache) at every start.
   */
  private static io.nodeatlas.discovery.engine.DiscoverySources installedSources() {
    return InstalledSources.load(Main.class.getClassLoader());
  }

  /** The writer picocli gives a command for {@code stream}: the charset its property names, else the default. */
  private static PrintWriter writer(OutputStream stream, String charsetProperty) {
    Charset charset;
    String name = System.getProperty(charsetProperty);
    if (name == null) {
      // Not a terminal (the JDK sets the property only for one): no exception thrown and caught for it.
      charset = Charset.defaultCharset();
    } else {
      try {
        charset = Charset.forName("cp65001".equalsIgnoreCase(name) ? "UTF-8" : name);
      } catch (RuntimeException e) {
        charset = Charset.defaultCharset();
      }
    }
    return new PrintWriter(new BufferedWriter(new OutputStreamWriter(stream, charset)), true);
  }
}
