package io.nodeatlas.discovery.net.sysfs;

import io.nodeatlas.discovery.host.FactReader;
import io.nodeatlas.discovery.net.model.NetnsMode;
import io.nodeatlas.discovery.net.parse.NetnsModeParser;
import java.nio.file.Path;
import java.util.Optional;

/**
 * The RDMA netns mode from {@code /sys/module/ib_core/parameters/netns_mode}, the sysfs view of what
 * {@code rdma system show} reports over netlink. Empty when ib_core is not loaded.
 */
public final class NetnsModeReader {

  private final FactReader facts;

  public NetnsModeReader(FactReader facts) {
    this.facts = facts;
  }

  private Path file() {
    return facts.fs().sys("module/ib_core/parameters/netns_mode");
  }

  /** The mode; a missing file is worth a warning (a broken one already has its own). */
  public Optional<NetnsMode> read() {
    Optional<NetnsMode> mode = facts.read(file(), NetnsModeParser::parse);
    if (mode.isEmpty() && !facts.exists(file())) {
      facts.warn(file(), "missing (is ib_core loaded?): RDMA netns mode unknown, rdmaNetnsMode left out");
    }
    return mode;
  }
}
