package io.nodeatlas.agent.run;

import io.fabric8.kubernetes.client.KubernetesClient;
import io.fabric8.kubernetes.client.KubernetesClientException;
import io.nodeatlas.agent.claims.Checkpoint;
import io.nodeatlas.agent.claims.ClaimPreparer;
import io.nodeatlas.agent.claims.ClaimSpecStore;
import io.nodeatlas.agent.claims.DeviceInventory;
import io.nodeatlas.agent.ops.ApiErrors;
import java.io.IOException;
import java.time.Duration;
import java.time.Instant;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Future;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * The agent's prepared claims between runs: a lost checkpoint (Prepare refused until {@code --recover}
 * reconciles it from the API server), the boot the checkpoint was written in, and claims of an earlier
 * boot that the API server says are gone (KEP-4381: the kubelet prepares the claims of restarted pods again).
 */
final class ClaimKeeper {

  private static final Logger LOG = LoggerFactory.getLogger(Agent.class);

  private final AgentSettings settings;
  private final java.util.function.Supplier<KubernetesClient> fabric8;
  private final DeviceInventory inventory;
  private final ClaimSpecStore specStore;
  /** Replaced when a rolling update's other instance changed the file ({@link CallLock}). */
  private volatile Checkpoint checkpoint;
  /** Around this keeper's own writes of the state (a rolling update's {@link CallLock}). */
  private volatile ClaimPreparer.CallGuard guard = ClaimPreparer.CallGuard.NONE;
  private final ClaimPreparer preparer;
  private final ExecutorService apiCalls;

  private Future<?> claimTask;
  private Instant claimTaskStarted;
  /** Claim specs of ours exist but the checkpoint is gone: Prepare is refused until recovered (null: not lost). */
  private volatile String lostCheckpoint;
  private volatile boolean recoverPending;
  private Instant nextClaimSweep = Instant.MIN;

  ClaimKeeper(AgentSettings settings, java.util.function.Supplier<KubernetesClient> fabric8, DeviceInventory inventory, ClaimSpecStore specStore,
      Checkpoint checkpoint, ClaimPreparer preparer, ExecutorService apiCalls) {
    this.settings = settings;
    this.fabric8 = fabric8;
    this.inventory = inventory;
    this.specStore = specStore;
    this.checkpoint = checkpoint;
    this.preparer = preparer;
    this.apiCalls = apiCalls;
  }

  /** Works with {@code c} from now on (read again after the other instance of a rolling update wrote it). */
  void useCheckpoint(Checkpoint c) {
    checkpoint = c;
  }

  /** Writes the state only inside {@code g}, as the preparer's calls (a rolling update). */
  void guardWrites(ClaimPreparer.CallGuard g) {
    guard = g;
  }

  private interface StateWrite {
    void run() throws IOException;
  }

  /** Runs {@code w} inside the guard; null, or why it failed. */
  private String guarded(StateWrite w) {
    return guard.around(io.nodeatlas.agent.claims.CallBudget.after(ClaimPreparer.DEFAULT_CALL_BUDGET), () -> {
      try {
        w.run();
        return null;
      } catch (IOException e) {
        return e.getMessage();
      }
    }, why -> why);
  }

  /** Why Prepare is refused for a lost checkpoint; null when it is not lost (or recovered). */
  String lostCheckpoint() {
    return lostCheckpoint;
  }

  /**
   * A checkpoint that is missing while claim specs of ours lie in the CDI dir was lost (deleted, or a
   * state directory that did not survive): answering Prepare from it would hand an exclusive device that
   * a running container holds to a second claim. Prepare is refused until the agent runs with
   * {@code --recover}, which reconciles the specs from the API server.
   */
  void checkLostCheckpoint() throws IOException {
    if (checkpoint.existed()) {
      return;
    }
    List<String> orphans = specStore.claimSpecUids();
    if (orphans.isEmpty()) {
      return;
    }
    if (settings.recover()) {
      lostCheckpoint = "recovering " + orphans.size() + " claim specs of a lost checkpoint from the API server";
      recoverPending = true;
      LOG.warn("the checkpoint {} is missing while {} claim specs of ours exist in {}; --recover: reconciling them "
          + "from the API server before serving Prepare", checkpoint.file(), orphans.size(), settings.cdiRoot());
    } else {
      lostCheckpoint = "the checkpoint " + checkpoint.file() + " is missing while " + orphans.size() + " claim specs of "
          + "ours exist in " + settings.cdiRoot() + ": the prepared claims were lost; Prepare is refused until the agent "
          + "is restarted with --recover (env NODEATLAS_RECOVER=true), which reconciles them from the API server";
      LOG.error("{}", lostCheckpoint);
    }
    preparer.refusePrepare(lostCheckpoint);
  }

