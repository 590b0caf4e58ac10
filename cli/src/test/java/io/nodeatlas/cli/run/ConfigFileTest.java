package io.nodeatlas.cli.run;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import io.nodeatlas.cli.ConfigFile;
import io.nodeatlas.cli.NodeAtlasCommand;
import io.nodeatlas.cli.UsageException;
import io.nodeatlas.cli.testing.EchoSource;
import io.nodeatlas.discovery.host.SourceOptions;
import io.nodeatlas.discovery.engine.DiscoverySources;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.List;
import java.util.Map;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;
import picocli.CommandLine;
import picocli.CommandLine.Model.OptionSpec;

class ConfigFileTest {

  @TempDir Path dir;

  RunCommand parse(Map<String, String> env, String... args) {
    return parse(NodeAtlasCommand.installedSources(), env, args);
  }

  RunCommand parse(DiscoverySources sources, Map<String, String> env, String... args) {
    RunCommand cmd = new RunCommand();
    CommandLine cl = NodeAtlasCommand.configure(new CommandLine(cmd), sources);
    cl.parseArgs(args);
    return cmd.withConfigFile(env);
  }

  static final DiscoverySources ECHO = DiscoverySources.of(List.of(new EchoSource()));

  @Test
  void aSourceSettingTakesItsConfigKeyBelowTheFlagAndTheEnvironment() throws Exception {
    Path file = dir.resolve("config.yaml");
    Files.writeString(file, """
        echoText: from-file
        echoLoud: true
        echoCount: 4
        """);

    SourceOptions fromFile = parse(ECHO, Map.of(), "--config", file.toString()).discovery.sourceOptions();
    assertThat(fromFile.get(EchoSource.TEXT)).contains("from-file");
    assertThat(fromFile.flag(EchoSource.LOUD)).isTrue();
    assertThat(fromFile.get(EchoSource.COUNT)).contains("4");

    SourceOptions flagWins = parse(ECHO, Map.of(), "--config", file.toString(), "--echo-text", "from-flag")
        .discovery.sourceOptions();
    assertThat(flagWins.get(EchoSource.TEXT)).contains("from-flag");
    assertThat(flagWins.get(EchoSource.COUNT)).contains("4");

    // The env twin is set, so the file's value is not applied (picocli reads the real environment,
    // which this JVM does not have: what remains is the declared default).
    SourceOptions envWins = parse(ECHO, Map.of("NODEATLAS_TEST_ECHO_TEXT", "from-env"), "--config", file.toString())
        .discovery.sourceOptions();
    assertThat(envWins.get(EchoSource.TEXT)).contains("hello");
  }

  @Test
  void aSourceSettingTheFileGetsWrongIsAUsageErrorNamingTheFileAndTheFlag() throws Exception {
    Path file = dir.resolve("config.yaml");
    Files.writeString(file, "echoCount: many\n");
    assertThatThrownBy(() -> parse(ECHO, Map.of(), "--config", file.toString())).isInstanceOf(UsageException.class)
        .hasMessageContaining("config file " + file).hasMessageContaining("--echo-count must be a whole number");

    Files.writeString(file, "echoTxt: x\n");
    assertThatThrownBy(() -> parse(ECHO, Map.of(), "--config", file.toString())).isInstanceOf(UsageException.class)
        .hasMessageContaining("unknown key \"echoTxt\"").hasMessageContaining("echoText");
  }

  @Test
  void fileValuesApplyUnlessAFlagOrTheEnvironmentSetsThem() throws Exception {
    Path file = dir.resolve("config.yaml");
    Files.writeString(file, """
        driverName: gpu.example.com
        kubeletRoot: /srv/kubelet
        httpPort: 9102
        resyncInterval: 5m
        sources: [cpu-numa, gpu]
        includeVirtualNics: true
        nodeName: from-file
        """);

    RunCommand cmd = parse(Map.of("NODE_NAME", "from-env"), "--config", file.toString(), "--http-port", "8080");

    assertThat(cmd.value(RunCommand.DRIVER_NAME)).isEqualTo("gpu.example.com");
    assertThat(cmd.value(RunCommand.KUBELET_ROOT)).isEqualTo(Path.of("/srv/kubelet"));
    assertThat(cmd.value(RunCommand.HTTP_PORT)).isEqualTo(8080);
    assertThat(cmd.value(RunCommand.RESYNC_INTERVAL)).isEqualTo(Duration.ofMinutes(5));
    // The environment wins over the file; picocli itself reads NODE_NAME, which this JVM does not set.
    assertThat(cmd.value(RunCommand.NODE_NAME)).isNotEqualTo("from-file");
  }

  @Test
  void deviceMetadataIsOnUnlessAFlagOrTheFileTurnsItOff() throws Exception {
    Path none = Files.writeString(dir.resolve("empty.yaml"), "");
    assertThat(parse(Map.of(), "--config", none.toString()).value(RunCommand.DEVICE_METADATA)).isTrue();
    assertThat(parse(Map.of(), "--config", none.toString(), "--device-metadata").value(RunCommand.DEVICE_METADATA)).isTrue();
    assertThat(parse(Map.of(), "--config", none.toString(), "--device-metadata=false").value(RunCommand.DEVICE_METADATA)).isFalse();
    Path file = Files.writeString(dir.resolve("config.yaml"), "deviceMetadata: false\n");
    assertThat(parse(Map.of(), "--config", file.toString()).value(RunCommand.DEVICE_METADATA)).isFalse();
    assertThat(RunCommand.DEVICE_METADATA.env()).isEqualTo("NODEATLAS_DEVICE_METADATA");
    // A flag that is off by default is still turned on by its name alone.
    assertThat(parse(Map.of(), "--config", none.toString(), "--standalone").value(RunCommand.STANDALONE)).isTrue();
  }

  @Test
  void unknownKeysAreUsageErrors() throws Exception {
    Path file = dir.resolve("config.yaml");
    Files.writeString(file, "driverNmae: x\n");

    assertThatThrownBy(() -> parse(Map.of(), "--config", file.toString())).isInstanceOf(UsageException.class)
        .hasMessageContaining("unknown key \"driverNmae\"").hasMessageContaining("driverName");
  }

  @Test
  void badValuesAreUsageErrorsNamingTheFile() throws Exception {
    Path file = dir.resolve("config.yaml");
    Files.writeString(file, "httpPort: lots\n");

    assertThatThrownBy(() -> parse(Map.of(), "--config", file.toString())).isInstanceOf(UsageException.class)
        .hasMessageContaining(file.toString());
  }

  @Test
  void anExplicitMissingFileIsAnErrorTheDefaultOneIsNot() {
    assertThatThrownBy(() -> parse(Map.of(), "--config", dir.resolve("nope.yaml").toString()))
        .isInstanceOf(UsageException.class).hasMessageContaining("does not exist");
    assertThat(ConfigFile.read(dir.resolve("nope.yaml"), false)).isEmpty();
  }

  @Test
  void everyFlagHasAnEnvironmentTwinAndAConfigKey() {
    CommandLine cl = NodeAtlasCommand.configure(new CommandLine(new RunCommand()), NodeAtlasCommand.installedSources());
    for (OptionSpec o : cl.getCommandSpec().options()) {
      if (o.usageHelp() || o.versionHelp()) {
        continue;
      }
      assertThat(String.join(" ", o.description())).as(o.longestName()).contains("env " + ConfigFile.envName(o));
      assertThat(ConfigFile.key(o)).matches("[a-z][A-Za-z]*");
    }
  }
}
