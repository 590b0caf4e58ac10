package io.nodeatlas.cli.labels;

import static org.assertj.core.api.Assertions.assertThat;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import io.fabric8.kubernetes.api.model.GenericKubernetesResource;
import io.fabric8.kubernetes.client.KubernetesClient;
import io.fabric8.kubernetes.client.server.mock.KubernetesCrudDispatcher;
import io.fabric8.kubernetes.client.server.mock.KubernetesMockServer;
import io.fabric8.mockwebserver.Context;
import io.fabric8.mockwebserver.MockWebServer;
import io.nodeatlas.cli.testing.NodeAtlasRun;
import io.nodeatlas.cli.testing.NodeAtlasRun.Result;
import io.nodeatlas.cli.testing.Repo;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.HashMap;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.regex.Pattern;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * {@code nodeatlas labels}: NFD labels from the same discovery as the slices, as a features.d file,
 * written for nfd-worker, and as a NodeFeature object through a fake API server (fabric8's CRUD mock).
 */
class LabelsCommandTest {

  static final Path NODES = Repo.root().resolve("examples/nodes");
  static final String HGX = NODES.resolve("hgx-01.json").toString();

  /** A Kubernetes label: prefix / name of at most 63, value of at most 63, both [A-Za-z0-9._-] starting and ending alphanumeric. */
  static final Pattern LABEL = Pattern.compile(
      "nodeatlas\\.io/([A-Za-z0-9]([-A-Za-z0-9_.]{0,61}[A-Za-z0-9])?)=([A-Za-z0-9]([-A-Za-z0-9_.]{0,61}[A-Za-z0-9])?)");

  @TempDir Path dir;

  static Map<String, String> parse(String featureFile) {
    Map<String, String> out = new LinkedHashMap<>();
    for (String line : featureFile.lines().toList()) {
      if (line.startsWith("#") || line.isBlank()) {
        continue;
      }
      assertThat(line).as("an NFD label line").matches(LABEL);
      out.put(line.substring(0, line.indexOf('=')), line.substring(line.indexOf('=') + 1));
    }
    return out;
  }

  @Test
  void printsTheFeatureFileOfTheMapping() {
    Result r = NodeAtlasRun.run("labels", "--discovered", HGX);
    assertThat(r.status()).as(r.err()).isZero();
    assertThat(r.out()).startsWith("# nodeatlas labels: ");
    assertThat(parse(r.out())).containsExactlyEntriesOf(new java.util.TreeMap<>(Map.ofEntries(
        Map.entry("nodeatlas.io/cpu.architecture", "x86_64"),
        Map.entry("nodeatlas.io/cpu.count", "128"),
        Map.entry("nodeatlas.io/cpu.product", "Intel-R-Xeon-R-Platinum-8480"),
        Map.entry("nodeatlas.io/cpu.vendor", "intel"),
        Map.entry("nodeatlas.io/gpu.architecture", "hopper"),
        Map.entry("nodeatlas.io/gpu.count", "8"),
        Map.entry("nodeatlas.io/gpu.memory-mib", "81559"),
        Map.entry("nodeatlas.io/gpu.product", "NVIDIA-H100-80GB-HBM3"),
        Map.entry("nodeatlas.io/gpu.vendor", "nvidia"),
        Map.entry("nodeatlas.io/hugepages-1Gi.memory-mib", "32768"),
        Map.entry("nodeatlas.io/hugepages-2Mi.memory-mib", "16384"),
        Map.entry("nodeatlas.io/rdma.count", "3"),
        Map.entry("nodeatlas.io/rdma.infiniband", "true"),
        Map.entry("nodeatlas.io/rdma.roce", "true"))));
  }

  @Test
  void theLabelsNeverDisagreeWithTheSlices() throws Exception {
    for (String node : List.of("hgx-01.json", "arm-01.json")) {
      String doc = NODES.resolve(node).toString();
      Map<String, String> labels = parse(NodeAtlasRun.run("labels", "--discovered", doc).out());
      Result slices = NodeAtlasRun.run("slices", "--discovered", doc, "-o", "json");
      Map<String, Integer> byType = new HashMap<>();
      long cpus = 0;
      for (JsonNode slice : new ObjectMapper().readTree(slices.out()).get("items")) {
        for (JsonNode device : slice.at("/spec/devices")) {
          String type = device.at("/attributes/nodeatlas.io~1type/string").asText();
          byType.merge(type, 1, Integer::sum);
          if (type.equals("cpu")) {
            cpus += device.at("/attributes/nodeatlas.io~1cpuCount/int").asLong();
          }
        }
      }
      assertThat(labels.get("nodeatlas.io/gpu.count")).as(node)
          .isEqualTo(byType.containsKey("gpu") ? String.valueOf(byType.get("gpu")) : null);
      assertThat(labels.get("nodeatlas.io/rdma.count")).as(node)
          .isEqualTo(byType.containsKey("rdma") ? String.valueOf(byType.get("rdma")) : null);
      assertThat(labels.get("nodeatlas.io/cpu.count")).as(node).isEqualTo(String.valueOf(cpus));
    }
  }

  @Test
  void writesTheFileForNfdWorkerAndSaysWhenItIsUnchanged() throws Exception {
    Path featuresD = Files.createDirectories(dir.resolve("features.d"));
    Result first = NodeAtlasRun.run("labels", "--discovered", HGX, "--features-dir", featuresD.toString());
    assertThat(first.status()).as(first.err()).isZero();
    assertThat(first.out()).isEqualTo("wrote " + featuresD.resolve("nodeatlas") + " (14 labels)\n");
    assertThat(featuresD.resolve("nodeatlas")).hasContent(NodeAtlasRun.run("labels", "--discovered", HGX).out());
    Result again = NodeAtlasRun.run("labels", "--discovered", HGX, "--features-dir", featuresD.toString());
    assertThat(again.out()).isEqualTo("unchanged " + featuresD.resolve("nodeatlas") + " (14 labels)\n");
    // No temporary file left behind (NFD would skip a dot file anyway).
    try (var files = Files.list(featuresD)) {
      assertThat(files.map(p -> p.getFileName().toString()).toList()).containsExactly("nodeatlas");
    }
  }

  @Test
  void aHostileProductNameBecomesALabelValueOrNothing() {
    assertThat(NfdLabels.labelValue("NVIDIA H100 80GB HBM3")).isEqualTo("NVIDIA-H100-80GB-HBM3");
    assertThat(NfdLabels.labelValue("  (weird)  name!! ")).isEqualTo("weird-name");
    assertThat(NfdLabels.labelValue("x".repeat(100) + " y")).hasSize(63);
    assertThat(NfdLabels.labelValue("a" + "-".repeat(62) + "b")).isEqualTo("a");
    assertThat(NfdLabels.labelValue("\u202e\n")).isEmpty();
  }

  private static Path kubeconfig(Path dir, String server) throws Exception {
    return Files.writeString(dir.resolve("kubeconfig"), """
        apiVersion: v1
        kind: Config
        clusters: [{name: c, cluster: {server: "%s"}}]
        users: [{name: u, user: {token: t}}]
        contexts: [{name: x, context: {cluster: c, user: u}}]
        current-context: x
        """.formatted(server));
  }

  @Test
  void applyCreatesThenUpdatesThisNodesNodeFeature() throws Exception {
    KubernetesMockServer api = new KubernetesMockServer(new Context(), new MockWebServer(), new HashMap<>(),
        new KubernetesCrudDispatcher(), false);
    api.init();
    try (KubernetesClient client = api.createClient()) {
      String server = client.getConfiguration().getMasterUrl();
      Path kubeconfig = kubeconfig(dir, server);
      Result created = NodeAtlasRun.run("labels", "--discovered", HGX, "--apply", "--kubeconfig", kubeconfig.toString(),
          "--node-name", "node-a", "--namespace", "nodeatlas");
      assertThat(created.status()).as(created.err()).isZero();
      assertThat(created.out()).startsWith("created NodeFeature nodeatlas/node-a-nodeatlas (14 labels) on " + server);

      GenericKubernetesResource nf = client.genericKubernetesResources(LabelsCommand.NODE_FEATURE).inNamespace("nodeatlas")
          .withName("node-a-nodeatlas").get();
      assertThat(nf.getApiVersion()).isEqualTo("nfd.k8s-sigs.io/v1alpha1");
      assertThat(nf.getKind()).isEqualTo("NodeFeature");
      assertThat(nf.getMetadata().getLabels()).containsEntry("nfd.node.kubernetes.io/node-name", "node-a");
      @SuppressWarnings("unchecked")
      Map<String, Object> spec = (Map<String, Object>) nf.getAdditionalProperties().get("spec");
      assertThat(spec.get("labels")).isEqualTo(new java.util.TreeMap<>(parse(NodeAtlasRun.run("labels", "--discovered", HGX).out())));

      Result same = NodeAtlasRun.run("labels", "--discovered", HGX, "--apply", "--kubeconfig", kubeconfig.toString(),
          "--node-name", "node-a", "--namespace", "nodeatlas");
      assertThat(same.out()).startsWith("unchanged NodeFeature nodeatlas/node-a-nodeatlas");

      // Another node description: the same object, updated.
      Result arm = NodeAtlasRun.run("labels", "--discovered", NODES.resolve("arm-01.json").toString(), "--apply",
          "--kubeconfig", kubeconfig.toString(), "--node-name", "node-a", "--namespace", "nodeatlas");
      assertThat(arm.status()).as(arm.err()).isZero();
      assertThat(arm.out()).startsWith("updated NodeFeature nodeatlas/node-a-nodeatlas (5 labels)");
      nf = client.genericKubernetesResources(LabelsCommand.NODE_FEATURE).inNamespace("nodeatlas").withName("node-a-nodeatlas").get();
      @SuppressWarnings("unchecked")
      Map<String, Object> labels = (Map<String, Object>) ((Map<String, Object>) nf.getAdditionalProperties().get("spec")).get("labels");
      assertThat(labels).containsEntry("nodeatlas.io/cpu.architecture", "aarch64").doesNotContainKey("nodeatlas.io/gpu.count");
    } finally {
      api.destroy();
    }
  }

  @Test
  void anUnreachableApiServerIsNamedByItsUrl() throws Exception {
    int port;
    try (java.net.ServerSocket s = new java.net.ServerSocket(0, 1, java.net.InetAddress.getLoopbackAddress())) {
      port = s.getLocalPort();
    }
    Path kubeconfig = kubeconfig(dir, "http://127.0.0.1:" + port);
    Result r = NodeAtlasRun.run("labels", "--discovered", HGX, "--apply", "--kubeconfig", kubeconfig.toString(),
        "--node-name", "node-a");
    assertThat(r.status()).isEqualTo(1);
    assertThat(r.err()).startsWith("nodeatlas: cannot apply NodeFeature nodeatlas/node-a-nodeatlas: no answer from http://127.0.0.1:"
        + port + "/: ").doesNotContain("Exception");
  }
}
