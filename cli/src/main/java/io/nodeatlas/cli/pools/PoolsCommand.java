package io.nodeatlas.cli.pools;

import io.nodeatlas.cli.UsageException;
import io.nodeatlas.cli.fleet.FleetInput;
import io.nodeatlas.cli.fleet.FleetOptions;
import io.nodeatlas.match.fleet.PoolReport;
import io.nodeatlas.match.fleet.PoolReportWriter;
import java.io.PrintWriter;
import java.util.concurrent.Callable;
import picocli.CommandLine.Command;
import picocli.CommandLine.Mixin;
import picocli.CommandLine.Model.CommandSpec;
import picocli.CommandLine.Option;
import picocli.CommandLine.Spec;

/**
 * {@code nodeatlas pools (--cluster | --discovered FILE|DIR…) [-o table|json|yaml]}: per driver and pool, by
 * node, devices total, allocated and free, and per capacity what allocated claims consume and what is left,
 * naming the claims where nothing is left. Read-only; exit 0, 2 for bad usage, 1 when the cluster cannot
 * be read.
 */
@Command(name = "pools", mixinStandardHelpOptions = true,
    description = "Show what is allocated and what is left in every DRA pool of the cluster or of saved reports.")
public final class PoolsCommand implements Callable<Integer> {

  @Spec CommandSpec spec;

  @Mixin FleetOptions fleet = new FleetOptions();

  @Option(names = {"-o", "--format"}, paramLabel = "FORMAT", defaultValue = "table",
      description = "Output format: table, json or yaml (default: ${DEFAULT-VALUE}).")
  String format;

  @Override
  public Integer call() {
    if (!format.equals("table") && !format.equals("json") && !format.equals("yaml")) {
      throw new UsageException("--format must be table, json or yaml, not " + format);
    }
    if (!fleet.any()) {
      throw new UsageException("say where the pools are: --cluster, or --discovered with saved files or directories");
    }
    FleetInput input = fleet.read();
    PoolReport report = input.pools();
    PrintWriter out = spec.commandLine().getOut();
    out.print(switch (format) {
      case "json" -> PoolReportWriter.json(report, input.warnings());
      case "yaml" -> PoolReportWriter.yaml(report, input.warnings());
      default -> PoolReportWriter.table(report, input.warnings());
    });
    out.flush();
    return 0;
  }
}
