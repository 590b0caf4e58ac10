package io.nodeatlas.cli.labels;

import io.fabric8.kubernetes.api.model.GenericKubernetesResource;
import io.fabric8.kubernetes.api.model.GenericKubernetesResourceBuilder;
import io.fabric8.kubernetes.client.Config;
import io.fabric8.kubernetes.client.KubernetesClient;
import io.fabric8.kubernetes.client.KubernetesClientBuilder;
import io.fabric8.kubernetes.client.KubernetesClientException;
import io.fabric8.kubernetes.client.dsl.base.ResourceDefinitionContext;
import io.nodeatlas.agent.ops.ApiErrors;
import io.nodeatlas.cli.DiscoveryOptions;
import io.nodeatlas.cli.Messages;
import io.nodeatlas.cli.SavedReport;
import io.nodeatlas.cli.UsageException;
import io.nodeatlas.cli.ValueSource;
import io.nodeatlas.discovery.host.Excerpt;
import io.nodeatlas.discovery.model.Names;
import io.nodeatlas.discovery.report.NodeReport;
import io.nodeatlas.discovery.engine.NodeDiscovery;
import java.io.IOException;
import java.io.PrintWriter;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.LinkedHashMap;
import java.util.Locale;
import java.util.Map;
import java.util.SortedMap;
import java.util.concurrent.Callable;
import picocli.CommandLine.Command;
import picocli.CommandLine.Mixin;
import picocli.CommandLine.Model.CommandSpec;
import picocli.CommandLine.Option;
import picocli.CommandLine.Spec;

/**
 * {@code nodeatlas labels}: node-feature-discovery labels from the same discovery as the slices
 * ({@link NfdLabels}, docs/labels.md), so labels and slices never disagree. Prints the NFD local
 * feature file; with {@code --features-dir} writes it there (atomically: NFD skips dot files, our
 * temporary file is one); with {@code --apply} creates or updates this node's {@code NodeFeature}
 * ({@code nfd.k8s-sigs.io/v1alpha1}, labelled {@code nfd.node.kubernetes.io/node-name}, as NFD's
 * customization guide requires) through the API. Exit 0, 1 when a source or the API failed, 2 for bad usage.
 */
@Command(name = "labels", mixinStandardHelpOptions = true,
    description = {"Print node-feature-discovery labels of the devices `nodeatlas run` publishes.",
        "The output is an NFD local feature file (features.d format); the mapping is in docs/labels.md. "
            + "--features-dir writes the file for nfd-worker; --apply creates or updates this node's NodeFeature object."})
public final class LabelsCommand implements Callable<Integer> {

  static final ResourceDefinitionContext NODE_FEATURE = new ResourceDefinitionContext.Builder()
      .withGroup("nfd.k8s-sigs.io").withVersion("v1alpha1").withKind("NodeFeature").withPlural("nodefeatures")
      .withNamespaced(true).build();

  /** The label NFD reads a NodeFeature's node from. */
  static final String NODE_NAME_LABEL = "nfd.node.kubernetes.io/node-name";

  @Spec CommandSpec spec;

  @Mixin DiscoveryOptions discovery = new DiscoveryOptions();

  @Option(names = "--discovered", paramLabel = "FILE.json",
      description = "Use a saved `nodeatlas discover -o json` document instead of discovering now.")
  Path discovered;

  @Option(names = "--features-dir", paramLabel = "DIR", defaultValue = "${env:NODEATLAS_FEATURES_DIR}",
      description = "Write the feature file as DIR/" + FeatureFile.NAME + " instead of printing it; nfd-worker reads "
          + "/etc/kubernetes/node-feature-discovery/features.d (env NODEATLAS_FEATURES_DIR).")
  Path featuresDir;

  @Option(names = "--apply", description = "Create or update this node's NodeFeature object (nfd.k8s-sigs.io/v1alpha1) "
      + "named <node>-nodeatlas, through the API server of --kubeconfig or the pod's credentials.")
  boolean apply;

  @Option(names = "--kubeconfig", paramLabel = "FILE", defaultValue = "${env:KUBECONFIG}",
      description = "Kubeconfig file for --apply (default: in-cluster credentials; env KUBECONFIG).")
  Path kubeconfig;

  @Option(names = "--node-name", paramLabel = "NAME", defaultValue = "${env:NODE_NAME}",
      description = "The Kubernetes node name (default: the discovered host name in lower case; env NODE_NAME).")
  String nodeName;

  @Option(names = "--namespace", paramLabel = "NS", defaultValue = "${env:POD_NAMESPACE:-nodeatlas}",
      description = "Namespace of the NodeFeature object (default: ${DEFAULT-VALUE}; env POD_NAMESPACE).")
  String namespace;

  @Override
  public Integer call() throws IOException {
    PrintWriter out = spec.commandLine().getOut();
    PrintWriter err = spec.commandLine().getErr();
    NodeReport report = discovered == null
        ? NodeDiscovery.run(discovery.selectedSources(), discovery.hostContext())
        : SavedReport.readForOption("--discovered", discovered);
    NfdLabels.Result result = NfdLabels.of(report.devices());
    result.warnings().forEach(w -> err.println("nodeatlas: warning: " + w));
    String file = NfdLabels.featureFile(result.labels());
    int status = 0;
    if (featuresDir == null && !apply) {
      out.print(file);
    }
    if (featuresDir != null) {
      status = Math.max(status, write(file, result.labels().size(), out, err));
    }
    if (apply) {
      status = Math.max(status, apply(report, result.labels(), out, err));
    }
    out.flush();
    if (discovered == null && report.anySourceFailed()) {
      // Labels are still written from the sources that ran; the failure is the exit status.
      report.sources().forEach((name, s) -> {
        if (s.isFailed()) {
          err.println("nodeatlas: " + name + ": source failed" + (s.reason().isEmpty() ? "" : ": " + Excerpt.scrub(s.reason())));
        }
      });
      status = 1;
    }
    err.flush();
    return status;
  }

