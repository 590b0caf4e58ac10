package io.nodeatlas.discovery.share;

import io.nodeatlas.discovery.model.Device;
import io.nodeatlas.discovery.topology.Topology;
import java.util.List;
import java.util.Optional;

/**
 * The claim-time side of a device family, beside its {@link io.nodeatlas.discovery.spi.DiscoverySource}
 * (which hands it out through {@code sharePlacer}): it places the shares of the shared devices it
 * publishes and says what a claim's containers get (CDI container edits: environment, mounts, hooks).
 * The agent keeps shareIDs, capacity accounting, locks and the checkpoint; the family never sees them.
 * Implementations are stateless and thread-safe.
 */
public interface SharePlacer {

  /**
   * The family's view of its shared {@code device} on a node of {@code topology}; empty when the family
   * chooses nothing for its shares (their capacities are still accounted).
   */
  Optional<DevicePlacer> forDevice(Device device, Topology topology);

  /**
   * The devices of one claim's CDI spec with this family's edits: the same devices in the same order,
   * those of other families unchanged. Called for every family of the claim's devices, in source order.
   */
  List<Device> containerEdits(List<ClaimDevice> claim);

  /** Where the family's claim-time edits point on the host. */
  record Settings(String hookPath) {
    public Settings {
      if (hookPath == null || !hookPath.startsWith("/")) {
        throw new IllegalArgumentException("the hook path must be absolute, not " + hookPath);
      }
    }
  }
}
