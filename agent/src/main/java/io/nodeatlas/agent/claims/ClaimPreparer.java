package io.nodeatlas.agent.claims;

import io.nodeatlas.agent.shares.Families;
import io.nodeatlas.agent.shares.ShareEdits;
import io.nodeatlas.agent.shares.SharePlanner;
import io.nodeatlas.discovery.model.Device;
import io.nodeatlas.discovery.share.DeviceRealiser;
import io.nodeatlas.discovery.share.Placement;
import io.nodeatlas.discovery.share.Share;
import io.nodeatlas.discovery.share.SharePlacer;
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
 * allocations, is not held by another claim; place each share of a device that does allow them
 * ({@link SharePlanner}: shareID and consumedCapacity checked, capacity accounted among the shares of
 * every claim, the device's family placing the share); write the claim's CDI spec ({@link ShareEdits}:
 * each family's container edits), record the claim with its families' placements in the checkpoint, and answer the CDI ids (and share ids). A claim
 * answered from the checkpoint is re-checked against the node as it is now: a share that no longer
 * fits fails it. Unprepare works from the checkpoint alone, and releases the claim's shares. Calls for the same claim UID are serialised; different claims run in
 * parallel. Every claim of a request gets an entry; a failure is that claim's {@code error}.
 *
 * <p>The claims of one call run in parallel ({@link ClaimWorkers}) within the call's {@link CallBudget}:
 * claims already in the checkpoint are answered first and without the API server; a claim not
 * finished when the budget ends gets an error of its own, and its work stops at the next step (before
 * the API read, before devices are reserved, before the spec is written, before the checkpoint
 * commit), removing a spec it wrote but did not record. A commit that started completes: the
 * checkpoint never holds half a claim.
 */
public final class ClaimPreparer {

  private static final Logger LOG = LoggerFactory.getLogger(ClaimPreparer.class);

  private final String driverName;
  private final DeviceInventory inventory;
  private final ClaimLookup lookup;
  private final ClaimSpecs specs;
  /** Replaced only between calls, under {@link #guard} (a rolling update's other instance changed the file). */
  private volatile Checkpoint checkpoint;
  private volatile CallGuard guard = CallGuard.NONE;
  private final Listener listener;
  /**
   * One lock per claim UID being worked on, dropped when no call uses it: calls for one claim are
   * serialised, and a claim never waits for another one (a claim stuck on the API server holds only
   * its own lock). Guarded by itself.
   */
  private final Map<String, ClaimLock> claimLocks = new HashMap<>();

  private static final class ClaimLock {
    final ReentrantLock lock = new ReentrantLock();
    int users;
  }
  /** Why Prepare is refused for now (a lost checkpoint awaiting --recover, a hand-over); null while serving. */
  private volatile String refusal;
  private final ShareEdits shareEdits;
  private final Families families;
  private final DeviceRealisations realisations;
  private final SpecRestorer restorer;
  private final DeviceReservations reservations;
  /** Told about each prepared claim's devices (the claim's network status, KEP-4817); never fails Prepare. */
  private volatile java.util.function.BiConsumer<ClaimRef, List<PreparedDevice>> onPrepared = (c, d) -> {};
  private final ClaimWorkers workers;
  /** The files a prepared claim's containers get beside its devices (KEP-5304 device metadata). */
  private volatile ClaimMetadata metadata = ClaimMetadata.NONE;

  /** The budget of a call made without one (tools, tests): the kubelet's own deadline is 45 s. */
  public static final java.time.Duration DEFAULT_CALL_BUDGET = java.time.Duration.ofSeconds(20);
  /** Claims of one call worked on at once: the API read and fsync overlap, 2 to 8 cores stay busy. */
  public static final int CALL_PARALLELISM = 8;

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

  /** The path a host-installed OCI hook has when none is configured ({@code systemd/install.sh} puts it there). */
  public static final String DEFAULT_HOOK_PATH = "/usr/local/libexec/nodeatlas/cpuset-hook";

  public ClaimPreparer(String driverName, DeviceInventory inventory, ClaimLookup lookup, ClaimSpecs specs,
      Checkpoint checkpoint, Listener listener) {
    this(driverName, inventory, lookup, specs, checkpoint, listener, DEFAULT_HOOK_PATH);
  }

  /** {@code hookPath}: where nodeatlas's OCI hook lies on the host; the families' container edits name it. */
  public ClaimPreparer(String driverName, DeviceInventory inventory, ClaimLookup lookup, ClaimSpecs specs,
      Checkpoint checkpoint, Listener listener, String hookPath) {
    this(driverName, inventory, lookup, specs, checkpoint, listener, hookPath, ClaimWorkers.pooled(CALL_PARALLELISM));
  }

  /** {@code workers}: who runs the claims of one call (parallelism and threads). */
  public ClaimPreparer(String driverName, DeviceInventory inventory, ClaimLookup lookup, ClaimSpecs specs,
      Checkpoint checkpoint, Listener listener, String hookPath, ClaimWorkers workers) {
    this(driverName, inventory, lookup, specs, checkpoint, listener,
        Families.installed(ClaimPreparer.class.getClassLoader(), new SharePlacer.Settings(hookPath)), workers);
  }

  /** {@code families}: the claim-time side of the installed device families. */
  public ClaimPreparer(String driverName, DeviceInventory inventory, ClaimLookup lookup, ClaimSpecs specs,
      Checkpoint checkpoint, Listener listener, Families families, ClaimWorkers workers) {
    this.workers = workers;
    this.families = families;
    this.shareEdits = new ShareEdits(families);
    this.driverName = driverName;
    this.inventory = inventory;
    this.lookup = lookup;
    this.specs = specs;
    this.realisations = new DeviceRealisations(families);
    this.restorer = new SpecRestorer(specs, inventory, families, realisations, shareEdits);
    this.reservations = new DeviceReservations(inventory, families, () -> this.checkpoint);
    this.checkpoint = checkpoint;
    this.listener = listener;
  }

  /**
   * Makes every Prepare fail with {@code reason} (null: serve again). Unprepare still works: it only
   * forgets and removes.
   */
  public void refusePrepare(String reason) {
    refusal = reason;
  }

  /** The device metadata files of prepared claims (KEP-5304); none unless set. */
  /** At start, before serving: see {@link DeviceRealisations#reconcile}. */
  public void reconcileRealised() {
    realisations.reconcile(checkpoint, specs);
  }

  /**
   * While the agent runs: the families check what they made for the recorded claims ({@link DeviceRealisations#upkeep}),
   * inside the call guard (a rolling update's other instance); the counts of what they did, by action.
   */
  public Map<String, Integer> upkeep() {
    return guard.around(CallBudget.after(DEFAULT_CALL_BUDGET), () -> realisations.upkeep(checkpoint), why -> Map.of());
  }

  public ClaimPreparer withMetadata(ClaimMetadata files) {
    this.metadata = files;
    return this;
  }

  /** Calls {@code hook} after each successful Prepare of a claim (with its devices); its faults are logged only. */
  public ClaimPreparer onPrepared(java.util.function.BiConsumer<ClaimRef, List<PreparedDevice>> hook) {
    this.onPrepared = hook;
    return this;
  }

  /** One entry per distinct claim UID of the request, in request order, within {@link #DEFAULT_CALL_BUDGET}. */
  public Map<String, ClaimResult> prepare(List<ClaimRef> claims) {
    return prepare(claims, CallBudget.after(DEFAULT_CALL_BUDGET));
  }

  /** One entry per distinct claim UID of the request, in request order; claims not done within {@code budget} fail. */
  public Map<String, ClaimResult> prepare(List<ClaimRef> claims, CallBudget budget) {
    return guard.around(budget, () -> workers.run(claims, budget, c -> checkpoint.get(c.uid()).isPresent(),
        c -> timedPrepare(c, budget), c -> late(c, budget, "prepared")), why -> refuseAll(claims, why));
  }

  /**
   * Serialises whole calls with another instance of the driver: Prepare, Unprepare and {@link #recover}
   * run inside {@code g} (a rolling update's file lock, kubeletplugin {@code RollingUpdate}).
   */
  public ClaimPreparer guardCalls(CallGuard g) {
    this.guard = g;
    return this;
  }

  /** Answers from {@code c} from now on; only inside the guard, between calls (the file changed under us). */
  public void useCheckpoint(Checkpoint c) {
    this.checkpoint = c;
  }

  /** What runs each call; {@link #NONE} runs it at once. */
  public interface CallGuard {
    /** Runs {@code call} inside the guard, or answers {@code refused} with why it could not within {@code budget}. */
    <T> T around(CallBudget budget, java.util.function.Supplier<T> call, java.util.function.Function<String, T> refused);

    CallGuard NONE = new CallGuard() {
      @Override
      public <T> T around(CallBudget budget, java.util.function.Supplier<T> call,
          java.util.function.Function<String, T> refused) {
        return call.get();
      }
    };
  }

  private static Map<String, ClaimResult> refuseAll(List<ClaimRef> claims, String why) {
    Map<String, ClaimResult> out = new LinkedHashMap<>();
    claims.forEach(c -> out.putIfAbsent(c.uid(), ClaimResult.failed(why)));
    LOG.warn("calls refused claims={} err=\"{}\"", out.size(), why);
    return out;
  }

  /**
   * Prepares one claim whatever {@link #refusePrepare} says: the {@code --recover} reconciliation of a
   * lost checkpoint, which runs while the kubelet's calls are still refused.
   */
  public ClaimResult recover(ClaimRef claim) {
    CallBudget budget = CallBudget.after(DEFAULT_CALL_BUDGET);
    try {
      return guard.around(budget, () -> withClaimLock(claim.uid(), budget, () -> prepareOne(claim, budget)),
          ClaimResult::failed);
    } catch (Busy e) {
      return ClaimResult.failed(e.getMessage());
    } catch (RuntimeException e) {
      return ClaimResult.failed("internal error: " + e);
    }
  }

  /** One entry per distinct claim UID; an empty error means done (also for claims never prepared). */
  public Map<String, String> unprepare(List<ClaimRef> claims) {
    return unprepare(claims, CallBudget.after(DEFAULT_CALL_BUDGET));
  }

  /** As {@link #unprepare(List)}; claims not done within {@code budget} fail. */
  public Map<String, String> unprepare(List<ClaimRef> claims, CallBudget budget) {
    Map<String, ClaimResult> r = guard.around(budget, () -> workers.run(claims, budget, c -> false,
        c -> ClaimResult.failed(timedUnprepare(c, budget)), c -> late(c, budget, "unprepared")),
        why -> refuseAll(claims, why));
    Map<String, String> out = new LinkedHashMap<>();
    r.forEach((uid, result) -> out.put(uid, result.error()));
    return out;
  }

  private ClaimResult late(ClaimRef claim, CallBudget budget, String what) {
    ClaimResult r = ClaimResult.failed("not " + what + " in time: " + budget.why() + "; the kubelet will ask again");
    LOG.warn("{} claim={} err=\"{}\"", what.equals("prepared") ? "prepare failed" : "unprepare failed", claim, r.error());
    return r;
  }

  private ClaimResult timedPrepare(ClaimRef claim, CallBudget budget) {
    long start = System.nanoTime();
    ClaimResult r;
    String refused = refusal;
    try {
      // A claim in the checkpoint is answered without waiting for its lock: a call for another claim
      // stuck on the API server under the same lock stripe must not cost it its answer.
      Optional<PreparedClaim> known = refused != null ? Optional.empty() : checkpoint.get(claim.uid());
      r = refused != null ? ClaimResult.failed(refused)
          : known.isPresent() ? fromCheckpoint(known.get())
          : withClaimLock(claim.uid(), budget, () -> prepareOne(claim, budget));
    } catch (Busy e) {
      r = ClaimResult.failed(e.getMessage());
    } catch (RuntimeException e) {
      // A fault of one claim is that claim's answer: an exception out of the call would make the
      // kubelet drop the answers of the call's other claims, prepared or not.
      r = ClaimResult.failed("internal error: " + e);
    }
    listener.prepared(claim, !r.failed(), System.nanoTime() - start);
    if (r.failed()) {
      LOG.warn("prepare failed claim={} err=\"{}\"", claim, r.error());
    } else {
      LOG.debug("prepared claim={} devices={}", claim, r.devices().size());
      try {
        onPrepared.accept(claim, r.devices());
      } catch (RuntimeException e) {
        LOG.warn("after prepare claim={} err=\"{}\"", claim, e.toString());
      }
    }
    return r;
  }

  private String timedUnprepare(ClaimRef claim, CallBudget budget) {
    long start = System.nanoTime();
    String error;
    try {
      error = withClaimLock(claim.uid(), budget, () -> unprepareOne(claim));
    } catch (Busy e) {
      error = e.getMessage();
    } catch (RuntimeException e) {
      error = "internal error: " + e;
    }
    listener.unprepared(claim, error.isEmpty(), System.nanoTime() - start);
    if (!error.isEmpty()) {
      LOG.warn("unprepare failed claim={} err=\"{}\"", claim, error);
    }
    return error;
  }

  /** A claim already prepared: its shares checked again and its spec re-created when gone (a reboot's tmpfs). */
  private ClaimResult fromCheckpoint(PreparedClaim known) {
    String stale = reservations.recheck(known);
    if (stale != null) {
      return ClaimResult.failed(stale);
    }
    ClaimMetadata.Restored files = metadata.restore(known);
    stale = restorer.restore(known, checkpoint, files.mounts());
    return stale == null ? ClaimResult.ok(files.devices()) : ClaimResult.failed(stale);
  }

  private ClaimResult prepareOne(ClaimRef claim, CallBudget budget) {
    Optional<PreparedClaim> known = checkpoint.get(claim.uid());
    if (known.isPresent()) {
      return fromCheckpoint(known.get());
    }
    long t0 = System.nanoTime();
    AllocatedClaim found;
    try {
      found = lookup.allocatedClaim(claim, budget);
    } catch (ClaimLookupException e) {
      return ClaimResult.failed(e.getMessage());
    }
    List<AllocatedDevice> allocation = found.results();
    long tl = System.nanoTime();
    if (budget.over()) {
      return stopped(budget);
    }
    List<AllocatedDevice> ours = allocation.stream().filter(a -> driverName.equals(a.driver())).toList();
    DeviceReservations.Reservation reserved;
    try {
      reserved = reservations.reserve(claim, ours);
    } catch (DeviceReservations.Refused e) {
      return ClaimResult.failed(e.getMessage());
    }
    long t1 = System.nanoTime();
    // What the devices' families made real for this claim (a MIG instance), undone unless recorded.
    Map<String, Placement> realised = new LinkedHashMap<>();
    List<Share> realShares = new ArrayList<>();
    boolean committed = false;
    try {
      String notReal = realisations.realise(reserved.claim().uid(), reserved.exclusive(),
          name -> reserved.byName().get(name).device(), reserved.ours(), realised);
      if (notReal == null) {
        notReal = realisations.realiseShares(reserved.shares(), name -> reserved.byName().get(name).device(), realShares);
      }
      if (notReal != null) {
        return ClaimResult.failed(notReal);
      }
      SpecPlan plan = plan(reserved, realised);
      if (budget.over()) {
        return stopped(budget);
      }
      // The device metadata files first (KEP-5304): the claim's one spec carries their mounts, and the
      // checkpoint records their ids with the devices'.
      java.util.SortedMap<String, ClaimMount> mounts = metadata.write(claim, new AllocatedClaim(ours, found.podClaimName()));
      Map<String, List<String>> cdiIds;
      try {
        cdiIds = specs.write(claim, plan.devices(), List.copyOf(mounts.values()));
      } catch (IOException | RuntimeException e) {
        removeMetadataOf(claim);
        return ClaimResult.failed("cannot write the CDI spec: " + e.getMessage());
      }
      long t2 = System.nanoTime();
      Map<String, String> mountIds = new LinkedHashMap<>();
      mounts.forEach((request, m) -> cdiIds.getOrDefault(m.name(), List.of()).forEach(id -> mountIds.put(request, id)));
      List<PreparedDevice> prepared = ClaimMetadata.withIds(prepared(reserved, plan, cdiIds, realised), mountIds);
      if (budget.over()) {
        // The spec is written but not recorded: take it back, so nothing of a claim we answer with an
        // error stays behind.
        removeSpecOf(claim);
        removeMetadataOf(claim);
        return stopped(budget);
      }
      String failed = commit(claim, prepared);
      if (failed != null) {
        removeMetadataOf(claim);
        return ClaimResult.failed(failed);
      }
      committed = true;
      if (LOG.isDebugEnabled()) {
        // Where a Prepare's time goes (bench/agent-load.sh reads these at -v 1): the API read, our own checks,
        // the CDI spec write and the checkpoint commit, in microseconds.
        long t3 = System.nanoTime();
        LOG.debug("prepare spans claim={} lookupUs={} checkUs={} cdiUs={} checkpointUs={}", claim.uid(),
            (tl - t0) / 1000, (t1 - tl) / 1000, (t2 - t1) / 1000, (t3 - t2) / 1000);
      }
      return ClaimResult.ok(prepared);
    } finally {
      if (!committed) {
        realisations.undo(claim, realised);
        realisations.undoShares(claim, realShares);
      }
      reservations.release(reserved);
    }
  }

  /** The devices of the claim's spec, and the CDI device name of each share (by device and share id). */
  private record SpecPlan(List<Device> devices, Map<String, String> shareDeviceNames) {}

  /** The spec holds each exclusive device as published, and one device per share with the families' edits. */
  private SpecPlan plan(DeviceReservations.Reservation r, Map<String, Placement> realised) {
    List<ShareEdits.Placed> placed = new ArrayList<>();
    Map<String, String> shareDeviceNames = new HashMap<>();
    for (Share s : new java.util.LinkedHashSet<>(r.shares().values())) {
      placed.add(new ShareEdits.Placed(r.byName().get(s.device()), s));
      shareDeviceNames.put(s.device() + "\n" + s.shareId(), ShareEdits.deviceName(s.device(), s.shareId()));
    }
    List<Device> whole = new ArrayList<>();
    for (AllocatedDevice a : r.ours()) {
      if (!r.shares().containsKey(a) && !shareDeviceNames.containsValue(a.device())
          && whole.stream().noneMatch(x -> x.name().equals(a.device()))) {
        whole.add(realisations.edits(r.byName().get(a.device()).device(), realised.getOrDefault(a.device(), Placement.NONE)));
      }
    }
    return new SpecPlan(shareEdits.devices(placed, whole), shareDeviceNames);
  }

  /** The claim's devices as the kubelet gets them and the checkpoint records them, with their CDI ids. */
  private static List<PreparedDevice> prepared(DeviceReservations.Reservation r, SpecPlan plan, Map<String, List<String>> cdiIds,
      Map<String, Placement> realised) {
    List<PreparedDevice> prepared = new ArrayList<>();
    for (AllocatedDevice a : r.ours()) {
      Share s = r.shares().get(a);
      if (s == null) {
        mergeInto(prepared, a, null, cdiIds.getOrDefault(a.device(), List.of()), realised.get(a.device()));
      } else {
        mergeInto(prepared, a, s, cdiIds.getOrDefault(plan.shareDeviceNames().get(s.device() + "\n" + s.shareId()), List.of()),
            null);
      }
    }
    return prepared;
  }

  /**
   * Records the claim, its spec already in place; null when done, else why not (the spec is then removed).
   *
   * <p>Crash safety, with one durable commit per claim (the checkpoint's fsync and directory fsync,
   * shared by claims committed together): the spec is renamed into place before the claim is
   * recorded, and the kubelet gets its answer only after the commit, so
   * <ul>
   *   <li>a killed agent (the page cache survives it) leaves a spec for every recorded claim, and at
   *       most a spec that no record names: the kubelet's retried Prepare rewrites it (same file, same
   *       ids) and records the claim, or its Unprepare removes it (Unprepare removes the spec also for
   *       a claim the checkpoint does not know);
   *   <li>a power cut or kernel crash, which may lose the un-synced spec (ClaimSpecStore writes it
   *       without fsync) whatever the order, starts a new boot: every recorded claim becomes unconfirmed,
   *       the kubelet prepares the claims of the pods it restarts again before starting their containers
   *       (KEP-4381), and that Prepare re-creates the spec from the checkpoint unless the file there is a
   *       valid spec with the recorded ids (restoreSpec). A claim the kubelet does not ask for again is
   *       dropped when its claim is gone (the agent's sweep of unconfirmed claims).
   * </ul>
   * The CDI spec's own fsyncs would so buy nothing that the checkpoint does not already give.
   */
  private String commit(ClaimRef claim, List<PreparedDevice> prepared) {
    try {
      checkpoint.put(new PreparedClaim(claim, prepared));
      return null;
    } catch (IOException e) {
      try {
        specs.remove(claim.uid());
      } catch (IOException suppressed) {
        e.addSuppressed(suppressed);
      }
      return "cannot record the claim in the checkpoint " + checkpoint.file() + ": " + e.getMessage();
    }
  }

  private void removeMetadataOf(ClaimRef claim) {
    try {
      metadata.remove(claim.uid());
    } catch (IOException | RuntimeException e) {
      LOG.warn("cannot remove the device metadata of an abandoned claim claim={} err=\"{}\"", claim, e.getMessage());
    }
  }

  private void removeSpecOf(ClaimRef claim) {
    try {
      specs.remove(claim.uid());
    } catch (IOException e) {
      LOG.warn("cannot remove the spec of an abandoned claim claim={} err=\"{}\"", claim, e.getMessage());
    }
  }

  /**
   * Results for the same device (and the same share) under different requests become one entry with
   * both request names; the kubelet matches devices to containers by request name.
   */
  private static void mergeInto(List<PreparedDevice> prepared, AllocatedDevice a, Share share, List<String> cdiIds,
      Placement realised) {
    String shareId = share == null ? "" : share.shareId();
    for (int i = 0; i < prepared.size(); i++) {
      PreparedDevice p = prepared.get(i);
      if (p.device().equals(a.device()) && p.pool().equals(a.pool()) && p.shareId().equals(shareId)) {
        List<String> names = new ArrayList<>(p.requestNames());
        if (!names.contains(a.baseRequest())) {
          names.add(a.baseRequest());
        }
        prepared.set(i, new PreparedDevice(names, p.pool(), p.device(), p.cdiDeviceIds(), p.shareId(), p.consumedCapacity(),
            p.placement()));
        return;
      }
    }
    if (share == null) {
      prepared.add(new PreparedDevice(List.of(a.baseRequest()), a.pool(), a.device(), cdiIds, "", Map.of(), realised));
    } else {
      prepared.add(ShareRecords.prepared(List.of(a.baseRequest()), a.pool(), share, cdiIds));
    }
  }

  private String unprepareOne(ClaimRef claim) {
    try {
      // The checkpoint first: a claim it still records must keep its spec, since a restarted agent answers
      // Prepare from the checkpoint with the spec's CDI ids (a kill -9 between the two steps would otherwise
      // leave a recorded claim whose ids resolve to nothing). The spec goes also when the checkpoint does
      // not know the claim: a crash between writing the spec and recording the claim, or between these two
      // steps, leaves a spec behind that only this call (repeated by the kubelet until it succeeds) removes.
      specs.checkDirectory();
      // What a family made real for the claim goes first: while that fails the claim stays recorded, and the
      // kubelet's repeated Unprepare tries again.
      Optional<PreparedClaim> known = checkpoint.get(claim.uid());
      if (known.isPresent()) {
        for (PreparedDevice d : known.get().devices()) {
          if (d.isShare()) {
            realisations.undoShare(ShareRecords.held(claim.uid(), d));
          } else if (!d.placementOrNone().empty()) {
            realisations.undoRecord(claim.uid(), d.device(), d.placementOrNone());
          }
        }
      }
      checkpoint.remove(claim.uid());
      specs.remove(claim.uid());
      metadata.remove(claim.uid());
      return "";
    } catch (IOException | DeviceRealiser.RealiseException | RuntimeException e) {
      return "cannot unprepare: " + e.getMessage();
    }
  }

  /** The claim's lock was not free within the call's budget. */
  private static final class Busy extends RuntimeException {
    private static final long serialVersionUID = 1L;

    Busy(String message) {
      super(message, null, false, false);
    }
  }

  private static ClaimResult stopped(CallBudget budget) {
    return ClaimResult.failed("stopped: " + budget.why() + "; the kubelet will ask again");
  }

  private <T> T withClaimLock(String uid, CallBudget budget, java.util.function.Supplier<T> body) {
    ClaimLock entry;
    synchronized (claimLocks) {
      entry = claimLocks.computeIfAbsent(uid, u -> new ClaimLock());
      entry.users++;
    }
    try {
      try {
        if (!entry.lock.tryLock(budget.remainingNanos(), java.util.concurrent.TimeUnit.NANOSECONDS)) {
          throw new Busy("another call for this claim is still running and " + budget.why());
        }
      } catch (InterruptedException e) {
        Thread.currentThread().interrupt();
        throw new Busy("interrupted while waiting for another call for this claim");
      }
      try {
        return body.get();
      } finally {
        entry.lock.unlock();
      }
    } finally {
      synchronized (claimLocks) {
        if (--entry.users == 0) {
          claimLocks.remove(uid);
        }
      }
    }
  }
}
