package io.nodeatlas.cli.examples;

import static org.assertj.core.api.Assertions.assertThat;

import io.nodeatlas.cli.testing.NodeAtlasRun;
import io.nodeatlas.cli.testing.NodeAtlasRun.Result;
import io.nodeatlas.cli.testing.Repo;
import io.nodeatlas.discovery.model.ContainerEdits;
import io.nodeatlas.discovery.model.Device;
import io.nodeatlas.discovery.model.Names;
import io.nodeatlas.discovery.model.Quantity;
import io.nodeatlas.discovery.report.HostInfo;
import io.nodeatlas.discovery.report.NodeReport;
import io.nodeatlas.discovery.report.NodeReportCodec;
import io.nodeatlas.discovery.report.SourceStatus;
import io.nodeatlas.discovery.topology.Topology;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.regex.Matcher;
import java.util.regex.Pattern;
import org.junit.jupiter.api.Test;

/**
 * {@code examples/extended-resources/README.md} as written: every {@code ./nodeatlas} command there runs from
 * the repository root and prints exactly the text block that follows it (exit status 0 when every claim is
 * satisfiable, else 1). Also keeps {@code examples/extended-resources/nodes/cores-01.json}, the saved node in cores mode, current.
 */
class ExtendedResourceExamplesTest {

  static final Path ROOT = Repo.root();
  static final Path README = ROOT.resolve("examples/extended-resources/README.md");

  /** One Intel socket of 8 cores with 2 threads each, as {@code --cpu-devices=cores} publishes it. */
  static NodeReport coresNode() {
    List<Device> d = new ArrayList<>();
    for (int core = 0; core < 8; core++) {
      String cpus = core + "," + (core + 8);
      d.add(Device.builder("cpu-core-0-" + core, "cpu-numa")
          .attribute(ExampleNodes.TYPE, "cpu")
          .attribute(Names.NUMA_NODE, 0)
          .attribute(Names.ours("socket"), 0)
          .attribute(Names.ours("coreID"), core)
          .attribute(Names.ours("cpuCount"), 2)
          .attribute(Names.ours("reservedCPUs"), 0)
          .attribute(Names.ours("threadsPerCore"), 2)
          .attribute(Names.ours("smt"), true)
          .attribute(Names.ours("architecture"), "x86_64")
          .attribute(Names.ours("vendor"), "intel")
          .attribute(Names.ours("cpuModel"), "Intel(R) Xeon(R) Gold 6434")
          .capacity(Names.ours("cpu"), Quantity.of(2))
          .containerEdits(ContainerEdits.builder().env("NODEATLAS_CPUS=" + cpus).env("NODEATLAS_NUMA_NODE=0").build())
          .build());
    }
    return new NodeReport(NodeReport.SCHEMA_VERSION, new HostInfo("cores-01", "6.8.0-example", "/"), Topology.EMPTY, d,
        List.of(), Map.of("cpu-numa", SourceStatus.OK));
  }

  @Test
  void theSavedCoresNodeIsCurrent() throws Exception {
    Path file = ROOT.resolve("examples/extended-resources/nodes/cores-01.json");
    String doc = new NodeReportCodec().toJson(coresNode());
    if (Boolean.getBoolean("nodeatlas.examples.write")) {
      Files.writeString(file, doc);
    }
    assertThat(file).as("regenerate with -Dnodeatlas.examples.write=true").hasContent(doc);
  }

  /** The names of deploy/deviceclasses.yaml are unique, valid extended resource names, and the README's table. */
  @Test
  void theDeployedClassesCarryTheNamesTheReadmeLists() throws Exception {
    var classes = new io.nodeatlas.match.claims.ClaimDocumentParser()
        .parseFile(ROOT.resolve("deploy/deviceclasses.yaml")).deviceClasses();
    Map<String, String> named = new java.util.TreeMap<>();
    classes.stream().filter(c -> c.extendedResourceName() != null)
        .forEach(c -> assertThat(named.put(c.extendedResourceName(), c.name())).as("unique").isNull());
    assertThat(named).containsExactlyInAnyOrderEntriesOf(Map.of("nodeatlas.io/gpu", "nodeatlas-gpu",
        "nodeatlas.io/amd-gpu", "nodeatlas-amd-gpu", "nodeatlas.io/intel-gpu", "nodeatlas-intel-gpu",
        "nodeatlas.io/rdma", "nodeatlas-rdma", "nodeatlas.io/cpu-core", "nodeatlas-cpu-core"));
    String readme = Files.readString(README);
    named.forEach((name, cls) -> {
      // An extended resource name: a domain other than kubernetes.io, a slash, a name (core/v1 validation).
      assertThat(name).matches("[a-z0-9.-]+/[a-z0-9]([-a-z0-9]*[a-z0-9])?").doesNotContain("kubernetes.io/");
      assertThat(readme).contains("| `" + name + "` | `" + cls + "` |");
    });
  }

  record Example(List<String> args, String expected) {}

  /** Each {@code ```sh} block of one {@code ./nodeatlas} line and the {@code ```text} block after it. */
  static List<Example> examples() throws Exception {
    String text = Files.readString(README);
    Matcher m = Pattern.compile("```sh\n(\\./nodeatlas [^\n]*)\n```\n\n```text\n(.*?)```", Pattern.DOTALL).matcher(text);
    List<Example> out = new ArrayList<>();
    while (m.find()) {
      List<String> args = new ArrayList<>();
      for (String word : m.group(1).substring("./nodeatlas ".length()).split("\\s+")) {
        args.add(word.contains("/") ? ROOT.resolve(word).toString() : word);
      }
      out.add(new Example(args, m.group(2)));
    }
    return out;
  }

  @Test
  void everyCommandPrintsWhatTheReadmeShows() throws Exception {
    List<Example> examples = examples();
    assertThat(examples).hasSize(5);
    StringBuilder differences = new StringBuilder();
    for (Example e : examples) {
      Result r = NodeAtlasRun.run(e.args().toArray(String[]::new));
      int status = e.expected().contains("NOT satisfiable") ? 1 : 0;
      if (!r.out().equals(e.expected()) || r.status() != status) {
        differences.append(String.join(" ", e.args())).append("\nexit ").append(r.status()).append(", printed:\n")
            .append(r.out()).append(r.err()).append("\n");
      }
    }
    assertThat(differences.toString()).isEmpty();
  }
}
