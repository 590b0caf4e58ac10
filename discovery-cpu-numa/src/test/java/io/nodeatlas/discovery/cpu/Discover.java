package io.nodeatlas.discovery.cpu;

import io.nodeatlas.discovery.host.HostContext;
import io.nodeatlas.discovery.spi.DiscoveryException;
import io.nodeatlas.discovery.spi.DiscoveryResult;

/** Runs the source where no setting can make it fail as a whole, so a failure is a test failure. */
public final class Discover {

  private Discover() {}

  public static DiscoveryResult run(HostContext host) {
    try {
      return new CpuNumaSource().discover(host);
    } catch (DiscoveryException e) {
      throw new AssertionError("the source failed as a whole: " + e.getMessage(), e);
    }
  }
}
