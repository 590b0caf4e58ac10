package io.nodeatlas.cli.testing;

import io.nodeatlas.cli.Main;
import io.nodeatlas.cli.NodeAtlasCommand;
import io.nodeatlas.discovery.engine.DiscoverySources;
import java.io.File;
import java.io.IOException;
import java.io.InputStream;
import java.io.PrintWriter;
import java.io.StringWriter;
import java.io.UncheckedIOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.TimeUnit;
import picocli.CommandLine;

/** Runs {@code nodeatlas} as a user does: in this JVM through the real root command, or as its own process. */
public final class NodeAtlasRun {

  /** The bound on a whole {@code nodeatlas} process in tests: generous, only a hang reaches it. */
  public static final long PROCESS_TIMEOUT_SECONDS = 120;

  private NodeAtlasRun() {}

  /** Exit status, stdout and stderr of one run. */
  public record Result(int status, String out, String err) {}

  /** The root command over the installed sources, in this JVM. */
  public static Result run(String... args) {
    return run(NodeAtlasCommand.commandLine(), args);
  }

  /** The root command over {@code sources} instead of the installed ones, in this JVM. */
  public static Result run(DiscoverySources sources, String... args) {
    return run(NodeAtlasCommand.commandLine(sources), args);
  }

  private static Result run(CommandLine cl, String... args) {
    StringWriter out = new StringWriter();
    StringWriter err = new StringWriter();
    cl.setOut(new PrintWriter(out));
    cl.setErr(new PrintWriter(err));
    int status = cl.execute(args);
    return new Result(status, out.toString(), err.toString());
  }

  /**
   * {@code nodeatlas} as a separate JVM with the test class path (plus {@code extraClassPath}, e.g. a
   * services file that installs a test source for that process only) and {@code env} added to ours.
   */
  public static Result runProcess(Map<String, String> env, Path extraClassPath, String... args) throws Exception {
    return runProcess(List.of(), env, extraClassPath, args);
  }

  /** {@link #runProcess(Map, Path, String...)} with JVM options first (the launcher's heap and stack, say). */
  public static Result runProcess(List<String> jvmOptions, Map<String, String> env, Path extraClassPath, String... args)
      throws Exception {
    List<String> command = new ArrayList<>(List.of(Path.of(System.getProperty("java.home"), "bin", "java").toString()));
    command.addAll(jvmOptions);
    command.addAll(List.of("-cp",
        System.getProperty("java.class.path") + (extraClassPath == null ? "" : File.pathSeparator + extraClassPath),
        Main.class.getName()));
    command.addAll(List.of(args));
    ProcessBuilder pb = new ProcessBuilder(command);
    pb.environment().putAll(env);
    Process p = pb.start();
    try {
      // One thread per stream, so a full pipe on either side cannot stall the other.
      CompletableFuture<byte[]> err = CompletableFuture.supplyAsync(() -> readAll(p.getErrorStream()), NodeAtlasRun::daemon);
      CompletableFuture<byte[]> out = CompletableFuture.supplyAsync(() -> readAll(p.getInputStream()), NodeAtlasRun::daemon);
      if (!p.waitFor(PROCESS_TIMEOUT_SECONDS, TimeUnit.SECONDS)) {
        throw new AssertionError("nodeatlas " + String.join(" ", args) + " did not exit within "
            + PROCESS_TIMEOUT_SECONDS + " s");
      }
      return new Result(p.exitValue(), new String(out.get(), StandardCharsets.UTF_8),
          new String(err.get(), StandardCharsets.UTF_8));
    } finally {
      p.destroyForcibly();
    }
  }

  private static void daemon(Runnable task) {
    Thread t = new Thread(task, "nodeatlas-test-stream");
    t.setDaemon(true);
    t.start();
  }

  private static byte[] readAll(InputStream in) {
    try {
      return in.readAllBytes();
    } catch (IOException e) {
      throw new UncheckedIOException(e);
    }
  }
}
