package io.nodeatlas.cli.discover;

import static org.assertj.core.api.Assertions.assertThat;

import com.fasterxml.jackson.databind.ObjectMapper;
import com.fasterxml.jackson.databind.SerializationFeature;
import com.fasterxml.jackson.databind.cfg.JsonNodeFeature;
import com.fasterxml.jackson.databind.json.JsonMapper;
import io.nodeatlas.cli.NodeAtlasCommand;
import io.nodeatlas.cli.testing.Repo;
import io.nodeatlas.discovery.host.HostContext;
import io.nodeatlas.discovery.host.HostFs;
import io.nodeatlas.discovery.report.NodeReport;
import io.nodeatlas.discovery.report.NodeReportCodec;
import io.nodeatlas.discovery.engine.NodeDiscovery;
import io.nodeatlas.discovery.testing.Conformance;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.List;
import java.util.concurrent.TimeUnit;
import java.util.stream.Stream;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * {@code discover -o json} writes with Jackson's streaming generator; the document must stay the bytes
 * the object mapper wrote before (sorted properties, Jackson's default pretty printer). Compared on real
 * reports: every installed source run over each hwloc snapshot of the conformance corpus, and the saved
 * example nodes read back.
 */
class JsonOutputTest {

  /** The mapper {@code toJson} used before the streaming writer: the reference. */
  private static final ObjectMapper REFERENCE = JsonMapper.builder()
      .enable(SerializationFeature.INDENT_OUTPUT)
      .enable(JsonNodeFeature.WRITE_PROPERTIES_SORTED)
      .build();

  private final NodeReportCodec codec = new NodeReportCodec();

  private void assertSameAsMapper(String what, NodeReport report) throws Exception {
    String reference = REFERENCE.writeValueAsString(codec.toTree(report)) + "\n";
    assertThat(codec.toJson(report)).as(what).isEqualTo(reference);
  }

  @Test
  void everyHwlocSnapshotIsWrittenAsTheMapperWroteIt(@TempDir Path work) throws Exception {
    Path corpus = Conformance.corpus("hwloc-linux");
    List<Path> tarballs;
    try (Stream<Path> s = Files.list(corpus)) {
      tarballs = s.filter(p -> p.getFileName().toString().endsWith(".tar.bz2")).sorted().toList();
    }
    assertThat(tarballs).isNotEmpty();
    for (Path tarball : tarballs) {
      Path dir = Files.createDirectories(work.resolve(tarball.getFileName().toString().replace(".tar.bz2", "")));
      Process tar = new ProcessBuilder("tar", "-xjf", tarball.toString(), "-C", dir.toString()).inheritIO().start();
      assertThat(tar.waitFor(120, TimeUnit.SECONDS) && tar.exitValue() == 0).as("tar " + tarball).isTrue();
      Path root;
      try (Stream<Path> s = Files.list(dir)) {
        root = s.filter(Files::isDirectory).findFirst().orElseThrow();
      }
      NodeReport report = NodeDiscovery.run(NodeAtlasCommand.installedSources().select("all"),
          HostContext.of(HostFs.of(root)));
      assertThat(report.devices()).as(tarball + " devices").isNotEmpty();
      assertSameAsMapper(tarball.getFileName().toString(), report);
    }
  }

  @Test
  void savedExampleNodesAreWrittenAsTheMapperWroteThem() throws Exception {
    List<Path> docs;
    try (Stream<Path> s = Files.list(Repo.root().resolve("examples/nodes"))) {
      docs = s.filter(p -> p.toString().endsWith(".json")).sorted().toList();
    }
    assertThat(docs).isNotEmpty();
    for (Path doc : docs) {
      String text = Files.readString(doc);
      NodeReport report = codec.fromJson(text);
      assertSameAsMapper(doc.toString(), report);
      assertThat(codec.toJson(report)).as(doc + " unchanged").isEqualTo(text);
    }
  }
}
