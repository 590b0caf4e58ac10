package io.nodeatlas.agent.claims;

import java.io.IOException;
import java.util.List;

/**
 * What a prepared claim's containers get beside its devices: the device metadata files of KEP-5304
 * (implemented in {@code io.nodeatlas.agent.metadata}). {@link ClaimPreparer} calls it after a claim is
 * recorded, when a recorded claim is answered again, and on Unprepare; the answer's devices come back
 * with the CDI ids that mount the files. Writing is best effort, as in the kubelet plugin helper of
 * {@code k8s.io/dynamic-resource-allocation} ({@code kubeletplugin/draplugin.go}): a failure is logged and
 * the claim is answered without the files, never failed.
 */
public interface ClaimMetadata {

  /** After {@code claim} was recorded: writes its files and returns {@code devices} with their ids added. */
  List<PreparedDevice> prepared(ClaimRef claim, AllocatedClaim allocation, List<PreparedDevice> devices);

  /** A recorded claim answered again (a restart, a reboot): re-creates what is missing; the same ids as {@link #prepared}. */
  List<PreparedDevice> restored(PreparedClaim claim);

  /** Unprepare: removes the claim's files, also those written while the feature was on; none is no error. */
  void remove(String claimUid) throws IOException;

  /** No metadata: the devices as they are. */
  ClaimMetadata NONE = new ClaimMetadata() {
    @Override
    public List<PreparedDevice> prepared(ClaimRef claim, AllocatedClaim allocation, List<PreparedDevice> devices) {
      return devices;
    }

    @Override
    public List<PreparedDevice> restored(PreparedClaim claim) {
      return claim.devices();
    }

    @Override
    public void remove(String claimUid) {}
  };
}
