package io.nodeatlas.agent.claims;

import io.nodeatlas.agent.shares.Families;
import io.nodeatlas.discovery.model.Device;
import io.nodeatlas.discovery.share.DeviceRealiser;
import io.nodeatlas.discovery.share.Placement;
import io.nodeatlas.discovery.share.Share;
import java.io.IOException;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.function.Function;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * What the families that make devices real at Prepare ({@link DeviceRealiser}) do for the claims of
 * {@link ClaimPreparer}: make a claim's whole devices real, undo them, reconcile them with the checkpoint at
 * start, and give a recorded device its family's container edits. Family-neutral: records are opaque.
 */
final class DeviceRealisations {

  private static final Logger LOG = LoggerFactory.getLogger(ClaimPreparer.class);

  private final Families families;

  DeviceRealisations(Families families) {
    this.families = families;
  }

  /**
   * Has each exclusive device whose family makes it real at Prepare made real for the claim
   * ({@link DeviceRealiser}), into {@code realised}; null when done, else why not (what was made stays in
   * {@code realised}, to be undone).
   */
  String realise(String claimUid, List<String> exclusive, Function<String, Device> deviceOf, List<AllocatedDevice> ours,
      Map<String, Placement> realised) {
    for (String name : exclusive) {
      Device device = deviceOf.apply(name);
      Optional<DeviceRealiser> family = families.realiser(device);
      if (family.isEmpty()) {
        continue;
      }
      try {
        List<String> configs = ours.stream().filter(x -> x.device().equals(name))
            .flatMap(x -> x.configs().stream()).distinct().toList();
        Placement record = family.get().realise(claimUid, device, configs);
        if (!record.empty()) {
          realised.put(name, record);
        }
      } catch (DeviceRealiser.RealiseException e) {
        return "device " + name + ": " + e.getMessage();
      }
    }
    return null;
  }

  /**
   * Has each placed share whose family makes shares real made real ({@link DeviceRealiser#realiseShare}): its
   * placement in {@code shares} becomes the family's, and the share goes to {@code made}; null when done, else why
   * not (what was made stays in {@code made}, to be undone).
   */
  String realiseShares(Map<AllocatedDevice, Share> shares, Function<String, Device> deviceOf, List<Share> made) {
    Map<Share, Share> done = new java.util.LinkedHashMap<>();
    for (Share s : new java.util.LinkedHashSet<>(shares.values())) {
      Device device = deviceOf.apply(s.device());
      Optional<DeviceRealiser> family = families.realiser(device);
      if (family.isEmpty()) {
        continue;
      }
      try {
        Share real = s.placed(family.get().realiseShare(s, device));
        made.add(real);
        done.put(s, real);
      } catch (DeviceRealiser.RealiseException e) {
        return "device " + s.device() + ": " + e.getMessage();
      }
    }
    shares.replaceAll((a, s) -> done.getOrDefault(s, s));
    return null;
  }

  /** Undoes the shares made real for a claim that is not recorded; a failure is logged (the family's start cleans it). */
  void undoShares(ClaimRef claim, List<Share> made) {
    for (Share s : made) {
      try {
        undoShare(s);
      } catch (DeviceRealiser.RealiseException | RuntimeException e) {
        LOG.warn("cannot undo what was made for a share of an unrecorded claim claim={} device={} err=\"{}\"", claim,
            s.device(), e.getMessage());
      }
    }
  }

  /** Hands a recorded share to the families; one that none knows needs nothing undone. */
  void undoShare(Share s) throws DeviceRealiser.RealiseException {
    if (s.placement().empty()) {
      return;
    }
    for (DeviceRealiser r : families.realisers()) {
      if (r.unrealiseShare(s)) {
        return;
      }
    }
  }

  /** Undoes what was made real for a claim that is not recorded; a failure is logged (the family's start cleans it). */
  void undo(ClaimRef claim, Map<String, Placement> realised) {
    realised.forEach((device, record) -> {
      try {
        undoRecord(claim.uid(), device, record);
      } catch (DeviceRealiser.RealiseException | RuntimeException e) {
        LOG.warn("cannot undo what was made for an unrecorded claim claim={} device={} err=\"{}\"", claim, device,
            e.getMessage());
      }
    });
  }

