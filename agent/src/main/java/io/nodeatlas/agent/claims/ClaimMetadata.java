package io.nodeatlas.agent.claims;

import java.io.IOException;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.SortedMap;
import java.util.TreeMap;

/**
 * What a prepared claim's containers get beside its devices: the device metadata files of KEP-5304
 * (implemented in {@code io.nodeatlas.agent.metadata}). {@link ClaimPreparer} writes a claim's files before
 * its CDI spec, which then carries one read-only mount per request ({@link ClaimMount}), and records the
 * mounts' ids with the claim; a recorded claim answered again gets back what is missing, and Unprepare
 * removes the files. Writing is best effort, as in the kubelet plugin helper of
 * {@code k8s.io/dynamic-resource-allocation} ({@code kubeletplugin/draplugin.go}): a failure is logged and
 * the claim is answered without the files, never failed.
 */
public interface ClaimMetadata {

  /**
   * Before {@code claim}'s spec is written: writes its files and returns, per request name, the mount its
   * spec carries; empty (and nothing left behind) when off or when a write failed.
   */
  SortedMap<String, ClaimMount> write(ClaimRef claim, AllocatedClaim allocation);

  /**
   * A recorded claim answered again (a restart, a reboot): re-creates missing files. {@code mounts}: what
   * the claim's spec must carry (those its recorded ids name); {@code devices}: the answer, which for a
   * claim prepared by a version that wrote a metadata spec of its own also names that spec's ids.
   */
  Restored restore(PreparedClaim claim);

  /** What {@link #restore} found: the claim spec's mounts and the answer's devices. */
  record Restored(List<ClaimMount> mounts, List<PreparedDevice> devices) {}

  /** Unprepare, or a Prepare that fails after {@link #write}: removes the claim's files; none is no error. */
  void remove(String claimUid) throws IOException;

  /** {@code devices} with each request's id of {@code idByRequest} added to the request's first device (once). */
  static List<PreparedDevice> withIds(List<PreparedDevice> devices, Map<String, String> idByRequest) {
    Map<Integer, List<String>> added = new LinkedHashMap<>();
    new TreeMap<>(idByRequest).forEach((request, id) -> {
      for (int i = 0; i < devices.size(); i++) {
        if (devices.get(i).requestNames().contains(request)) {
          added.computeIfAbsent(i, k -> new ArrayList<>()).add(id);
          break;
        }
      }
    });
    if (added.isEmpty()) {
      return devices;
    }
    List<PreparedDevice> out = new ArrayList<>(devices);
    added.forEach((i, ids) -> {
      PreparedDevice d = devices.get(i);
      List<String> all = new ArrayList<>(d.cdiDeviceIds());
      ids.stream().filter(id -> !all.contains(id)).forEach(all::add);
      out.set(i, new PreparedDevice(d.requestNames(), d.pool(), d.device(), all, d.shareId(), d.consumedCapacity(), d.placement()));
    });
    return out;
  }

  /** No metadata: the devices as they are. */
  ClaimMetadata NONE = new ClaimMetadata() {
    @Override
    public SortedMap<String, ClaimMount> write(ClaimRef claim, AllocatedClaim allocation) {
      return new TreeMap<>();
    }

    @Override
    public Restored restore(PreparedClaim claim) {
      return new Restored(List.of(), claim.devices());
    }

    @Override
    public void remove(String claimUid) {}
  };
}