  /** Records the boot ID in the checkpoint and reports a reboot (the claims' specs may be gone with the tmpfs). */
  void recordBoot() throws IOException {
    Optional<String> boot = BootId.read(settings.host(), w -> LOG.warn("boot ID: {}", w));
    if (boot.isEmpty()) {
      LOG.warn("cannot read the boot ID under {}: reboots are not detected (specs are still re-created when missing)",
          settings.host().procfsRoot());
    }
    Optional<String> before = checkpoint.startBoot(boot.orElse(""));
    int claims = checkpoint.unconfirmed().size();
    if (before.isPresent() && !before.get().isEmpty()) {
      LOG.warn("the node rebooted since the checkpoint was written (boot ID {} -> {}): {} recorded claims get their CDI "
          + "specs re-created when the kubelet prepares them again; those it never asks for are dropped when it "
          + "unprepares them or the API server says they are gone", before.get(), boot.orElse(""), claims);
    } else if (before.isPresent() && claims > 0) {
      LOG.info("the checkpoint recorded no boot ID (an older format): {} claims are checked against the API server",
          claims);
    }
  }

  /**
   * Claim work that needs the API server, on the API thread: the {@code --recover} reconciliation, then
   * (every resync) dropping claims of an earlier boot that the API server says are gone. One task at a
   * time; a task running past {@link SliceSync#API_CALL_BOUND} is reported and the loop goes on.
   */
  void maintain(Instant now, boolean discovered) {
    if (claimTask != null) {
      if (!claimTask.isDone()) {
        if (Duration.between(claimTaskStarted, now).compareTo(SliceSync.API_CALL_BOUND) > 0) {
          LOG.warn("claim maintenance has waited for the API server for {} s",
              Duration.between(claimTaskStarted, now).toSeconds());
          claimTaskStarted = now;
        }
        return;
      }
      claimTask = null;
    }
    if (!discovered) {
      return;
    }
    if (recoverPending) {
      claimTaskStarted = now;
      claimTask = apiCalls.submit(this::recover);
      return;
    }
    if (lostCheckpoint == null && !now.isBefore(nextClaimSweep) && !checkpoint.unconfirmed().isEmpty()) {
      nextClaimSweep = now.plus(settings.resyncInterval());
      claimTaskStarted = now;
      claimTask = apiCalls.submit(this::dropGoneClaims);
    }
  }

  /**
   * Claims recorded in an earlier boot and not prepared again: each is read from the API server, and
   * one that no longer exists (404) or exists under another UID is unprepared (its checkpoint entry and
   * spec removed); one that still exists is kept, the kubelet may still ask for it.
   */
  private void dropGoneClaims() {
    for (String uid : checkpoint.unconfirmed()) {
      Optional<io.nodeatlas.agent.claims.PreparedClaim> c = checkpoint.get(uid);
      if (c.isEmpty()) {
        continue;
      }
      io.nodeatlas.agent.claims.ClaimRef ref = c.get().claim();
      io.fabric8.kubernetes.api.model.resource.v1.ResourceClaim claim;
      try {
        claim = fabric8.get().resources(io.fabric8.kubernetes.api.model.resource.v1.ResourceClaim.class)
            .inNamespace(ref.namespace()).withName(ref.name()).get();
      } catch (RuntimeException e) { // fabric8's failures, and one to build its client on this first use
        LOG.warn("cannot check whether claim {} still exists err=\"{}\"; trying again next resync", ref, describe(e));
        return;
      }
      String why = claim == null ? "the API server says it no longer exists"
          : uid.equals(claim.getMetadata().getUid()) ? null : "the API server has another claim of that name (UID "
              + claim.getMetadata().getUid() + ")";
      if (why != null) {
        String err = preparer.unprepare(List.of(ref)).getOrDefault(uid, "");
        if (err.isEmpty()) {
          LOG.info("dropped claim {} of an earlier boot that the kubelet did not prepare again: {}", ref, why);
        }
      }
    }
  }

