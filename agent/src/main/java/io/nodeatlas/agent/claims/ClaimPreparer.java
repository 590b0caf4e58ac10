package io.nodeatlas.agent.claims;

import io.nodeatlas.discovery.model.Device;
import java.io.IOException;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.concurrent.locks.ReentrantLock;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * NodePrepareResources and NodeUnprepareResources, independent of the proto version (kubelet DRA
 * plugin API {@code v1} and {@code v1beta1}, KEP-4381).
 *
 * <p>Prepare of a claim: answer from the checkpoint when it is already prepared (idempotent, and it
 * works while the API server is away); else read the claim (UID and allocation checked), keep our
 * driver's results, check that each device still exists here and, unless it allows multiple
 * allocations, is not held by another claim, write the claim's CDI spec, record the claim in the
 * checkpoint, and answer the CDI ids. Unprepare works
 * from the checkpoint alone. Calls for the same claim UID are serialised; different claims run in
 * parallel. Every claim of a request gets an entry; a failure is that claim's {@code error}.
 */
public final class ClaimPreparer {

  private static final Logger LOG = LoggerFactory.getLogger(ClaimPreparer.class);

  private final String driverName;
  private final DeviceInventory inventory;
  private final ClaimLookup lookup;
  private final ClaimSpecs specs;
  private final Checkpoint checkpoint;
  private final Listener listener;
  /** Striped so that calls for one UID are serialised without a map of locks to clean up. */
  private final ReentrantLock[] claimLocks = new ReentrantLock[64];
  /** Guards {@link #inFlight} together with the "is this device free?" check. */
  private final Object deviceOwnership = new Object();
  /** Devices taken by claims being prepared right now (not yet in the checkpoint). */
  private final Map<String, ClaimRef> inFlight = new HashMap<>();

  /** Told about each claim's outcome (metrics). */
  public interface Listener {
    void prepared(ClaimRef claim, boolean ok, long nanos);

    void unprepared(ClaimRef claim, boolean ok, long nanos);

    Listener NONE = new Listener() {
      @Override
      public void prepared(ClaimRef claim, boolean ok, long nanos) {}

      @Override
      public void unprepared(ClaimRef claim, boolean ok, long nanos) {}
    };
  }

  public ClaimPreparer(String driverName, DeviceInventory inventory, ClaimLookup lookup, ClaimSpecs specs,
      Checkpoint checkpoint, Listener listener) {
    this.driverName = driverName;
    this.inventory = inventory;
    this.lookup = lookup;
    this.specs = specs;
    this.checkpoint = checkpoint;
    this.listener = listener;
    for (int i = 0; i < claimLocks.length; i++) {
      claimLocks[i] = new ReentrantLock();
    }
  }

  /** One entry per distinct claim UID of the request, in request order. */
  public Map<String, ClaimResult> prepare(List<ClaimRef> claims) {
    Map<String, ClaimResult> out = new LinkedHashMap<>();
    for (ClaimRef claim : claims) {
      out.computeIfAbsent(claim.uid(), uid -> timedPrepare(claim));
    }
    return out;
  }

  /** One entry per distinct claim UID; an empty error means done (also for claims never prepared). */
  public Map<String, String> unprepare(List<ClaimRef> claims) {
    Map<String, String> out = new LinkedHashMap<>();
    for (ClaimRef claim : claims) {
      out.computeIfAbsent(claim.uid(), uid -> timedUnprepare(claim));
    }
    return out;
  }

  private ClaimResult timedPrepare(ClaimRef claim) {
    long start = System.nanoTime();
    ClaimResult r = withClaimLock(claim.uid(), () -> prepareOne(claim));
    listener.prepared(claim, !r.failed(), System.nanoTime() - start);
    if (r.failed()) {
      LOG.warn("prepare failed claim={} err=\"{}\"", claim, r.error());
    } else {
      LOG.debug("prepared claim={} devices={}", claim, r.devices().size());
    }
    return r;
  }

  private String timedUnprepare(ClaimRef claim) {
    long start = System.nanoTime();
    String error = withClaimLock(claim.uid(), () -> unprepareOne(claim));
    listener.unprepared(claim, error.isEmpty(), System.nanoTime() - start);
    if (!error.isEmpty()) {
      LOG.warn("unprepare failed claim={} err=\"{}\"", claim, error);
    }
    return error;
  }

