package io.nodeatlas.discovery.accel;

import io.nodeatlas.discovery.accel.parse.DevNumber;
import io.nodeatlas.discovery.host.FactReader;
import io.nodeatlas.discovery.host.HostFs;
import java.nio.file.Path;
import java.util.Optional;
import java.util.function.Consumer;

/**
 * The device number of {@code /dev/kfd}, the AMD Kernel Fusion Driver's character device that ROCm
 * (HSA runtime, HIP) opens next to the GPUs' render nodes. {@code amdkfd} registers it with a dynamic
 * major in class {@code kfd} ({@code drivers/gpu/drm/amd/amdkfd/kfd_chardev.c}), so its number is
 * read from {@code /sys/class/kfd/kfd/dev}, never assumed.
 */
final class KfdReader {

  private final HostFs fs;
  private final Consumer<String> warnings;

  KfdReader(HostFs fs, Consumer<String> warnings) {
    this.fs = fs;
    this.warnings = warnings;
  }

  static Path devFile(HostFs fs) {
    return fs.sys("class/kfd/kfd/dev");
  }

  /**
   * The number of {@code /dev/kfd}; empty with one warning when it is missing (amdkfd not loaded or
   * built without HSA support: the GPUs still work for graphics, not for ROCm) or unusable.
   */
  Optional<DevNumber> read() {
    boolean[] warned = {false};
    FactReader facts = new FactReader(fs, w -> {
      warned[0] = true;
      warnings.accept(w);
    });
    Path file = devFile(fs);
    Optional<DevNumber> dev = facts.read(file, DevNumber::parse);
    if (dev.isEmpty() && !warned[0]) {
      facts.warn(file, "missing, so amdgpu devices get no /dev/kfd and ROCm cannot use them in a container"
          + " (is the amdkfd driver loaded?)");
    }
    return dev;
  }
}
