package io.nodeatlas.agent.claims;

import java.security.MessageDigest;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.List;

/**
 * The checkpoint's SHA-256 ({@link CanonicalJson}) hashed from the first claim that changed since the
 * last commit: the canonical document is a head, the claims' members in UID order and a tail, and a
 * commit changes a few claims among many. Keeps the digest's state after every {@code stride}-th claim,
 * at most about {@link #MAX_STATES} of them. One per {@link Checkpoint}, used under its write lock; not
 * thread-safe. The figures behind it are in docs/design/checkpoint.md.
 */
final class CheckpointDigest {
  static final int MAX_STATES = 64;

  private record State(int claims, MessageDigest digest) {}

  private byte[] head = new byte[0];
  /** The entries of the last digest, in order: entries are immutable, so the same object is the same bytes. */
  private CheckpointCodec.Entry[] entries = new CheckpointCodec.Entry[0];
  private int count;
  /** By number of claims hashed, ascending. */
  private final List<State> states = new ArrayList<>();

  /**
   * {@code sha256:<hex>} of {@code head}, then {@code claims}' member bytes joined by commas, then
   * {@code tail}: the same value as hashing those bytes in one piece.
   */
  String checksum(byte[] head, List<CheckpointCodec.Entry> claims, byte[] tail) {
    int same = unchangedPrefix(head, claims);
    while (!states.isEmpty() && (same == 0 || states.get(states.size() - 1).claims() > same)) {
      states.remove(states.size() - 1);
    }
    MessageDigest d = null;
    int from = 0;
    if (!states.isEmpty()) {
      State last = states.get(states.size() - 1);
      d = copy(last.digest());
      from = last.claims();
    }
    if (d == null) {
      states.clear();
      d = CanonicalJson.sha256();
      d.update(head);
      from = 0;
    }
    int n = claims.size();
    int stride = Math.max(1, (n + MAX_STATES - 1) / MAX_STATES);
    for (int k = from; k < n; k++) {
      if (k > 0) {
        d.update((byte) ',');
      }
      d.update(claims.get(k).memberBytes());
      if ((k + 1) % stride == 0 && k + 1 < n) {
        MessageDigest saved = copy(d);
        if (saved != null) {
          states.add(new State(k + 1, saved));
        }
      }
    }
    if (states.size() > 2 * MAX_STATES) {
      // Strides grew with the checkpoint: keep every other state.
      for (int i = states.size() - 1; i >= 0; i -= 2) {
        states.remove(i);
      }
    }
    d.update(tail);
    return CanonicalJson.hex(d.digest());
  }

  /** How many leading claims are those of the last digest (none when the head changed); remembers these ones. */
  private int unchangedPrefix(byte[] head, List<CheckpointCodec.Entry> claims) {
    int n = claims.size();
    boolean unchanged = Arrays.equals(head, this.head);
    this.head = head;
    if (entries.length < n) {
      entries = Arrays.copyOf(entries, Math.max(n, 2 * entries.length));
    }
    int same = 0;
    for (int k = 0; k < n; k++) {
      CheckpointCodec.Entry e = claims.get(k);
      if (unchanged && k < count && e == entries[k]) {
        same++;
      } else {
        unchanged = false;
      }
      entries[k] = e;
    }
    Arrays.fill(entries, n, Math.max(n, count), null);
    count = n;
    return same;
  }

  /** A copy of {@code d}'s state; null when the provider cannot copy one (then nothing is kept). */
  private static MessageDigest copy(MessageDigest d) {
    try {
      return (MessageDigest) d.clone();
    } catch (CloneNotSupportedException e) {
      return null;
    }
  }
}
