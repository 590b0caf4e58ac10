package io.nodeatlas.agent.claims;

import io.nodeatlas.agent.shares.Families;
import io.nodeatlas.agent.shares.ShareEdits;
import io.nodeatlas.agent.shares.SharedDevice;
import io.nodeatlas.discovery.model.Device;
import java.io.IOException;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/** Re-creates the CDI spec of a claim the checkpoint records, with the same ids, before it is answered again. */
final class SpecRestorer {

  private static final Logger LOG = LoggerFactory.getLogger(ClaimPreparer.class);

  private final ClaimSpecs specs;
  private final DeviceInventory inventory;
  private final Families families;
  private final DeviceRealisations realisations;
  private final ShareEdits shareEdits;

  SpecRestorer(ClaimSpecs specs, DeviceInventory inventory, Families families, DeviceRealisations realisations,
      ShareEdits shareEdits) {
    this.specs = specs;
    this.inventory = inventory;
    this.families = families;
    this.realisations = realisations;
    this.shareEdits = shareEdits;
  }

  /**
   * Re-creates a recorded claim's CDI spec when it is missing, with the same ids, before the claim is
   * answered: {@code /var/run/cdi} is tmpfs on most hosts, and after a reboot the kubelet prepares its
   * claims again (KEP-4381) while the checkpoint still names ids whose spec is gone. The claim is then
   * confirmed for this boot. Null when done, else why the claim fails.
   */
  String restore(PreparedClaim known, Checkpoint checkpoint) {
    return restore(known, checkpoint, List.of());
  }

  /** {@link #restore(PreparedClaim, Checkpoint)} of a spec that also carries {@code mounts} (the claim's device metadata). */
  String restore(PreparedClaim known, Checkpoint checkpoint, List<ClaimMount> mounts) {
    try {
      // Specs are written without fsync (see the commit in ClaimPreparer.prepareOne): only a power cut or a kernel crash
      // can leave one missing, empty or partial, and either starts a new boot, which makes every recorded
      // claim unconfirmed (Checkpoint.startBoot). So the spec of an unconfirmed claim, or of any claim on a
      // host whose boot cannot be told, is read and checked; for the others finding the file is enough.
      String uid = known.claim().uid();
      Optional<Map<String, List<String>>> written = checkpoint.isUnconfirmed(uid) || checkpoint.bootId().isEmpty()
          ? specs.ensureValid(known.claim(), () -> recordedDevices(known),
              known.devices().stream().flatMap(d -> d.cdiDeviceIds().stream()).toList(), mounts)
          : specs.ensure(known.claim(), () -> recordedDevices(known), mounts);
      if (written.isPresent()) {
        List<String> ids = written.get().values().stream().flatMap(List::stream).toList();
        for (PreparedDevice d : known.devices()) {
          if (!ids.containsAll(d.cdiDeviceIds())) {
            return "the re-created CDI spec lacks the recorded ids " + d.cdiDeviceIds() + " of device " + d.device();
          }
        }
        LOG.info("re-created the missing CDI spec of a recorded claim claim={} ids={}", known.claim(), ids.size());
      }
      checkpoint.confirm(known.claim().uid());
      return null;
    } catch (IOException | RuntimeException e) {
      return "cannot re-create the missing CDI spec of the recorded claim: " + e.getMessage();
    }
  }

  /** The devices of a recorded claim's spec, as Prepare wrote them: shares first, then the others. */
  private List<Device> recordedDevices(PreparedClaim known) {
    List<ShareEdits.Placed> placed = new ArrayList<>();
    List<Device> others = new ArrayList<>();
    for (PreparedDevice d : known.devices()) {
      SharedDevice device = inventory.shared(d.device(), families::shared).orElseThrow(() -> new IllegalStateException("device "
          + d.device() + " is not (or not yet) discovered on this node"));
      if (d.isShare()) {
        placed.add(new ShareEdits.Placed(device, ShareRecords.held(known.claim().uid(), d)));
      } else {
        others.add(realisations.edits(device.device(), d.placementOrNone()));
      }
    }
    return shareEdits.devices(placed, others);
  }
}
