package io.nodeatlas.cli.discover;

import io.nodeatlas.cli.DiscoveryOptions;
import io.nodeatlas.cli.OutputFormat;
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

  @Option(names = {"-o", "--format"}, paramLabel = "FORMAT", defaultValue = "${env:NODEATLAS_FORMAT:-json}",
      description = "Output format: json, yaml or table (default: ${DEFAULT-VALUE}).")
  OutputFormat format;

  @Override
  public Integer call() {
    NodeReport report = NodeDiscovery.run(discovery.selectedSources(), discovery.hostContext());
    return print(report, format, spec.commandLine().getOut(), spec.commandLine().getErr());
  }

  /**
   * Prints {@code report} in {@code format} and the failed sources' lines; the exit status. Shared with
   * the command line's hot path ({@code io.nodeatlas.cli.HotPath}), which runs {@code discover} without
   * building the picocli model.
   */
  public static int print(NodeReport report, OutputFormat format, PrintWriter out, PrintWriter err) {
    switch (format) {
      case JSON -> out.print(new NodeReportCodec().toJson(report));
      case YAML -> out.print(new NodeReportCodec().toYaml(report));
      case TABLE -> out.print(TableReport.render(report));
    }
    out.flush();
    if (report.anySourceFailed()) {
      // The reason travels in the source's status; warnings are for facts, not for this line.
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
