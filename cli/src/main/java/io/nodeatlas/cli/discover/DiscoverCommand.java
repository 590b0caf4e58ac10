package io.nodeatlas.cli.discover;

import io.nodeatlas.cli.DiscoveryOptions;
import io.nodeatlas.cli.OutputFormat;
import io.nodeatlas.cli.discover.render.RenderOptions;
import io.nodeatlas.cli.discover.render.Terminal;
import io.nodeatlas.discovery.host.Excerpt;
import io.nodeatlas.discovery.report.NodeReport;
import io.nodeatlas.discovery.report.NodeReportCodec;
import io.nodeatlas.discovery.engine.NodeDiscovery;
import java.io.PrintWriter;
import java.util.concurrent.Callable;
import picocli.CommandLine.Command;
import picocli.CommandLine.Mixin;
import picocli.CommandLine.Model.CommandSpec;
import picocli.CommandLine.Option;
import picocli.CommandLine.Spec;

/**
 * {@code nodeatlas discover}: runs discovery once and prints the node. Exit 0 when every selected
 * source ran (warnings allowed), 1 when a source failed, 2 for bad usage.
 */
@Command(name = "discover", mixinStandardHelpOptions = true,
    description = "Discover this node's devices and topology once and print them to stdout.")
public final class DiscoverCommand implements Callable<Integer> {

  @Spec CommandSpec spec;

  @Mixin DiscoveryOptions discovery = new DiscoveryOptions();

  @Mixin RenderOptions render = new RenderOptions();

  @Option(names = {"-o", "--format"}, paramLabel = "FORMAT", defaultValue = "${env:NODEATLAS_FORMAT:-json}",
      description = "Output format: json, yaml, table, tree or svg (default: ${DEFAULT-VALUE}; env NODEATLAS_FORMAT).")
  OutputFormat format;

  @Override
  public Integer call() {
    java.util.Optional<NodeReport> saved = render.saved();
    NodeReport report = saved.orElseGet(() -> NodeDiscovery.run(discovery.selectedSources(), discovery.hostContext()));
    PrintWriter out = spec.commandLine().getOut();
    switch (format) {
      case TREE -> out.print(render.tree(report, Terminal.current()));
      case SVG -> out.print(render.svg(report));
      default -> {
        return print(report, format, out, spec.commandLine().getErr(), saved.isEmpty());
      }
    }
    out.flush();
    // A saved report is only printed: the sources that failed did so on another run.
    return saved.isEmpty() ? failedSources(report, spec.commandLine().getErr()) : 0;
  }

  /**
   * Prints {@code report} as json, yaml or table and, for a fresh discovery ({@code live}), the failed
   * sources' lines; the exit status. Shared with the command line's hot path
   * ({@code io.nodeatlas.cli.HotPath}), which runs {@code discover} without building the picocli model.
   */
  public static int print(NodeReport report, OutputFormat format, PrintWriter out, PrintWriter err, boolean live) {
    switch (format) {
      case JSON -> out.print(new NodeReportCodec().toJson(report));
      case YAML -> out.print(new NodeReportCodec().toYaml(report));
      case TABLE -> out.print(TableReport.render(report));
      default -> throw new IllegalArgumentException("not a text format: " + format);
    }
    out.flush();
    return live ? failedSources(report, err) : 0;
  }

  /** 1 with one line per failed source on {@code err}, 0 when every selected source ran. */
  private static int failedSources(NodeReport report, PrintWriter err) {
    if (!report.anySourceFailed()) {
      return 0;
    }
    // The reason travels in the source's status; warnings are for facts, not for this line.
    report.sources().forEach((name, status) -> {
      if (status.isFailed()) {
        err.println("nodeatlas: " + name + ": source failed" + (status.reason().isEmpty() ? "" : ": " + Excerpt.scrub(status.reason())));
      }
    });
    err.flush();
    return 1;
  }
}
