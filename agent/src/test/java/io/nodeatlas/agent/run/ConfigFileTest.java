package io.nodeatlas.agent.run;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import io.nodeatlas.cli.UsageException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.Map;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;
import picocli.CommandLine;
import picocli.CommandLine.Model.OptionSpec;

class ConfigFileTest {

  @TempDir Path dir;

  RunCommand parse(Map<String, String> env, String... args) {
    RunCommand cmd = new RunCommand();
    CommandLine cl = new CommandLine(cmd);
    cl.setCaseInsensitiveEnumValuesAllowed(true);
    cl.parseArgs(args);
    return cmd.withConfigFile(env);
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

    assertThat(cmd.driverName).isEqualTo("gpu.example.com");
    assertThat(cmd.kubeletRoot).isEqualTo(Path.of("/srv/kubelet"));
    assertThat(cmd.httpPort).isEqualTo(8080);
    assertThat(cmd.resyncInterval).isEqualTo(Duration.ofMinutes(5));
    // The environment wins over the file; picocli itself reads NODE_NAME, which this JVM does not set.
    assertThat(cmd.nodeName).isNotEqualTo("from-file");
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
    CommandLine cl = new CommandLine(new RunCommand());
    for (OptionSpec o : cl.getCommandSpec().options()) {
      if (o.usageHelp() || o.versionHelp()) {
        continue;
      }
      assertThat(String.join(" ", o.description())).as(o.longestName()).contains("env " + ConfigFile.envName(o));
      assertThat(ConfigFile.key(o)).matches("[a-z][A-Za-z]*");
    }
  }
}
