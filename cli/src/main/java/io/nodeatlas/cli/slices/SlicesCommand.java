package io.nodeatlas.cli.slices;

import io.fabric8.kubernetes.api.model.KubernetesListBuilder;
import io.fabric8.kubernetes.api.model.resource.v1.ResourceSlice;
import io.fabric8.kubernetes.client.utils.KubernetesSerialization;
import io.nodeatlas.agent.slices.NodeSlices;
import io.nodeatlas.agent.slices.SliceValidator;
import io.nodeatlas.cli.DiscoveryOptions;
import io.nodeatlas.cli.SavedReport;
import io.nodeatlas.cli.UsageException;
import io.nodeatlas.discovery.host.Excerpt;
import io.nodeatlas.discovery.model.Names;
import io.nodeatlas.discovery.report.NodeReport;
import io.nodeatlas.discovery.engine.NodeDiscovery;
import java.io.PrintWriter;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.Locale;
import java.util.Optional;
import java.util.concurrent.Callable;
import picocli.CommandLine.Command;
import picocli.CommandLine.Mixin;
import picocli.CommandLine.Model.CommandSpec;
import picocli.CommandLine.Option;
import picocli.CommandLine.Spec;

/**
 * {@code nodeatlas slices}: prints the {@code resource.k8s.io/v1} ResourceSlices that {@code nodeatlas run}
 * would publish for this node, built by the agent's own code ({@link NodeSlices}) without an API server,
 * so an admin can review them and tests can check them. Two things only the API server knows are left
 * as the first publish writes them: the pool generation is 1, and the Node's controlling owner reference
 * (it needs the Node object's uid) is not printed. Devices the API would reject are left out with one
 * line on stderr each, as the agent leaves them out. Exit 0, or 1 when a selected source failed (the
 * slices are printed anyway), 2 for bad usage.
 */
@Command(name = "slices", mixinStandardHelpOptions = true,
    description = "Print the resource.k8s.io/v1 ResourceSlices `nodeatlas run` would publish for this node, without an API server.")
public final class SlicesCommand implements Callable<Integer> {

  /** The pool generation of the agent's first publish. */
  static final long FIRST_GENERATION = 1;

  @Spec CommandSpec spec;

  @Mixin DiscoveryOptions discovery = new DiscoveryOptions();

  @Option(names = "--discovered", paramLabel = "FILE.json",
      description = "Use a saved `nodeatlas discover -o json` document instead of discovering now.")
  Path discovered;

  // The node and driver names as `run` takes them: the same env twins and config keys.
  @Option(names = "--node-name", paramLabel = "NAME", defaultValue = "${env:NODE_NAME}",
      description = "The Kubernetes node name (default: the host name of the discovered node, in lower case, as the kubelet names it; env NODE_NAME).")
  String nodeName;

  @Option(names = "--driver-name", paramLabel = "NAME", defaultValue = "${env:NODEATLAS_DRIVER_NAME:-" + Names.DRIVER + "}",
      description = "The DRA driver name, as given to `nodeatlas run` (default: ${DEFAULT-VALUE}; env NODEATLAS_DRIVER_NAME).")
  String driverName;

  @Option(names = {"-o", "--format"}, paramLabel = "FORMAT", defaultValue = "yaml",
      description = "Output format: yaml (one document per slice) or json (a v1 List) (default: ${DEFAULT-VALUE}).")
  String format;

  /**
   * Whether the API server keeps the fields of shared devices; false prints what the agent publishes
   * after it fell back (hidden: for reviewing the fallback).
   */
  @Option(names = "--without-shared-devices", hidden = true,
      description = "Print the slices as published to an API server without DRAConsumableCapacity.")
  boolean withoutSharedDevices;

