package io.nodeatlas.cli;

import static org.assertj.core.api.Assertions.assertThat;

import io.nodeatlas.cli.testing.NodeAtlasRun;
import io.nodeatlas.cli.testing.NodeAtlasRun.Result;
import java.nio.file.Files;
import java.nio.file.Path;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/** Issue 31: error messages say what is wrong and where, without a library's or Java's internals. */
class PlainMessagesTest {

  @TempDir Path dir;

  @Test
  void aTruncatedSavedDocumentIsNamedByLineAndColumn() throws Exception {
    Path doc = Files.writeString(dir.resolve("node.json"), "{\"schemaVersion\": \"v1\", \"devices\": [");
    Result r = NodeAtlasRun.run("slices", "--discovered", doc.toString());
    assertThat(r.status()).isEqualTo(2);
    assertThat(r.err()).startsWith("nodeatlas: --discovered " + doc + ": not a nodeatlas discover document: ")
        .contains("(line 1, column").doesNotContain("Source:").doesNotContain("REDACTED").doesNotContain("StreamReadFeature")
        .doesNotContain("Exception");
  }

  @Test
  void aBrokenConfigFileIsNamedByLineAndColumn() throws Exception {
    Path config = Files.writeString(dir.resolve("config.yaml"), "sources: [cpu-numa,\n");
    Result r = NodeAtlasRun.run("discover", "--config", config.toString());
    assertThat(r.status()).isEqualTo(2);
    assertThat(r.err()).startsWith("nodeatlas: config file " + config + " is not valid YAML: ").contains("(line ")
        .doesNotContain("Exception").doesNotContain("snakeyaml");
  }
}
