package io.nodeatlas.cli.discover;

import static io.nodeatlas.cli.testing.NodeAtlasRun.run;
import static io.nodeatlas.cli.testing.NodeAtlasRun.runProcess;
import static org.assertj.core.api.Assertions.assertThat;

import io.nodeatlas.cli.testing.NodeAtlasRun.Result;
import io.nodeatlas.discovery.report.HostInfo;
import io.nodeatlas.discovery.report.NodeReport;
import io.nodeatlas.discovery.report.NodeReportCodec;
import io.nodeatlas.discovery.report.SourceStatus;
import io.nodeatlas.discovery.testing.FixtureTree;
import io.nodeatlas.discovery.topology.Topology;
import java.io.StringReader;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.List;
import java.util.Map;
import javax.xml.parsers.DocumentBuilderFactory;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;
import org.w3c.dom.Document;
import org.xml.sax.InputSource;

/** {@code discover -o tree|svg}, {@code --color} and {@code --discovered}, as a user runs them. */
class DiscoverPicturesCommandTest {

  @TempDir Path root;

  @BeforeEach
  void smallHost() {
    DiscoverCommandTest.smallHost(root);
  }

  private Result discover(String... args) {
    String[] all = new String[args.length + 5];
    System.arraycopy(new String[] {"discover", "--host-root", root.toString(), "--sources", "cpu-numa"}, 0, all, 0, 5);
    System.arraycopy(args, 0, all, 5, args.length);
    return run(all);
  }

  @Test
  void treeDrawsThisHost() {
    Result r = discover("-o", "tree", "--color", "never");
    assertThat(r.status()).as(r.err()).isZero();
    List<String> lines = r.out().lines().toList();
    assertThat(lines.get(0)).startsWith("Machine").contains("fixture-node").contains("kernel 6.8.0-test");
    assertThat(lines).anySatisfy(l -> assertThat(l).contains("Package 0").contains("cpus 0-1"))
        .anySatisfy(l -> assertThat(l).contains("NUMA 0").contains("memory 1Mi (512Ki free)"))
        .anySatisfy(l -> assertThat(l).contains("hugepages 2Mi").contains("4 pages, 4 free"))
        .anySatisfy(l -> assertThat(l).contains("cores").contains("2 × 1 thread"));
    assertThat(r.out()).doesNotContain("\u001b");
  }

  @Test
  void colourIsAFlagWithTheUsualValues() {
    assertThat(discover("-o", "tree", "--color", "always").out()).contains("\u001b[1mMachine\u001b[0m");
    // The test's output is no terminal: auto means none.
    assertThat(discover("-o", "tree").out()).doesNotContain("\u001b");
    Result bad = discover("-o", "tree", "--color", "sometimes");
    assertThat(bad.status()).isEqualTo(2);
    assertThat(bad.err()).contains("--color").contains("sometimes");
  }

  @Test
  void svgDrawsThisHost() throws Exception {
    Result r = discover("-o", "svg");
    assertThat(r.status()).as(r.err()).isZero();
    DocumentBuilderFactory f = DocumentBuilderFactory.newInstance();
    f.setNamespaceAware(true);
    f.setFeature("http://apache.org/xml/features/disallow-doctype-decl", true);
    Document doc = f.newDocumentBuilder().parse(new InputSource(new StringReader(r.out())));
    assertThat(doc.getDocumentElement().getLocalName()).isEqualTo("svg");
    assertThat(r.out()).contains(">NUMA 0 · package 0</text>").contains(">memory 1Mi (512Ki free)</text>");
  }

  @Test
  void aSavedReportIsDrawnInsteadOfThisHostAndItsFailedSourcesDoNotFailTheDrawing() throws Exception {
    NodeReport saved = new NodeReport(NodeReport.SCHEMA_VERSION, new HostInfo("elsewhere", "5.15.0", "/"),
        Topology.EMPTY, List.of(), List.of(), Map.of("gpu", SourceStatus.failed("NVML missing")));
    Path file = root.resolve("saved.json");
    Files.writeString(file, new NodeReportCodec().toJson(saved));
    for (String format : List.of("tree", "svg", "json")) {
      Result r = discover("--discovered", file.toString(), "-o", format, "--color", "never");
      assertThat(r.status()).as(format + ": " + r.err()).isZero();
      assertThat(r.out()).contains("elsewhere").doesNotContain("fixture-node");
      assertThat(r.err()).isEmpty();
    }
    assertThat(discover("--discovered", file.toString(), "-o", "tree").out())
        .contains("Sources").contains("gpu").contains("failed");
    Result missing = discover("--discovered", root.resolve("nope.json").toString(), "-o", "tree");
    assertThat(missing.status()).isEqualTo(2);
    assertThat(missing.err()).contains("--discovered").contains("no such file");
  }

  @Test
  void envTwinsAndNoColor() throws Exception {
    // NO_COLOR only turns off auto; an explicit choice, flag or env twin, wins (no-color.org).
    Result always = runProcess(Map.of("NODEATLAS_COLOR", "always", "NO_COLOR", "1", "NODEATLAS_WHOLE_PCI", "true"),
        null, "discover", "--host-root", root.toString(), "--sources", "cpu-numa", "-o", "tree");
    assertThat(always.status()).as(always.err()).isZero();
    assertThat(always.out()).contains("\u001b[");
    Result auto = runProcess(Map.of("NO_COLOR", "1", "TERM", "xterm-256color", "NODEATLAS_FORMAT", "tree",
        "NODEATLAS_CACHES", "true"), null, "discover", "--host-root", root.toString(), "--sources", "cpu-numa");
    assertThat(auto.status()).as(auto.err()).isZero();
    assertThat(auto.out()).startsWith("Machine").doesNotContain("\u001b");
  }

  @Test
  void helpNamesTheFlagsAndTheirEnvTwins() {
    Result r = run("discover", "--help");
    assertThat(r.out()).contains("json, yaml, table, tree or svg")
        .contains("--color=WHEN").contains("NODEATLAS_COLOR")
        .contains("--caches").contains("NODEATLAS_CACHES")
        .contains("--whole-pci").contains("NODEATLAS_WHOLE_PCI")
        .contains("--discovered=FILE.json");
  }
}
