package io.nodeatlas.discovery.net.sysfs;

import io.nodeatlas.discovery.host.HostFs;
import io.nodeatlas.discovery.net.model.NetnsMode;
import io.nodeatlas.discovery.net.parse.NetnsModeParser;
import java.util.Optional;
import java.util.function.Consumer;

/**
 * The RDMA netns mode from {@code /sys/module/ib_core/parameters/netns_mode} (§1.8), the sysfs view of
 * what {@code rdma system show} reports over netlink. Empty when ib_core is not loaded.
 */
public final class NetnsModeReader {

  private final HostFs fs;

  public NetnsModeReader(HostFs fs) {
    this.fs = fs;
  }

  public Optional<NetnsMode> read(Consumer<String> warn) {
    return new SysfsAttributes(fs, fs.sys("module/ib_core/parameters"), "ib_core", warn)
        .read("netns_mode", NetnsModeParser::parse);
  }
}
