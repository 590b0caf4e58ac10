package io.nodeatlas.cli.match;

import io.nodeatlas.cli.DiscoveryOptions;
import io.nodeatlas.cli.fleet.FleetInput;
import io.nodeatlas.cli.fleet.FleetOptions;
import io.nodeatlas.cli.UsageException;
import io.nodeatlas.discovery.report.NodeReport;
import io.nodeatlas.discovery.engine.NodeDiscovery;
import io.nodeatlas.match.Amounts;
import io.nodeatlas.match.ClaimMatcher;
import io.nodeatlas.match.MatchReport;
import io.nodeatlas.match.MatchReportWriter;
import io.nodeatlas.match.cel.DraCelEnvironment;
import io.nodeatlas.match.fleet.FleetMatcher;
import io.nodeatlas.match.fleet.FleetNode;
import io.nodeatlas.match.fleet.FleetReport;
import io.nodeatlas.match.fleet.FleetReportWriter;
import io.nodeatlas.match.claims.ClaimDocumentParser;
import io.nodeatlas.match.claims.ClaimInputException;
import io.nodeatlas.match.claims.PodClaims;
import io.nodeatlas.match.claims.ClaimModel.Documents;
import java.io.IOException;
import java.io.PrintWriter;
import java.nio.file.Files;
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
 * {@code nodeatlas match -f FILE… [--discovered FILE.json] [--explain[=all]] [-o table|json|yaml]}: evaluates the
 * DeviceClass and ResourceClaim(Template) selectors in FILE (or a Pod's claims) against this node's
 * devices, offline. Exit 0 when every request of every claim can be satisfied on this node, 1 when some
 * cannot, 2 for invalid input (unreadable files, unknown kinds, CEL compile errors with their position).
 *
 * <p>With several saved nodes ({@code --discovered} files and directories) or {@code --cluster}, one verdict
 * per node (docs/fleet.md); exit 0 when at least one node fits.
 */
@Command(name = "match", mixinStandardHelpOptions = true,
    description = "Evaluate DeviceClass and ResourceClaim CEL selectors against this node's devices, or with "
        + "--cluster or several saved nodes say on which nodes the claims (or a pod's) would fit, and why not.")
public final class MatchCommand implements Callable<Integer> {

  @Spec CommandSpec spec;

  @Mixin DiscoveryOptions discovery = new DiscoveryOptions();

  @Option(names = {"-f", "--filename"}, paramLabel = "FILE", required = true, arity = "1..*",
      description = "YAML or JSON files with DeviceClass, ResourceClaim and ResourceClaimTemplate objects.")
  List<Path> files = new ArrayList<>();

  @Mixin FleetOptions fleet = new FleetOptions();

  @Option(names = "--explain", arity = "0..1", fallbackValue = "admitted", paramLabel = "all",
      description = "After each verdict, say for every device the request's DeviceClass admits which check failed "
          + "and with which values; --explain=all also for the devices the DeviceClass refuses. Over several nodes: "
          + "under each node that does not fit.")
  String explain;

  @Option(names = {"-o", "--format"}, paramLabel = "FORMAT", defaultValue = "table",
      description = "Output format: table, json or yaml (default: ${DEFAULT-VALUE}).")
  String format;

  @Override
  public Integer call() {
    if (!format.equals("table") && !format.equals("json") && !format.equals("yaml")) {
      throw new UsageException("--format must be table, json or yaml, not " + format);
    }
    MatchReportWriter.Explain detail = explainMode();
    Documents documents = readDocuments();
    Amounts amounts = format.equals("table") ? Amounts.HUMAN : Amounts.EXACT;
    ClaimMatcher matcher = new ClaimMatcher(new DraCelEnvironment(), amounts);
    NodeReport node;
    if (!fleet.any()) {
      node = NodeDiscovery.run(discovery.selectedSources(), discovery.hostContext());
    } else {
      FleetInput input = fleet.read();
      boolean oneFile = !fleet.cluster && fleet.discovered.size() == 1 && !Files.isDirectory(fleet.discovered.get(0));
      if (!oneFile || input.onlyReport().isEmpty()) {
        return matchFleet(new ClaimMatcher(new DraCelEnvironment(), amounts, false), documents, input);
      }
      node = input.onlyReport().get();
    }
    MatchReport report;
    try {
      documents = PodClaims.resolve(documents).documents();
      report = matcher.match(node.host().hostname() == null ? "" : node.host().hostname(), node.devices(), documents);
    } catch (ClaimInputException e) {
      throw new UsageException(e.getMessage(), e);
    }
    PrintWriter out = spec.commandLine().getOut();
    out.print(switch (format) {
      case "json" -> MatchReportWriter.json(report);
      case "yaml" -> FleetReportWriter.yamlOf(MatchReportWriter.json(report));
      default -> MatchReportWriter.table(report, detail);
    });
    out.flush();
    return report.allSatisfiable() ? 0 : 1;
  }

  /** One verdict per node; exit 0 when at least one node fits. */
  private int matchFleet(ClaimMatcher matcher, Documents documents, FleetInput input) {
    List<String> warnings = new ArrayList<>(input.warnings());
    FleetReport report;
    List<FleetNode> nodes;
    Documents documentsFor;
    try {
      PodClaims.Resolved resolved = PodClaims.resolve(withClusterClasses(documents, input));
      nodes = input.fleet();
      warnings = new ArrayList<>(input.warnings());
      FleetMatcher.Placement placement = resolved.pod()
          .map(p -> new FleetMatcher.Placement(p.nodeName(), p.nodeSelector(), p.requiredNodeAffinity(), p.tolerations(), true))
          .orElse(FleetMatcher.Placement.ANY);
      if (resolved.pod().isPresent() && !resolved.pod().get().nodeSelector().isEmpty() && input.hasUnlabelledNodes()) {
        warnings.add("saved discover documents carry no node labels: the pod's nodeSelector is checked against "
            + "kubernetes.io/hostname alone on those nodes");
      }
      report = new FleetMatcher(matcher).match(nodes, resolved.documents(), placement, warnings);
      documentsFor = resolved.documents();
    } catch (ClaimInputException e) {
      throw new UsageException(e.getMessage(), e);
    }
    PrintWriter out = spec.commandLine().getOut();
    out.print(switch (format) {
      case "json" -> FleetReportWriter.json(report);
      case "yaml" -> FleetReportWriter.yaml(report);
      default -> FleetReportWriter.table(report, explanations(report, nodes, documentsFor));
    });
    out.flush();
    return report.fitting() > 0 ? 0 : 1;
  }

  /**
   * With {@code --explain}, for each node whose claims do not fit, the single-node report with its per-device
   * reasons ({@code match --explain} on that node alone); built only here, for the nodes it is asked for.
   */
  private java.util.Map<String, String> explanations(FleetReport report, List<FleetNode> nodes, Documents documents) {
    MatchReportWriter.Explain detail = explainMode();
    java.util.Map<String, String> out = new java.util.HashMap<>();
    if (detail == MatchReportWriter.Explain.NONE) {
      return out;
    }
    java.util.Map<String, FleetNode> byName = new java.util.HashMap<>();
    nodes.forEach(n -> byName.put(n.name(), n));
    ClaimMatcher matcher = new ClaimMatcher(new DraCelEnvironment(), Amounts.HUMAN);
    for (FleetReport.NodeVerdict v : report.verdicts()) {
      FleetNode node = byName.get(v.node());
      if (v.fits() || v.claims().isEmpty() || node == null) {
        // A node the pod's own placement refuses has no device detail to show.
        continue;
      }
      try {
        out.put(v.node(), MatchReportWriter.table(matcher.match(node.name(), node.inventory(), documents), detail));
      } catch (ClaimInputException e) {
        throw new UsageException(e.getMessage(), e);
      }
    }
    return out;
  }

  /** The DeviceClasses of the files, and those of the cluster (or saved lists) that the files do not define. */
  static Documents withClusterClasses(Documents files, FleetInput input) throws ClaimInputException {
    if (!input.hasDeviceClasses()) {
      return files;
    }
    Documents cluster = new ClaimDocumentParser().parse("the cluster's DeviceClasses", input.deviceClassesJson());
    java.util.Set<String> defined = files.classesByName().keySet();
    List<io.nodeatlas.match.claims.ClaimModel.DeviceClass> classes = new ArrayList<>(files.deviceClasses());
    cluster.deviceClasses().stream().filter(c -> !defined.contains(c.name())).forEach(classes::add);
    return new Documents(classes, files.claims(), files.pods());
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

}
