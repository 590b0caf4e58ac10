package io.nodeatlas.cli.cdi;

import io.nodeatlas.cdi.CdiValidator;
import java.io.IOException;
import java.io.PrintWriter;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.Callable;
import picocli.CommandLine.Command;
import picocli.CommandLine.Model.CommandSpec;
import picocli.CommandLine.Option;
import picocli.CommandLine.Spec;

/**
 * {@code nodeatlas cdi list}: the fully qualified CDI device names a runtime could resolve from the
 * CDI directories, one per line, sorted (like {@code nvidia-ctk cdi list}). Files a runtime would skip
 * and devices it would drop as conflicting are left out, with a warning on stderr.
 */
@Command(name = "list", mixinStandardHelpOptions = true,
    description = "List the qualified CDI device names defined in the CDI directories.")
public final class CdiListCommand implements Callable<Integer> {

  /** The runtimes' defaults, lowest priority first (the reference library's default spec dirs). */
  static final List<Path> DEFAULT_DIRS = List.of(Path.of("/etc/cdi"), Path.of("/var/run/cdi"));

  @Spec CommandSpec spec;

  @Option(names = "--spec-dir", paramLabel = "DIR", split = ",",
      description = "CDI directory, lowest priority first; repeatable (default: /etc/cdi, /var/run/cdi).")
  List<Path> specDirs = new ArrayList<>();

  @Override
  public Integer call() throws IOException {
    PrintWriter out = spec.commandLine().getOut();
    PrintWriter err = spec.commandLine().getErr();
    CdiValidator.Scan scan = new CdiValidator().scan(specDirs.isEmpty() ? DEFAULT_DIRS : specDirs);
    scan.problems().forEach(p -> err.println("nodeatlas: warning: " + p));
    scan.devices().keySet().forEach(out::println);
    out.flush();
    err.flush();
    return 0;
  }
}
