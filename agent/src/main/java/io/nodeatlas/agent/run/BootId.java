package io.nodeatlas.agent.run;

import io.nodeatlas.discovery.host.FactReader;
import io.nodeatlas.discovery.host.HostFs;
import java.util.Optional;
import java.util.function.Consumer;
import java.util.regex.Pattern;

/**
 * The kernel's boot ID: {@code /proc/sys/kernel/random/boot_id}, a random UUID made once per boot
 * ({@code Documentation/admin-guide/sysctl/kernel.rst}, "random"). It tells the agent that the node
 * rebooted since the checkpoint was written, and with it that {@code /var/run/cdi} (tmpfs) was emptied.
 */
final class BootId {

  private static final Pattern UUID = Pattern.compile("^[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}$");

  private BootId() {}

  /** The boot ID under the procfs root of {@code fs}; empty (with one warning when unusable) when it cannot be read. */
  static Optional<String> read(HostFs fs, Consumer<String> warn) {
    return new FactReader(fs, warn).read(fs.proc("sys/kernel/random/boot_id"), text -> {
      String id = text.toLowerCase(java.util.Locale.ROOT);
      if (!UUID.matcher(id).matches()) {
        throw new IllegalArgumentException("not a UUID");
      }
      return id;
    });
  }
}