  private int write(String text, int count, PrintWriter out, PrintWriter err) {
    if (!Files.isDirectory(featuresDir)) {
      throw new UsageException(ValueSource.describe(spec.findOption("--features-dir"), featuresDir.toString())
          + " is not a directory");
    }
    try {
      FeatureFile.Written w = FeatureFile.write(featuresDir, text, count);
      out.println((w.changed() ? "wrote " : "unchanged ") + w.file() + " (" + count + " labels)");
      return 0;
    } catch (IOException e) {
      err.println("nodeatlas: cannot write " + featuresDir.resolve(FeatureFile.NAME) + ": " + Messages.reason(e));
      return 1;
    }
  }

  private int apply(NodeReport report, SortedMap<String, String> labels, PrintWriter out, PrintWriter err) throws IOException {
    String node = nodeName != null && !nodeName.isBlank() ? nodeName : hostNode(report);
    if (!Names.isDnsSubdomain(node) || node.length() > 253 - "-nodeatlas".length()) {
      throw new UsageException(ValueSource.describe(spec.findOption("--node-name"), "\"" + node + "\"")
          + " is not a valid Kubernetes node name (a DNS subdomain)");
    }
    if (!Names.isDnsSubdomain(namespace) || namespace.length() > 63 || namespace.contains(".")) {
      throw new UsageException(ValueSource.describe(spec.findOption("--namespace"), "\"" + namespace + "\"")
          + " is not a namespace name (a DNS label)");
    }
    String name = node + "-nodeatlas";
    // NFD's NodeFeature CRD requires spec alone; spec.labels is a map of strings, spec.features (raw
    // features for NodeFeatureRules) is optional and left out.
    Map<String, Object> specMap = new LinkedHashMap<>();
    specMap.put("labels", labels);
    GenericKubernetesResource object = new GenericKubernetesResourceBuilder()
        .withApiVersion(NODE_FEATURE.getGroup() + "/" + NODE_FEATURE.getVersion()).withKind(NODE_FEATURE.getKind())
        .withNewMetadata().withName(name).withNamespace(namespace)
        .addToLabels(NODE_NAME_LABEL, node).addToLabels("app.kubernetes.io/managed-by", "nodeatlas")
        .endMetadata()
        .addToAdditionalProperties("spec", specMap)
        .build();
    try (KubernetesClient client = client()) {
      try {
        GenericKubernetesResource have = client.genericKubernetesResources(NODE_FEATURE).inNamespace(namespace)
            .withName(name).get();
        String verb;
        if (have == null) {
          client.genericKubernetesResources(NODE_FEATURE).inNamespace(namespace).resource(object).create();
          verb = "created";
        } else if (specMap.equals(have.getAdditionalProperties().get("spec"))
            && have.getMetadata().getLabels() != null && node.equals(have.getMetadata().getLabels().get(NODE_NAME_LABEL))) {
          verb = "unchanged";
        } else {
          object.getMetadata().setResourceVersion(have.getMetadata().getResourceVersion());
          client.genericKubernetesResources(NODE_FEATURE).inNamespace(namespace).resource(object).update();
          verb = "updated";
        }
        out.println(verb + " NodeFeature " + namespace + "/" + name + " (" + labels.size() + " labels) on "
            + client.getMasterUrl());
        return 0;
      } catch (KubernetesClientException e) {
        err.println("nodeatlas: cannot apply NodeFeature " + namespace + "/" + name + ": "
            + ApiErrors.describe(e, client.getMasterUrl()));
        return 1;
      }
    }
  }

  /** The client of --kubeconfig, else of the pod's service account. */
  private KubernetesClient client() throws IOException {
    Config config;
    if (kubeconfig != null) {
      if (!Files.isRegularFile(kubeconfig)) {
        throw new UsageException(ValueSource.describe(spec.findOption("--kubeconfig"), kubeconfig.toString()) + " is not a file");
      }
      try {
        config = Config.fromKubeconfig(null, Files.readString(kubeconfig), kubeconfig.toString());
      } catch (RuntimeException e) {
        throw new UsageException("--kubeconfig " + kubeconfig + ": " + Messages.reason(e), e);
      }
    } else if (System.getenv("KUBERNETES_SERVICE_HOST") != null
        && Files.isReadable(Path.of(Config.KUBERNETES_SERVICE_ACCOUNT_TOKEN_PATH))) {
      config = Config.autoConfigure(null);
    } else {
      throw new UsageException("--apply needs --kubeconfig (env KUBECONFIG) or a pod's service account");
    }
    // One short try: this is a command a person or a job runs, not the agent's retry loop.
    config.setConnectionTimeout(5_000);
    config.setRequestTimeout(10_000);
    config.setRequestRetryBackoffLimit(0);
    return new KubernetesClientBuilder().withConfig(config).build();
  }

  private static String hostNode(NodeReport report) {
    String host = report.host() == null ? null : report.host().hostname();
    if (host == null || host.isBlank()) {
      throw new UsageException("the discovered node has no host name; give --node-name");
    }
    return host.trim().toLowerCase(Locale.ROOT);
  }
}
