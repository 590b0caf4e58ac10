package io.nodeatlas.cli;

import io.nodeatlas.discovery.host.HostFs;
import java.nio.file.Files;
import java.nio.file.Path;

/**
 * The host-root flags every command that reads the host takes. Each has an env twin, so a DaemonSet
 * sets {@code NODEATLAS_SYSFS_ROOT=/host-sys} once for all commands.
 */
public final class HostOptions {

  static final Flag<Path> HOST_ROOT = Flag.of("--host-root", "DIR", Path.class, "NODEATLAS_HOST_ROOT", "/",
      "Root of the host's file system");
  static final Flag<Path> SYSFS_ROOT = mountOf("--sysfs-root", "NODEATLAS_SYSFS_ROOT", "/sys");
  static final Flag<Path> PROCFS_ROOT = mountOf("--procfs-root", "NODEATLAS_PROCFS_ROOT", "/proc");
  static final Flag<Path> DEV_ROOT = mountOf("--dev-root", "NODEATLAS_DEV_ROOT", "/dev");

  // The config file travels with the host flags: every command that reads the host reads it too.
  private final Flag.Table flags = new Flag.Table(ConfigLocation.CONFIG, HOST_ROOT, SYSFS_ROOT, PROCFS_ROOT, DEV_ROOT);

  /** Where the host's {@code dir} is mounted when not below the host root (a DaemonSet's {@code /host-sys}). */
  private static Flag<Path> mountOf(String flag, String env, String dir) {
    return Flag.of(flag, "DIR", Path.class, env, "", "Where the host's " + dir + " is mounted")
        .defaultShownAs("<host-root>" + dir);
  }

  /** Added to each command that reads the host by its {@link DiscoveryOptions}. */
  Flag.Table flags() {
    return flags;
  }

  /** The config file {@code --config} or its env twin names, or null for the default one. */
  public Path configFile() {
    return flags.value(ConfigLocation.CONFIG);
  }

  /** The configured host, after checking that the roots exist (a typo should not look like an empty node). */
  public HostFs toHostFs() {
    return toHostFs(flags::value, (flag, dir) -> flags.given(flag, dir.toString()));
  }

  /**
   * The host of the given flag values (null: not set); {@code given} names a flag's value as the user
   * set it, for the error ({@link ValueSource}). Shared with {@link HotPath}.
   */
  static HostFs toHostFs(java.util.function.Function<Flag<Path>, Path> values,
      java.util.function.BiFunction<Flag<Path>, Path, String> given) {
    return HostFs.builder(directory(HOST_ROOT, values, given)).sysfsRoot(directory(SYSFS_ROOT, values, given))
        .procfsRoot(directory(PROCFS_ROOT, values, given)).devRoot(directory(DEV_ROOT, values, given)).build();
  }

  /** The flag's directory, or null when it is not set (the builder then derives it from the host root). */
  private static Path directory(Flag<Path> flag, java.util.function.Function<Flag<Path>, Path> values,
      java.util.function.BiFunction<Flag<Path>, Path, String> given) {
    Path dir = values.apply(flag);
    if (dir != null && !Files.isDirectory(dir)) {
      throw new UsageException(given.apply(flag, dir) + " is not a directory");
    }
    return dir;
  }
}
