package io.nodeatlas.discovery.gpu;

import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.attribute.PosixFilePermissions;

/**
 * Writes a stand-in for {@code nvidia-smi} for tests of claim-time sharing: only
 * {@code compute-policy -i <uuid> --set-timeslice=<0-3>} succeeds, and it records the slice in
 * {@code timeslice-<uuid>} next to itself (appended to {@code calls-<uuid>}) and its {@code LD_PRELOAD}
 * in {@code preload-<uuid>}, so a test can see what the family asked of the driver's tool.
 */
final class FakeNvidiaSmi {

  private static final String SCRIPT = """
      #!/bin/sh
      set -eu
      dir=$(dirname "$0")
      if [ "${1:-}" = compute-policy ] && [ "${2:-}" = -i ] && [ -n "${3:-}" ]; then
        case "${4:-}" in
          --set-timeslice=[0-3])
            echo "${4#--set-timeslice=}" > "$dir/timeslice-$3"
            echo "${4#--set-timeslice=}" >> "$dir/calls-$3"
            echo "${LD_PRELOAD:-}" > "$dir/preload-$3"
            echo "Set timeslice to ${4#--set-timeslice=} for GPU $3"
            exit 0 ;;
        esac
      fi
      echo "fake nvidia-smi: unsupported arguments: $*" >&2
      exit 2
      """;

  private FakeNvidiaSmi() {}

  /** Writes the stand-in as an executable {@code file} (a new file) and returns it. */
  static Path write(Path file) throws IOException {
    Files.writeString(file, SCRIPT);
    return Files.setPosixFilePermissions(file, PosixFilePermissions.fromString("rwxr-xr-x"));
  }
}
