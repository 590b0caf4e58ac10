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

  /**
   * As {@link #write(ClaimRef, List)}, with {@code mounts} as CDI devices of the same spec; the answer
   * also maps each mount's name to its id.
   */
  default Map<String, List<String>> write(ClaimRef claim, List<Device> devices, List<ClaimMount> mounts) throws IOException {
    if (!mounts.isEmpty()) {
      throw new IOException("this spec store cannot add mounts to a claim's spec");
    }
    return write(claim, devices);
  }

  /** {@link #ensure} of a spec that also holds {@code mounts}. */
  default java.util.Optional<Map<String, List<String>>> ensure(ClaimRef claim, java.util.function.Supplier<List<Device>> devices,
      List<ClaimMount> mounts) throws IOException {
    return mounts.isEmpty() ? ensure(claim, devices) : java.util.Optional.of(write(claim, devices.get(), mounts));
  }

  /** {@link #ensureValid} of a spec that also holds {@code mounts}. */
  default java.util.Optional<Map<String, List<String>>> ensureValid(ClaimRef claim,
      java.util.function.Supplier<List<Device>> devices, java.util.Collection<String> recordedIds, List<ClaimMount> mounts)
      throws IOException {
    return mounts.isEmpty() ? ensureValid(claim, devices, recordedIds) : java.util.Optional.of(write(claim, devices.get(), mounts));
  }

  /**
   * Writes the claim's spec only when it is missing (the CDI dir is tmpfs on most hosts, so a reboot
   * empties it while the checkpoint survives) and returns the ids it wrote; empty when the spec was
   * there. {@code devices} is only asked for when the spec must be written.
   */
  default java.util.Optional<Map<String, List<String>>> ensure(ClaimRef claim, java.util.function.Supplier<List<Device>> devices)
      throws IOException {
    return java.util.Optional.of(write(claim, devices.get()));
  }

  /**
   * As {@link #ensure}, but a spec that is there is also read: unless it is a valid spec that defines
   * every one of {@code recordedIds}, it is written again. For claims whose spec a power cut may have
   * left empty or partial (specs are written without {@code fsync}).
   */
  default java.util.Optional<Map<String, List<String>>> ensureValid(ClaimRef claim,
      java.util.function.Supplier<List<Device>> devices, java.util.Collection<String> recordedIds) throws IOException {
    return java.util.Optional.of(write(claim, devices.get()));
  }

  /**
   * Fails when the spec directory cannot be written or removed from as it is (a directory swapped for
   * a symbolic link), so that Unprepare keeps the claim's record rather than forget a claim whose spec
   * it then cannot remove.
   */
  default void checkDirectory() throws IOException {}

  /** Removes the claim's spec; no error when there is none. */
  void remove(String claimUid) throws IOException;
}
