package io.nodeatlas.cli.match;

import io.nodeatlas.cli.DiscoveryOptions;
import io.nodeatlas.cli.SavedReport;
import io.nodeatlas.cli.UsageException;
import io.nodeatlas.discovery.report.NodeReport;
import io.nodeatlas.discovery.spi.NodeDiscovery;
import io.nodeatlas.match.Amounts;
import io.nodeatlas.match.ClaimMatcher;
import io.nodeatlas.match.MatchReport;
import io.nodeatlas.match.MatchReportWriter;
import io.nodeatlas.match.cel.DraCelEnvironment;
import io.nodeatlas.match.claims.ClaimDocumentParser;
import io.nodeatlas.match.claims.ClaimInputException;
import io.nodeatlas.match.claims.ClaimModel.Documents;
import java.io.IOException;
import java.io.PrintWriter;
import java.nio.file.NoSuchFileException;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.Callable;
import picocli.CommandLine.Command;
import picocli.CommandLine.Mixin;
import picocli.CommandLine.Model.CommandSpec;
import picocli.CommandLine.Option;
import picocli.CommandLine.Spec;

/**
 * {@code nodeatlas match -f FILE… [--discovered FILE.json] [--explain] [-o table|json]}: evaluates the
 * DeviceClass and ResourceClaim(Template) selectors in FILE against this node's devices, offline. Exit 0
 * when every request of every claim can be satisfied on this node, 1 when some cannot, 2 for invalid
 * input (unreadable files, unknown kinds, CEL compile errors with their position).
 */
@Command(name = "match", mixinStandardHelpOptions = true,
    description = "Evaluate DeviceClass and ResourceClaim CEL selectors against this node's devices.")
public final class MatchCommand implements Callable<Integer> {

  @Spec CommandSpec spec;

  @Mixin DiscoveryOptions discovery = new DiscoveryOptions();

  @Option(names = {"-f", "--filename"}, paramLabel = "FILE", required = true, arity = "1..*",
      description = "YAML or JSON files with DeviceClass, ResourceClaim and ResourceClaimTemplate objects.")
  List<Path> files = new ArrayList<>();

  @Option(names = "--discovered", paramLabel = "FILE.json",
      description = "Use a saved `nodeatlas discover -o json` document instead of discovering now.")
  Path discovered;

  @Option(names = "--explain", arity = "0..1", fallbackValue = "admitted", paramLabel = "all",
      description = "After each verdict, say for every device the request's DeviceClass admits which check failed "
          + "and with which values; --explain=all also for the devices the DeviceClass refuses.")
  String explain;

  @Option(names = {"-o", "--format"}, paramLabel = "FORMAT", defaultValue = "table",
      description = "Output format: table or json (default: ${DEFAULT-VALUE}).")
  String format;

  @Override
  public Integer call() {
    if (!format.equals("table") && !format.equals("json")) {
      throw new UsageException("--format must be table or json, not " + format);
    }
    MatchReportWriter.Explain detail = explainMode();
    Documents documents = readDocuments();
    NodeReport node = readNode();
    MatchReport report;
    try {
      report = new ClaimMatcher(new DraCelEnvironment(), format.equals("json") ? Amounts.EXACT : Amounts.HUMAN)
          .match(node.host().hostname() == null ? "" : node.host().hostname(), node.devices(), documents);
    } catch (ClaimInputException e) {
      throw new UsageException(e.getMessage(), e);
    }
    PrintWriter out = spec.commandLine().getOut();
    out.print(format.equals("json") ? MatchReportWriter.json(report) : MatchReportWriter.table(report, detail));
    out.flush();
    return report.allSatisfiable() ? 0 : 1;
  }

  private MatchReportWriter.Explain explainMode() {
    if (explain == null) {
      return MatchReportWriter.Explain.NONE;
    }
    return switch (explain) {
      case "admitted" -> MatchReportWriter.Explain.ADMITTED;
      case "all" -> MatchReportWriter.Explain.ALL;
      default -> throw new UsageException("--explain takes no value or \"all\", not \"" + explain + "\"");
    };
  }

  private Documents readDocuments() {
    ClaimDocumentParser parser = new ClaimDocumentParser();
    List<Documents> parts = new ArrayList<>();
    try {
      for (Path file : files) {
        try {
          // Bounded: at most ClaimDocumentParser.MAX_FILE_BYTES of UTF-8 per file, see its bounds.
          parts.add(parser.parseFile(file));
        } catch (NoSuchFileException e) {
          throw new UsageException("-f " + file + ": no such file", e);
        } catch (IOException e) {
          throw new UsageException("-f " + file + ": cannot read: " + e.getMessage(), e);
        }
      }
      return ClaimDocumentParser.merge(parts);
    } catch (ClaimInputException e) {
      throw new UsageException(e.getMessage(), e);
    }
  }

  private NodeReport readNode() {
    if (discovered == null) {
      return NodeDiscovery.run(discovery.selectedSources(), discovery.hostContext());
    }
    return SavedReport.readForOption("--discovered", discovered);
  }
}