  /**
   * {@code --recover} after a lost checkpoint: each claim spec of ours is matched by UID against the
   * claims in the API server. A claim that still exists, is allocated and has results of our driver in
   * this node's pool is prepared again (same spec ids, recorded anew); the spec of any other is removed.
   * Prepare is served once every spec is accounted for; on an API error it is tried again next round.
   */
  private void recover() {
    List<String> uids;
    Map<String, io.fabric8.kubernetes.api.model.resource.v1.ResourceClaim> byUid = new java.util.HashMap<>();
    try {
      uids = specStore.claimSpecUids();
      String cont = null;
      do {
        io.fabric8.kubernetes.api.model.KubernetesResourceList<io.fabric8.kubernetes.api.model.resource.v1.ResourceClaim> page = fabric8.get()
            .resources(io.fabric8.kubernetes.api.model.resource.v1.ResourceClaim.class).inAnyNamespace()
            .list(new io.fabric8.kubernetes.api.model.ListOptionsBuilder().withLimit(500L).withContinue(cont).build());
        for (var c : page.getItems()) {
          if (c.getMetadata() != null && uids.contains(c.getMetadata().getUid())) {
            byUid.put(c.getMetadata().getUid(), c);
          }
        }
        cont = page.getMetadata() == null ? null : page.getMetadata().getContinue();
      } while (cont != null && !cont.isEmpty());
    } catch (IOException | RuntimeException e) {
      LOG.warn("recovery: cannot list ResourceClaims err=\"{}\"; trying again", describe(e));
      return;
    }
    int kept = 0;
    int removed = 0;
    for (String uid : uids) {
      var claim = byUid.get(uid);
      String why = claim == null ? "no claim with this UID exists" : ours(claim);
      if (why == null) {
        var ref = new io.nodeatlas.agent.claims.ClaimRef(claim.getMetadata().getNamespace(), claim.getMetadata().getName(), uid);
        io.nodeatlas.agent.claims.ClaimResult r = preparer.recover(ref);
        if (!r.failed()) {
          kept++;
          LOG.info("recovery: claim {} re-checkpointed with its spec", ref);
          continue;
        }
        why = "preparing it again failed: " + r.error();
      }
      String err = guarded(() -> specStore.remove(uid));
      if (err != null) {
        LOG.error("recovery: cannot remove the claim spec of UID {} err=\"{}\"", uid, err);
        return;
      }
      removed++;
      LOG.warn("recovery: removed the claim spec of UID {}: {}", uid, why);
    }
    String err = guarded(this::recordBoot);
    if (err != null) {
      LOG.error("recovery: cannot write the checkpoint err=\"{}\"", err);
      return;
    }
    LOG.warn("recovery done: {} claims re-checkpointed, {} specs of claims that are gone or not ours removed; serving "
        + "Prepare", kept, removed);
    recoverPending = false;
    lostCheckpoint = null;
    preparer.refusePrepare(null);
  }

  /** Null when the claim is allocated with results of our driver in this node's pool; else why not. */
  private String ours(io.fabric8.kubernetes.api.model.resource.v1.ResourceClaim claim) {
    var alloc = claim.getStatus() == null ? null : claim.getStatus().getAllocation();
    if (alloc == null || alloc.getDevices() == null || alloc.getDevices().getResults() == null) {
      return "the claim is not allocated";
    }
    boolean here = alloc.getDevices().getResults().stream()
        .anyMatch(r -> settings.driverName().equals(r.getDriver()) && inventory.pool().equals(r.getPool()));
    return here ? null : "the claim has no device of driver " + settings.driverName() + " on this node";
  }

  /** A failure of fabric8's client as one line, naming the API server when it did not answer. */
  private String describe(Exception e) {
    if (!(e instanceof KubernetesClientException)) {
      return ApiErrors.describe(e);
    }
    try {
      return ApiErrors.describe(e, fabric8.get().getMasterUrl());
    } catch (RuntimeException again) {
      return ApiErrors.describe(e);
    }
  }
}