  /** Hands {@code record} to the family it is of; a record no family knows is logged and left. */
  void undoRecord(String uid, String device, Placement record) throws DeviceRealiser.RealiseException {
    for (DeviceRealiser r : families.realisers()) {
      if (r.unrealise(uid, device, record)) {
        return;
      }
    }
    LOG.warn("no installed family knows the record of a prepared device claimUid={} device={} version={}", uid, device,
        record.version());
  }

  /**
   * At start, before serving: each family that makes devices real gets the records of the checkpoint's claims
   * and every claim UID, undoes what it made for claims gone (a crash before the commit), and re-makes what is
   * gone for live ones (a reboot); a changed record replaces the old one, and the claim's spec is removed so the
   * kubelet's next Prepare writes it again with the new record's edits.
   */
  void reconcile(Checkpoint checkpoint, ClaimSpecs specs) {
    if (families.realisers().isEmpty()) {
      return;
    }
    List<DeviceRealiser.Realised> live = new ArrayList<>();
    List<Share> shares = new ArrayList<>();
    java.util.Set<String> uids = new java.util.TreeSet<>();
    for (PreparedClaim c : checkpoint.all()) {
      uids.add(c.claim().uid());
      for (PreparedDevice d : c.devices()) {
        if (d.isShare()) {
          shares.add(ShareRecords.held(c.claim().uid(), d));
        } else if (!d.placementOrNone().empty()) {
          live.add(new DeviceRealiser.Realised(c.claim().uid(), d.device(), d.placementOrNone()));
        }
      }
    }
    for (DeviceRealiser r : families.realisers()) {
      List<DeviceRealiser.Realised> changed;
      try {
        changed = r.reconcile(List.copyOf(live), List.copyOf(shares), java.util.Set.copyOf(uids));
      } catch (RuntimeException e) {
        LOG.warn("a family could not reconcile what it made err=\"{}\"", e.toString());
        continue;
      }
      for (DeviceRealiser.Realised ch : changed) {
        Optional<PreparedClaim> c = checkpoint.get(ch.claimUid());
        if (c.isEmpty()) {
          continue;
        }
        List<PreparedDevice> devices = new ArrayList<>();
        for (PreparedDevice d : c.get().devices()) {
          devices.add(!d.isShare() && d.device().equals(ch.device()) ? new PreparedDevice(d.requestNames(), d.pool(),
              d.device(), d.cdiDeviceIds(), "", Map.of(), ch.record()) : d);
        }
        try {
          checkpoint.put(new PreparedClaim(c.get().claim(), devices));
          specs.remove(ch.claimUid());
          LOG.info("re-made a prepared device claim={} device={}", c.get().claim(), ch.device());
        } catch (IOException e) {
          LOG.warn("cannot record a re-made device claim={} device={} err=\"{}\"", c.get().claim(), ch.device(),
              e.getMessage());
        }
      }
    }
  }

  /**
   * While the agent runs: each family's {@link DeviceRealiser#upkeep} with the UIDs of the claims in
   * {@code checkpoint}; the counts of what they did, by action.
   */
  Map<String, Integer> upkeep(Checkpoint checkpoint) {
    if (families.realisers().isEmpty()) {
      return Map.of();
    }
    java.util.Set<String> uids = new java.util.TreeSet<>();
    checkpoint.all().forEach(c -> uids.add(c.claim().uid()));
    Map<String, Integer> done = new java.util.TreeMap<>();
    for (DeviceRealiser r : families.realisers()) {
      try {
        r.upkeep(java.util.Set.copyOf(uids)).forEach((action, n) -> done.merge(action, n, Integer::sum));
      } catch (RuntimeException e) {
        LOG.warn("a family could not check what it made err=\"{}\"", e.toString());
      }
    }
    return done;
  }

  /** A device held whole as its container gets it: with its family's edits for what was made real for it. */
  Device edits(Device device, Placement record) {
    return record.empty() ? device : families.realiser(device).map(f -> f.containerEdits(device, record)).orElse(device);
  }

}
