package io.nodeatlas.discovery.share;

import io.nodeatlas.discovery.model.Device;
import java.util.List;
import java.util.Set;

/**
 * The part of a device family that makes an allocated device real at Prepare (KEP-4381
 * NodePrepareResources) and undoes it at NodeUnprepareResources: a MIG instance created at the
 * placement a KEP-4815 partitionable device names. What it made is an opaque, versioned
 * {@link Placement} (its record) that the agent stores in the claim's checkpoint entry before it
 * answers, and hands back to undo it, to edit the claim's CDI device, and at start to re-find it.
 *
 * <p>A crash can fall between {@link #realise} and the agent's checkpoint commit: the family keeps its
 * own journal (under the state directory it was given) of what it is making, so {@link #reconcile} can
 * undo what no live claim records. It never touches what it did not make. Implementations are thread-safe;
 * the agent calls them for different claims at once, and for one claim one call at a time.
 */
public interface DeviceRealiser {

  /** Whether {@code device}, allocated whole to a claim, is made real by this family at Prepare. */
  boolean realises(Device device);

  /**
   * Makes {@code device} real for claim {@code claimUid}, as the claim's {@code configs} say (the
   * {@code opaque.parameters} of its allocation's {@code config[]} entries for our driver that apply to the
   * device's requests, as JSON text, in allocation order: a class's before the claim's); the record of what
   * was made, {@link Placement#NONE} when nothing was needed. A configuration the family owns but cannot
   * accept, or a failure, is a {@link RealiseException} whose message is a sentence for the kubelet; nothing
   * of it is left then.
   */
  Placement realise(String claimUid, Device device, List<String> configs) throws RealiseException;

  /** {@code device} as the claim's container gets it, given its {@code record}: the family's CDI edits added. */
  Device containerEdits(Device device, Placement record);

  /**
   * Undoes {@code record} of claim {@code claimUid}; true when the record is this family's (whether or not
   * what it names still existed), false when it is not. Undoing what is already gone succeeds.
   */
  boolean unrealise(String claimUid, String device, Placement record) throws RealiseException;

  /**
   * At the agent's start, before it serves: {@code live} are the records of every claim in the checkpoint
   * (those of other families included), {@code claims} every claim UID it holds. Undoes what this family
   * made for claims that no longer exist, re-finds what live claims record, and re-makes what is gone (a
   * reboot clears MIG instances). Returns the records that changed, to be stored instead of the old ones;
   * a record it cannot re-make stays as it was, with a warning.
   */
  List<Realised> reconcile(List<Realised> live, Set<String> claims);

  /**
   * Makes a placed share of a device several claims hold real for its claim (an MPS control daemon per GPU,
   * started by the first share that needs it); returns the share's placement with what was made added (its
   * placer still reads it), or as it was when nothing was needed. Nothing of a refused share is left.
   */
  default Placement realiseShare(Share share, Device device) throws RealiseException {
    return share.placement();
  }

  /**
   * Undoes {@link #realiseShare} for one share (the last share of a GPU stops its daemon); true when the
   * share's placement is this family's. Undoing what is already gone succeeds.
   */
  default boolean unrealiseShare(Share share) throws RealiseException {
    return false;
  }

  /**
   * As {@link #reconcile(List, Set)}, with the {@code shares} every recorded claim holds (their placements as
   * {@link #realiseShare} returned them), so what the shares need is kept exactly while one of them lives.
   */
  default List<Realised> reconcile(List<Realised> live, List<Share> shares, Set<String> claims) {
    return reconcile(live, claims);
  }

  /**
   * While the agent runs, every few seconds, by the instance that holds the state directory (serialised with a
   * rolling update's other instance's calls): {@code claims} are the UIDs of every claim it holds. Makes again what
   * it made for live claims and what has gone since (a daemon that died), and undoes what no live claim holds any
   * more. Returns what it did, counted by a short action name of the family's (e.g. {@code gpu_mps_daemon_restarted}),
   * for the agent's metrics; it logs each action itself and never throws.
   */
  default java.util.Map<String, Integer> upkeep(Set<String> claims) {
    return java.util.Map.of();
  }

  /** One device of a claim and the record of what was made for it. */
  record Realised(String claimUid, String device, Placement record) {
    public Realised {
      java.util.Objects.requireNonNull(claimUid, "claimUid");
      java.util.Objects.requireNonNull(device, "device");
      java.util.Objects.requireNonNull(record, "record");
    }
  }

  /** A device could not be made real (or undone): the message says why, for the kubelet. */
  final class RealiseException extends Exception {
    private static final long serialVersionUID = 1L;

    public RealiseException(String message) {
      super(message);
    }

    public RealiseException(String message, Throwable cause) {
      super(message, cause);
    }
  }
}
