package io.nodeatlas.cli;

import io.nodeatlas.discovery.host.HostFs;
import java.nio.file.Files;
import java.nio.file.Path;
import picocli.CommandLine.Option;

/**
 * The host-root flags every command that reads the host takes. Each has an env twin, so a DaemonSet
 * sets {@code NODEATLAS_SYSFS_ROOT=/host-sys} once for all commands.
 */
public final class HostOptions {

  @Option(names = "--host-root", paramLabel = "DIR", defaultValue = "${env:NODEATLAS_HOST_ROOT:-/}",
      description = "Root of the host's file system (default: ${DEFAULT-VALUE}; env NODEATLAS_HOST_ROOT).")
  Path hostRoot;

  @Option(names = "--sysfs-root", paramLabel = "DIR", defaultValue = "${env:NODEATLAS_SYSFS_ROOT}",
      description = "Where the host's /sys is mounted (default: <host-root>/sys; env NODEATLAS_SYSFS_ROOT).")
  Path sysfsRoot;

  @Option(names = "--procfs-root", paramLabel = "DIR", defaultValue = "${env:NODEATLAS_PROCFS_ROOT}",
      description = "Where the host's /proc is mounted (default: <host-root>/proc; env NODEATLAS_PROCFS_ROOT).")
  Path procfsRoot;

  @Option(names = "--dev-root", paramLabel = "DIR", defaultValue = "${env:NODEATLAS_DEV_ROOT}",
      description = "Where the host's /dev is mounted (default: <host-root>/dev; env NODEATLAS_DEV_ROOT).")
  Path devRoot;

  /** The configured host, after checking that the roots exist (a typo should not look like an empty node). */
  public HostFs toHostFs() {
    requireDirectory("--host-root", hostRoot);
    if (sysfsRoot != null) {
      requireDirectory("--sysfs-root", sysfsRoot);
    }
    if (procfsRoot != null) {
      requireDirectory("--procfs-root", procfsRoot);
    }
    if (devRoot != null) {
      requireDirectory("--dev-root", devRoot);
    }
    return HostFs.builder(hostRoot).sysfsRoot(sysfsRoot).procfsRoot(procfsRoot).devRoot(devRoot).build();
  }

  private static void requireDirectory(String flag, Path dir) {
    if (!Files.isDirectory(dir)) {
      throw new UsageException(flag + " " + dir + " is not a directory");
    }
  }
}
