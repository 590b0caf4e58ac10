package io.nodeatlas.cli.discover;

import io.nodeatlas.discovery.host.HostContext;
import io.nodeatlas.discovery.spi.DiscoveryException;
import io.nodeatlas.discovery.spi.DiscoveryResult;
import io.nodeatlas.discovery.spi.DiscoverySource;

/** A source found through ServiceLoader on the test class path only, so the CLI's failure path is real. */
public final class FailingTestSource implements DiscoverySource {
  @Override
  public String name() {
    return "test-failing";
  }

  @Override
  public DiscoveryResult discover(HostContext host) throws DiscoveryException {
    throw new DiscoveryException("cannot open " + host.fs().sys("class/test") + ": permission denied");
  }
}
