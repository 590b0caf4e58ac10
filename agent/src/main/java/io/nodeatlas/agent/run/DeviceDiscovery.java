package io.nodeatlas.agent.run;

import io.nodeatlas.discovery.report.NodeReport;
import java.util.function.Supplier;

/**
 * Where the agent's devices come from: a live discovery or a saved report, called on every resync.
 * The agent says whether the API server can take shared devices ({@code allowMultipleAllocations} and
 * capacity request policies, KEP-5075); a discovery that can, publishes exclusive devices instead when
 * it cannot (the {@code HostContext.withSharedDevicesSupported} of the sources).
 */
@FunctionalInterface
public interface DeviceDiscovery {

  NodeReport discover(boolean sharedDevicesSupported);

  /** A discovery that publishes the same devices either way (a saved report, tests). */
  static DeviceDiscovery of(Supplier<NodeReport> supplier) {
    return shared -> supplier.get();
  }
}