  @Override
  public Integer call() {
    String fmt = format.toLowerCase(Locale.ROOT);
    if (!fmt.equals("yaml") && !fmt.equals("json")) {
      throw new UsageException("--format must be yaml or json, not " + format);
    }
    // ResourceSlice spec.driver: a DNS subdomain of at most 63 characters, as `run` requires.
    if (!Names.isDnsSubdomain(driverName) || driverName.length() > 63) {
      throw new UsageException(given("--driver-name", driverName) + " is not a DNS subdomain of at most 63 characters");
    }
    NodeReport report = readNode();
    String node = nodeName != null && !nodeName.isEmpty() ? nodeName : defaultNodeName(report);
    if (!Names.isDnsSubdomain(node)) {
      throw new UsageException((nodeName != null && !nodeName.isEmpty() ? given("--node-name", node) : "the host name \""
          + Excerpt.scrub(node) + "\"") + " is not a valid Kubernetes node name (a DNS subdomain); give --node-name");
    }
    NodeSlices.Built built = new NodeSlices(driverName, node)
        .build(report.devices(), withoutSharedDevices, FIRST_GENERATION, Optional.empty());
    PrintWriter err = spec.commandLine().getErr();
    built.warnings().forEach(w -> err.println("nodeatlas: warning: " + Excerpt.scrub(w)));
    List<String> problems = new ArrayList<>();
    for (ResourceSlice s : built.slices()) {
      SliceValidator.sliceProblems(s).forEach(p -> problems.add(s.getMetadata().getName() + ": " + p));
    }
    if (!problems.isEmpty()) {
      err.println("nodeatlas: the API server would reject these slices: " + String.join("; ", problems));
      err.flush();
      return 1;
    }
    PrintWriter out = spec.commandLine().getOut();
    out.print(fmt.equals("json") ? json(built.slices()) : yaml(built.slices()));
    out.flush();
    if (report.anySourceFailed()) {
      report.sources().forEach((name, status) -> {
        if (status.isFailed()) {
          err.println("nodeatlas: " + name + ": source failed" + (status.reason().isEmpty() ? "" : ": " + Excerpt.scrub(status.reason())));
        }
      });
      err.flush();
      return 1;
    }
    err.flush();
    return 0;
  }

  /** {@code --driver-name "x"}, or the env twin or config key that set it. */
  private String given(String flag, String value) {
    return io.nodeatlas.cli.ValueSource.describe(spec.findOption(flag), "\"" + value + "\"");
  }

  /** The kubelet's default node name: the host name in lower case. */
  static String defaultNodeName(NodeReport report) {
    String host = report.host() == null ? null : report.host().hostname();
    if (host == null || host.isBlank()) {
      throw new UsageException("the discovered node has no host name; give --node-name");
    }
    return host.trim().toLowerCase(Locale.ROOT);
  }

  /** One YAML document per slice, each starting with {@code ---} (kubectl apply -f reads them). */
  static String yaml(List<ResourceSlice> slices) {
    KubernetesSerialization serialization = new KubernetesSerialization();
    StringBuilder out = new StringBuilder();
    for (ResourceSlice s : slices) {
      String doc = serialization.asYaml(s);
      out.append(doc.startsWith("---") ? "" : "---\n").append(doc);
      if (!doc.endsWith("\n")) {
        out.append('\n');
      }
    }
    return out.toString();
  }

  /** A {@code v1} {@code List} of the slices, as {@code kubectl get -o json} prints several objects. */
  static String json(List<ResourceSlice> slices) {
    String doc = new KubernetesSerialization().asJson(new KubernetesListBuilder().withItems(new ArrayList<>(slices)).build());
    // Pretty-printed so a review diff shows one field per line.
    try {
      com.fasterxml.jackson.databind.ObjectMapper mapper = new com.fasterxml.jackson.databind.ObjectMapper();
      return mapper.writerWithDefaultPrettyPrinter().writeValueAsString(mapper.readTree(doc)) + "\n";
    } catch (com.fasterxml.jackson.core.JsonProcessingException e) {
      throw new IllegalStateException("cannot print the slices as JSON", e);
    }
  }

  private NodeReport readNode() {
    if (discovered == null) {
      return NodeDiscovery.run(discovery.selectedSources(), discovery.hostContext().withSharedDevicesSupported(!withoutSharedDevices));
    }
    return SavedReport.readForOption("--discovered", discovered);
  }
}
