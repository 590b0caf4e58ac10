package io.nodeatlas.agent.testing;

import io.nodeatlas.discovery.cpu.testing.TwoNodeMachine;
import io.nodeatlas.discovery.model.Device;
import io.nodeatlas.discovery.topology.Topology;

/** The two-node machine of discovery-cpu-numa's test jar ({@link TwoNodeMachine}) and the families' placers on it. */
public final class ShareFixtures {

  private ShareFixtures() {}

  /** The installed families' claim-time side (the real CPU and hugepage family is on the test class path). */
  public static final io.nodeatlas.agent.shares.Families PLACERS = io.nodeatlas.agent.shares.Families.installed(
      ShareFixtures.class.getClassLoader(), new io.nodeatlas.discovery.share.SharePlacer.Settings("/opt/hooks/cpuset-hook"));

  /** {@code d} as Prepare sees it on {@link #topology()}. */
  public static io.nodeatlas.agent.shares.SharedDevice shared(Device d) {
    return PLACERS.shared(d, topology());
  }

  /** See {@link TwoNodeMachine#topology()}. */
  public static Topology topology() {
    return TwoNodeMachine.topology();
  }

  /** See {@link TwoNodeMachine#cpuDevice(int, String)}. */
  public static Device cpuDevice(int node, String cpusEnv) {
    return TwoNodeMachine.cpuDevice(node, cpusEnv);
  }

  /** See {@link TwoNodeMachine#hugepages(int, long)}. */
  public static Device hugepages(int node, long pages) {
    return TwoNodeMachine.hugepages(node, pages);
  }
}
