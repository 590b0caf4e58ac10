package io.nodeatlas.cli;

import static org.assertj.core.api.Assertions.assertThat;

import io.nodeatlas.cli.testing.Repo;
import java.nio.file.Files;
import java.nio.file.Path;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/** The config file template systemd/install.sh installs sets nothing, so discover's hot path still runs beside it. */
class ConfigTemplateTest {

  @TempDir Path dir;

  @Test
  void onlyAFileThatMaySetAKeyTakesDiscoverOffTheHotPath() throws Exception {
    assertThat(ConfigLocation.mayHaveKeys(Repo.root().resolve("systemd/config.yaml"))).isFalse();
    assertThat(ConfigLocation.mayHaveKeys(dir.resolve("absent.yaml"))).isFalse();
    assertThat(ConfigLocation.mayHaveKeys(Files.writeString(dir.resolve("empty.yaml"), "---\n# nothing\n\n"))).isFalse();
    assertThat(ConfigLocation.mayHaveKeys(Files.writeString(dir.resolve("set.yaml"), "# a node\nsources: [cpu-numa]\n"))).isTrue();
    assertThat(ConfigLocation.mayHaveKeys(Files.createDirectories(dir.resolve("a-directory")))).isTrue();
    // And the template itself is a valid, empty config file for every command.
    assertThat(ConfigFile.read(Repo.root().resolve("systemd/config.yaml"), true)).isEmpty();
  }
}
