package io.nodeatlas.cli.discover;

import io.nodeatlas.cli.DiscoveryOptions;
import io.nodeatlas.cli.OutputFormat;
import io.nodeatlas.cli.discover.render.RenderOptions;
import io.nodeatlas.cli.discover.render.Terminal;
import io.nodeatlas.discovery.host.Excerpt;
import io.nodeatlas.discovery.report.NodeReport;
import io.nodeatlas.discovery.report.NodeReportCodec;
import io.nodeatlas.discovery.spi.NodeDiscovery;
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
      case JSON -> out.print(new NodeReportCodec().toJson(report));
      case YAML -> out.print(new NodeReportCodec().toYaml(report));
      case TABLE -> out.print(TableReport.render(report));
      case TREE -> out.print(render.tree(report, Terminal.current()));
      case SVG -> out.print(render.svg(report));
    }
    out.flush();
    // A saved report is only printed: the sources that failed did so on another run.
    if (saved.isEmpty() && report.anySourceFailed()) {
      // The reason travels in the source's status; warnings are for facts, not for this line.
      PrintWriter err = spec.commandLine().getErr();
      report.sources().forEach((name, status) -> {
        if (status.isFailed()) {
          err.println("nodeatlas: " + name + ": source failed" + (status.reason().isEmpty() ? "" : ": " + Excerpt.scrub(status.reason())));
        }
      });
      err.flush();
      return 1;
    }
    return 0;
  }
}
