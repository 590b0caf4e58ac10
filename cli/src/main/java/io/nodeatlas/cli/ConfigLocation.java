package io.nodeatlas.cli;

import java.io.IOException;
import java.io.InputStream;
import java.nio.file.Files;
import java.nio.file.Path;

/**
 * Where the config file ({@link ConfigFile}) is: {@code --config}, its env twin, the default path, and
 * whether a file may set a key at all. Free of the YAML parser, so {@link HotPath} asks without loading
 * it (a class that refers to the parser makes the start-up cache load and link the parser at every
 * start of a discover).
 */
public final class ConfigLocation {

  private ConfigLocation() {}

  /** Where the file is looked for when neither {@code --config} nor its env twin names one. */
  public static final Path DEFAULT = Path.of("/etc/nodeatlas/config.yaml");

  /** {@code --config}: taken by every command that reads the host, with {@link HostOptions}' flags. */
  public static final Flag<Path> CONFIG = Flag.of("--config", "FILE", Path.class, "NODEATLAS_CONFIG", "", "Config file")
      .defaultShownAs(DEFAULT + " when it exists");

  /**
   * Whether {@code file} may set a key: false only when it is absent, or a readable file of blank and
   * {@code #} comment lines alone (the template systemd/install.sh installs), which the hot path of
   * {@code discover} can then ignore without parsing YAML.
   */
  static boolean mayHaveKeys(Path file) {
    if (!Files.exists(file)) {
      return false;
    }
    try (InputStream in = Files.newInputStream(file)) {
      byte[] bytes = in.readNBytes(64 * 1024 + 1);
      if (bytes.length > 64 * 1024) {
        return true;
      }
      for (String line : new String(bytes, java.nio.charset.StandardCharsets.UTF_8).split("\n", -1)) {
        String t = line.strip();
        if (!t.isEmpty() && !t.startsWith("#") && !t.equals("---")) {
          return true;
        }
      }
      return false;
    } catch (IOException | RuntimeException e) {
      return true; // picocli's command reads it and says what is wrong
    }
  }
}
