package io.nodeatlas.cli.config;

import static org.assertj.core.api.Assertions.assertThat;

import io.nodeatlas.cli.testing.NodeAtlasRun;
import io.nodeatlas.cli.testing.NodeAtlasRun.Result;
import io.nodeatlas.cli.testing.Repo;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.List;
import java.util.Map;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * Issue 31, "one configuration for every command": the config file {@code run} reads
 * ({@code /etc/nodeatlas/config.yaml}, {@code --config}, {@code NODEATLAS_CONFIG}) is read by every
 * command that reads the host, so {@code slices} prints what {@code run} publishes; and an error
 * caused by an environment variable or a key of the file names that, not a flag nobody typed.
 */
class OneConfigurationTest {

  static final Path HGX = Repo.root().resolve("examples/nodes/hgx-01.json");

  @TempDir Path dir;

  private Path config(String text) throws Exception {
    Path file = dir.resolve("config-" + Math.abs(text.hashCode()) + ".yaml");
    Files.writeString(file, text);
    return file;
  }

  @Test
  void slicesPrintsWhatRunWouldPublishUnderTheSameFile() throws Exception {
    // A node's file: run's keys, some of which (httpPort) slices has no use for.
    Path file = config("driverName: gpu.example.com\nnodeName: node-a\nhttpPort: 9090\nresyncInterval: 5m\n");
    Result r = NodeAtlasRun.run("slices", "--config", file.toString(), "--discovered", HGX.toString());
    assertThat(r.status()).as(r.err()).isZero();
    assertThat(r.out()).contains("driver: \"gpu.example.com\"").contains("nodeName: \"node-a\"")
        .doesNotContain("driver: \"nodeatlas.io\"");
  }

  @Test
  void labelsTakeTheNodeAndFeatureDirectoryOfTheFile() throws Exception {
    Path featuresD = Files.createDirectories(dir.resolve("features.d"));
    Path file = config("featuresDir: " + featuresD + "\nnodeName: node-a\nhttpPort: 9090\n");
    Result r = NodeAtlasRun.run("labels", "--config", file.toString(), "--discovered", HGX.toString());
    assertThat(r.status()).as(r.err()).isZero();
    assertThat(r.out()).startsWith("wrote " + featuresD.resolve("nodeatlas"));
  }

  @Test
  void aFlagBeatsTheFile() throws Exception {
    Path file = config("driverName: gpu.example.com\nnodeName: node-a\n");
    Result r = NodeAtlasRun.run("slices", "--config", file.toString(), "--discovered", HGX.toString(),
        "--driver-name", "flag.example.com");
    assertThat(r.status()).as(r.err()).isZero();
    assertThat(r.out()).contains("driver: \"flag.example.com\"").doesNotContain("gpu.example.com")
        .contains("nodeName: \"node-a\"");
  }

  @Test
  void theEnvironmentBeatsTheFileAndNamesTheFileItself() throws Exception {
    Path file = config("driverName: gpu.example.com\nnodeName: node-a\n");
    Result r = NodeAtlasRun.runProcess(Map.of("NODEATLAS_CONFIG", file.toString(),
        "NODEATLAS_DRIVER_NAME", "env.example.com"), null, "slices", "--discovered", HGX.toString());
    assertThat(r.status()).as(r.err()).isZero();
    assertThat(r.out()).contains("driver: \"env.example.com\"").contains("nodeName: \"node-a\"");
  }

  @Test
  void everyCommandThatReadsTheHostRejectsAMisspeltKeyWithTheKeyItMeant() throws Exception {
    Path file = config("driverName: gpu.example.com\ndrivrName: typo.example.com\n");
    for (List<String> command : List.of(List.of("discover"), List.of("slices"), List.of("match", "-f", "x.yaml"),
        List.of("cdi", "generate", "--dry-run"), List.of("labels"), List.of("run"))) {
      List<String> args = new java.util.ArrayList<>(command);
      args.addAll(List.of("--config", file.toString()));
      Result r = NodeAtlasRun.run(args.toArray(String[]::new));
      assertThat(r.status()).as(command + ": " + r.err()).isEqualTo(2);
      assertThat(r.err()).as(command.toString())
          .contains("config file " + file + ": unknown key \"drivrName\"; did you mean \"driverName\"?");
    }
  }

