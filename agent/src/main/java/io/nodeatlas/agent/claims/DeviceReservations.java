package io.nodeatlas.agent.claims;

import io.nodeatlas.agent.shares.Families;
import io.nodeatlas.agent.shares.ShareAsk;
import io.nodeatlas.agent.shares.SharePlanner;
import io.nodeatlas.agent.shares.SharedDevice;
import io.nodeatlas.discovery.share.Share;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.function.Supplier;

/**
 * Which claim holds which device while Prepare runs: the exclusive devices and the shares (KEP-5075) of
 * claims being prepared, beside those the checkpoint records, checked and taken under one lock so that two
 * claims never take one device, and released when the claim is recorded or fails.
 */
final class DeviceReservations {

  private final DeviceInventory inventory;
  private final Families families;
  /** The checkpoint as the preparer holds it now (a rolling update may replace it between calls). */
  private final Supplier<Checkpoint> checkpoint;

  /** Guards {@link #inFlight} together with the "is this device free?" check. */
  private final Object deviceOwnership = new Object();
  /** Devices taken by claims being prepared right now (not yet in the checkpoint). */
  private final Map<String, ClaimRef> inFlight = new HashMap<>();
  /** Shares placed for claims being prepared right now (not yet in the checkpoint), by claim UID. */
  private final Map<String, List<Share>> inFlightShares = new HashMap<>();
  private final SharePlanner planner = new SharePlanner();


  DeviceReservations(DeviceInventory inventory, Families families, Supplier<Checkpoint> checkpoint) {
    this.inventory = inventory;
    this.families = families;
    this.checkpoint = checkpoint;
  }

  /** Our results of a claim, the devices they name, and what the claim holds until it is recorded or fails. */
  record Reservation(ClaimRef claim, List<AllocatedDevice> ours, Map<String, SharedDevice> byName,
      List<String> exclusive, Map<AllocatedDevice, Share> shares) {}

  /** A Prepare refused for a reason the kubelet shows. */
  static final class Refused extends Exception {
    private static final long serialVersionUID = 1L;

    Refused(String message) {
      super(message, null, false, false);
    }
  }

  /**
   * Checks each device of our results still exists here, takes the exclusive ones (none may be held by
   * another claim) and places each share among the shares already held, all under {@link #deviceOwnership}:
   * what it takes stays taken until {@link #release}.
   */
  Reservation reserve(ClaimRef claim, List<AllocatedDevice> ours) throws Refused {
    Map<String, SharedDevice> byName = new LinkedHashMap<>();
    for (AllocatedDevice a : ours) {
      if (!inventory.pool().equals(a.pool())) {
        throw new Refused("device " + a.pool() + "/" + a.device() + " of request " + a.request()
            + " is in pool " + a.pool() + ", but this node publishes pool " + inventory.pool());
      }
      Optional<SharedDevice> d = inventory.shared(a.device(), families::shared);
      if (d.isEmpty()) {
        throw new Refused("device " + a.device() + " of request " + a.request() + " no longer exists on this node");
      }
      byName.putIfAbsent(a.device(), d.get());
    }
    // Only exclusive devices are held by one claim. adminAccess results (KEP-5018) do not take the device,
    // and a device that allows multiple allocations (resource.k8s.io/v1 Device.allowMultipleAllocations,
    // KEP-5075) is prepared for every claim the scheduler gave a share of it: each result then names its
    // share (shareID, consumedCapacity), which is placed among the shares already held.
    List<String> exclusive = ours.stream()
        .filter(a -> !a.adminAccess() && !byName.get(a.device()).device().allowMultipleAllocations())
        .map(AllocatedDevice::device).distinct().toList();
    Map<AllocatedDevice, Share> shares = new LinkedHashMap<>();
    synchronized (deviceOwnership) {
      for (String device : exclusive) {
        Optional<ClaimRef> holder = holderOf(device, claim.uid());
        if (holder.isPresent()) {
          throw new Refused("device " + device + " is already prepared for claim " + holder.get());
        }
      }
      List<Share> held = heldShares();
      for (AllocatedDevice a : ours) {
        SharePlanner.Plan plan = planner.plan(claim.uid(), byName.get(a.device()),
            new ShareAsk(a.request(), a.device(), a.shareId(), a.consumedCapacity(), a.adminAccess(), a.configs()), held);
        if (plan.failed()) {
          throw new Refused(SharePlanner.naming(plan.error(),
              uid -> checkpoint.get().get(uid).map(c -> c.claim().toString()).orElse(null)));
        }
        if (!plan.exclusive()) {
          shares.put(a, plan.share());
          if (!held.contains(plan.share())) {
            held.add(plan.share());
          }
        }
      }
      exclusive.forEach(device -> inFlight.put(device, claim));
      if (!shares.isEmpty()) {
        inFlightShares.put(claim.uid(), List.copyOf(new java.util.LinkedHashSet<>(shares.values())));
      }
    }
    return new Reservation(claim, ours, byName, exclusive, shares);
  }

  void release(Reservation r) {
    synchronized (deviceOwnership) {
      r.exclusive().forEach(device -> inFlight.remove(device, r.claim()));
      inFlightShares.remove(r.claim().uid());
    }
  }

  /**
   * The shares every claim holds: those recorded in the checkpoint and those of claims being prepared
   * right now. Called with {@link #deviceOwnership} held.
   */
  private List<Share> heldShares() {
    Map<String, Share> byKey = new LinkedHashMap<>();
    for (PreparedClaim c : checkpoint.get().all()) {
      for (PreparedDevice d : c.devices()) {
        if (d.isShare()) {
          Share h = ShareRecords.held(c.claim().uid(), d);
          byKey.putIfAbsent(key(h), h);
        }
      }
    }
    inFlightShares.values().forEach(list -> list.forEach(h -> byKey.putIfAbsent(key(h), h)));
    return new ArrayList<>(byKey.values());
  }

  private static String key(Share h) {
    return h.claimUid() + "\n" + h.device() + "\n" + h.shareId();
  }

  /**
   * A claim prepared earlier is answered from the checkpoint, unless the node changed under one of its
   * shares (the device gone, its CPUs no longer allocatable, its pool smaller than the shares): then
   * the claim fails with the reason, and its recorded choice stays until Unprepare.
   */
  String recheck(PreparedClaim known) {
    if (known.devices().stream().noneMatch(PreparedDevice::isShare)) {
      return null;
    }
    List<Share> held;
    synchronized (deviceOwnership) {
      held = heldShares();
    }
    for (PreparedDevice d : known.devices()) {
      if (!d.isShare()) {
        continue;
      }
      Optional<SharedDevice> device = inventory.shared(d.device(), families::shared);
      if (device.isEmpty()) {
        return "device " + d.device() + " share " + d.shareId() + ": the device no longer exists on this node";
      }
      String why = planner.recheck(device.get(), ShareRecords.held(known.claim().uid(), d), held);
      if (why != null) {
        return why;
      }
    }
    return null;
  }

  private Optional<ClaimRef> holderOf(String device, String exceptUid) {
    ClaimRef reserving = inFlight.get(device);
    if (reserving != null && !reserving.uid().equals(exceptUid)) {
      return Optional.of(reserving);
    }
    return checkpoint.get().holderOf(device, exceptUid);
  }
}
