package io.nodeatlas.agent.claims;

import io.nodeatlas.discovery.model.Device;
import java.io.IOException;
import java.util.List;
import java.util.Map;

/**
 * The per-claim transient CDI specs (one file per claim in the CDI dir, KEP-4381: Prepare answers CDI device ids). The seam
 * between claim handling and the CDI library, so the preparer never sees file formats.
 */
public interface ClaimSpecs {

  /**
   * Writes (or rewrites unchanged) the spec of one claim and returns, per device name, the fully
   * qualified CDI device ids a container runtime should inject.
   */
  Map<String, List<String>> write(ClaimRef claim, List<Device> devices) throws IOException;

  /** Removes the claim's spec; no error when there is none. */
  void remove(String claimUid) throws IOException;
}