  @Test
  void cdiGenerateWritesWhereRunKeepsItsSpecs() throws Exception {
    Path cdi = dir.resolve("run-cdi");
    Path file = config("cdiRoot: " + cdi + "\n");
    Result r = NodeAtlasRun.run("cdi", "generate", "--config", file.toString(), "--discovered", HGX.toString());
    assertThat(r.status()).as(r.err()).isZero();
    assertThat(r.out()).contains("wrote " + cdi.resolve(""));
    try (var files = Files.list(cdi)) {
      assertThat(files.toList()).isNotEmpty();
    }
  }

  @Test
  void aBadValueInTheFileNamesTheKeyAndTheFile() throws Exception {
    Path file = config("hostRoot: " + dir.resolve("no-such-root") + "\n");
    // Through the environment and with a plain discover line: the one the hot path would otherwise take.
    Result r = NodeAtlasRun.runProcess(Map.of("NODEATLAS_CONFIG", file.toString()), null, "discover");
    assertThat(r.status()).isEqualTo(2);
    assertThat(r.err().strip()).isEqualTo("nodeatlas: hostRoot: " + dir.resolve("no-such-root") + " (config file "
        + file + " from env NODEATLAS_CONFIG) is not a directory");
  }

  @Test
  void anErrorFromAnEnvironmentVariableNamesTheVariableNotTheFlag() throws Exception {
    Path missing = dir.resolve("no-such-root");
    Result root = NodeAtlasRun.runProcess(Map.of("NODEATLAS_HOST_ROOT", missing.toString()), null, "discover");
    assertThat(root.status()).isEqualTo(2);
    assertThat(root.err().strip()).isEqualTo("nodeatlas: NODEATLAS_HOST_ROOT=" + missing + " (environment) is not a directory");

    Result format = NodeAtlasRun.runProcess(Map.of("NODEATLAS_FORMAT", "xml"), null, "discover");
    assertThat(format.status()).isEqualTo(2);
    assertThat(format.err()).contains("NODEATLAS_FORMAT=xml (environment)").doesNotContain("'-o'").doesNotContain("--format");

    Result sources = NodeAtlasRun.runProcess(Map.of("NODEATLAS_SOURCES", "cpu-numa,gpx"), null, "discover");
    assertThat(sources.status()).isEqualTo(2);
    assertThat(sources.err()).contains("unknown source 'gpx'").contains("NODEATLAS_SOURCES=cpu-numa,gpx (environment)");

    Path notADir = Files.writeString(dir.resolve("cdi-file"), "a file");
    Result cdi = NodeAtlasRun.runProcess(Map.of("NODEATLAS_CDI_DIR", notADir.toString()), null, "cdi", "generate",
        "--discovered", HGX.toString());
    assertThat(cdi.status()).isEqualTo(1);
    assertThat(cdi.err()).contains("cannot write CDI specs to NODEATLAS_CDI_DIR=" + notADir + " (environment): ");

    Result port = NodeAtlasRun.runProcess(Map.of("NODEATLAS_HTTP_PORT", "lots"), null, "run", "--standalone");
    assertThat(port.status()).isEqualTo(2);
    assertThat(port.err()).contains("NODEATLAS_HTTP_PORT=lots (environment)").contains("is not a port")
        .doesNotContain("option '--http-port'");
  }

  @Test
  void helpOfEveryCommandThatReadsTheHostOffersConfig() {
    for (List<String> command : List.of(List.of("discover"), List.of("slices"), List.of("match"), List.of("cdi", "generate"),
        List.of("labels"), List.of("run"))) {
      List<String> args = new java.util.ArrayList<>(command);
      args.add("--help");
      Result r = NodeAtlasRun.run(args.toArray(String[]::new));
      assertThat(r.out()).as(command.toString()).contains("--config=FILE").contains("env NODEATLAS_CONFIG")
          .contains("/etc/nodeatlas/config.yaml");
    }
  }
}
