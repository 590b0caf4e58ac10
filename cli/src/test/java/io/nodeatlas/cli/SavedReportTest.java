package io.nodeatlas.cli;

import static io.nodeatlas.cli.testing.NodeAtlasRun.run;
import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import io.nodeatlas.cli.testing.NodeAtlasRun.Result;
import io.nodeatlas.discovery.report.HostInfo;
import io.nodeatlas.discovery.report.NodeReport;
import io.nodeatlas.discovery.report.NodeReportCodec;
import io.nodeatlas.discovery.report.SourceStatus;
import io.nodeatlas.discovery.topology.Topology;
import java.io.RandomAccessFile;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.List;
import java.util.Map;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * The one reader of saved {@code discover} documents, and the three options that use it: each bad
 * file is exit status 2 with one line naming the option, the file and the reason.
 */
class SavedReportTest {

  @TempDir Path dir;

  private Path saved() throws Exception {
    NodeReport report = new NodeReport(NodeReport.SCHEMA_VERSION, new HostInfo("n", "6.8.0", "/"), Topology.EMPTY,
        List.of(), List.of(), Map.of("cpu-numa", SourceStatus.OK));
    return Files.writeString(dir.resolve("node.json"), new NodeReportCodec().toJson(report));
  }

  @Test
  void readsWhatDiscoverWrites() throws Exception {
    NodeReport read = SavedReport.read("--discovered", saved());
    assertThat(read.host().hostname()).isEqualTo("n");
    assertThat(read.sources()).containsEntry("cpu-numa", SourceStatus.OK);
  }

  @Test
  void refusesEachKindOfBadFileWithOptionFileAndReason() throws Exception {
    Path missing = dir.resolve("missing.json");
    assertThatThrownBy(() -> SavedReport.read("--discovered", missing))
        .hasMessage("--discovered " + missing + ": no such file");

    Path huge = dir.resolve("huge.json");
    try (RandomAccessFile f = new RandomAccessFile(huge.toFile(), "rw")) {
      f.setLength(SavedReport.MAX_BYTES + 1); // sparse: costs no disk
    }
    assertThatThrownBy(() -> SavedReport.read("--replay-report", huge))
        .hasMessage("--replay-report " + huge + ": larger than 16 MiB; not a saved discover document");

    Path latin1 = Files.write(dir.resolve("latin1.json"), new byte[] {'{', '"', (byte) 0xe9, '"', '}'});
    assertThatThrownBy(() -> SavedReport.read("--discovered", latin1))
        .hasMessage("--discovered " + latin1 + ": not UTF-8 text");

    Path old = Files.writeString(dir.resolve("old.json"), "{\"schemaVersion\": \"v0\"}");
    assertThatThrownBy(() -> SavedReport.read("--discovered", old))
        .hasMessageStartingWith("--discovered " + old + ": unsupported schemaVersion \"v0\"");

    Path notJson = Files.writeString(dir.resolve("table.txt"), "HOST n  KERNEL 6.8\n");
    assertThatThrownBy(() -> SavedReport.read("--discovered", notJson))
        .hasMessageStartingWith("--discovered " + notJson + ": ");

    assertThatThrownBy(() -> SavedReport.read("--discovered", dir))
        .hasMessageStartingWith("--discovered " + dir + ": cannot read");
  }

  @Test
  void everyOptionThatTakesASavedDocumentIsBadUsageOnABadOne() throws Exception {
    Path old = Files.writeString(dir.resolve("old.json"), "{\"schemaVersion\": \"v0\"}");
    Path claim = Files.writeString(dir.resolve("claim.yaml"), """
        apiVersion: resource.k8s.io/v1
        kind: ResourceClaim
        metadata: {name: one}
        spec: {devices: {requests: [{name: gpu, exactly: {deviceClassName: gpu.nodeatlas.io}}]}}
        """);
    List<List<String>> commands = List.of(
        List.of("cdi", "generate", "--discovered", old.toString(), "--output-dir", dir.resolve("cdi").toString()),
        List.of("match", "-f", claim.toString(), "--discovered", old.toString()),
        List.of("run", "--standalone", "--replay-report", old.toString(), "--state-dir", dir.resolve("state").toString(),
            "--cdi-root", dir.resolve("cdi").toString(), "--config", Files.writeString(dir.resolve("c.yaml"), "").toString()));
    for (List<String> command : commands) {
      Result r = run(command.toArray(String[]::new));
      assertThat(r.status()).as(command + r.err()).isEqualTo(2);
      String option = command.get(0).equals("run") ? "--replay-report" : "--discovered";
      assertThat(r.err()).as(command.toString())
          .startsWith("nodeatlas: " + option + " " + old + ": unsupported schemaVersion \"v0\"");
      assertThat(dir.resolve("cdi")).as("nothing written").doesNotExist();
    }
  }
}