  private ClaimResult prepareOne(ClaimRef claim) {
    Optional<PreparedClaim> known = checkpoint.get(claim.uid());
    if (known.isPresent()) {
      return ClaimResult.ok(known.get().devices());
    }
    long t0 = System.nanoTime();
    List<AllocatedDevice> allocation;
    try {
      allocation = lookup.allocation(claim);
    } catch (ClaimLookupException e) {
      return ClaimResult.failed(e.getMessage());
    }
    long tl = System.nanoTime();
    List<AllocatedDevice> ours = allocation.stream().filter(a -> driverName.equals(a.driver())).toList();
    List<Device> devices = new ArrayList<>();
    for (AllocatedDevice a : ours) {
      if (!inventory.pool().equals(a.pool())) {
        return ClaimResult.failed("device " + a.pool() + "/" + a.device() + " of request " + a.request()
            + " is in pool " + a.pool() + ", but this node publishes pool " + inventory.pool());
      }
      Optional<Device> d = inventory.device(a.device());
      if (d.isEmpty()) {
        return ClaimResult.failed("device " + a.device() + " of request " + a.request()
            + " no longer exists on this node");
      }
      if (devices.stream().noneMatch(x -> x.name().equals(a.device()))) {
        devices.add(d.get());
      }
    }
    // Only exclusive devices are held by one claim. adminAccess results (KEP-5018) do not take the device,
    // and a device that allows multiple allocations (resource.k8s.io/v1 Device.allowMultipleAllocations,
    // KEP-5075) is prepared for every claim the scheduler gave a share of it.
    Map<String, Device> byName = new HashMap<>();
    devices.forEach(d -> byName.put(d.name(), d));
    List<String> exclusive = ours.stream()
        .filter(a -> !a.adminAccess() && !byName.get(a.device()).allowMultipleAllocations())
        .map(AllocatedDevice::device).distinct().toList();
    synchronized (deviceOwnership) {
      for (String device : exclusive) {
        Optional<ClaimRef> holder = holderOf(device, claim.uid());
        if (holder.isPresent()) {
          return ClaimResult.failed("device " + device + " is already prepared for claim " + holder.get());
        }
      }
      exclusive.forEach(device -> inFlight.put(device, claim));
    }
    long t1 = System.nanoTime();
    try {
      Map<String, List<String>> cdiIds;
      try {
        cdiIds = specs.write(claim, devices);
      } catch (IOException | RuntimeException e) {
        return ClaimResult.failed("cannot write the CDI spec: " + e.getMessage());
      }
      long t2 = System.nanoTime();
      List<PreparedDevice> prepared = new ArrayList<>();
      for (AllocatedDevice a : ours) {
        mergeInto(prepared, a, cdiIds.getOrDefault(a.device(), List.of()));
      }
      try {
        checkpoint.put(new PreparedClaim(claim, prepared));
      } catch (IOException e) {
        try {
          specs.remove(claim.uid());
        } catch (IOException suppressed) {
          e.addSuppressed(suppressed);
        }
        return ClaimResult.failed("cannot record the claim in the checkpoint " + checkpoint.file() + ": " + e.getMessage());
      }
      if (LOG.isDebugEnabled()) {
        // Where a Prepare's time goes (bench/agent-load.sh reads these at -v 1): the API read, our own checks,
        // the CDI spec write and the checkpoint commit, in microseconds.
        long t3 = System.nanoTime();
        LOG.debug("prepare spans claim={} lookupUs={} checkUs={} cdiUs={} checkpointUs={}", claim.uid(),
            (tl - t0) / 1000, (t1 - tl) / 1000, (t2 - t1) / 1000, (t3 - t2) / 1000);
      }
      return ClaimResult.ok(prepared);
    } finally {
      synchronized (deviceOwnership) {
        exclusive.forEach(device -> inFlight.remove(device, claim));
      }
    }
  }

  /**
   * Results for the same device under different requests become one entry with both request names;
   * the kubelet matches devices to containers by request name.
   */
  private static void mergeInto(List<PreparedDevice> prepared, AllocatedDevice a, List<String> cdiIds) {
    for (int i = 0; i < prepared.size(); i++) {
      PreparedDevice p = prepared.get(i);
      if (p.device().equals(a.device()) && p.pool().equals(a.pool())) {
        List<String> names = new ArrayList<>(p.requestNames());
        if (!names.contains(a.baseRequest())) {
          names.add(a.baseRequest());
        }
        prepared.set(i, new PreparedDevice(names, p.pool(), p.device(), p.cdiDeviceIds()));
        return;
      }
    }
    prepared.add(new PreparedDevice(List.of(a.baseRequest()), a.pool(), a.device(), cdiIds));
  }

  private Optional<ClaimRef> holderOf(String device, String exceptUid) {
    ClaimRef reserving = inFlight.get(device);
    if (reserving != null && !reserving.uid().equals(exceptUid)) {
      return Optional.of(reserving);
    }
    return checkpoint.holderOf(device, exceptUid);
  }

  private String unprepareOne(ClaimRef claim) {
    try {
      // Also when the checkpoint does not know the claim: a crash between writing the spec and
      // recording the claim leaves a spec behind that only this call can clean up.
      specs.remove(claim.uid());
      checkpoint.remove(claim.uid());
      return "";
    } catch (IOException | RuntimeException e) {
      return "cannot unprepare: " + e.getMessage();
    }
  }

  private <T> T withClaimLock(String uid, java.util.function.Supplier<T> body) {
    ReentrantLock lock = claimLocks[Math.floorMod(uid.hashCode(), claimLocks.length)];
    lock.lock();
    try {
      return body.get();
    } finally {
      lock.unlock();
    }
  }
}
