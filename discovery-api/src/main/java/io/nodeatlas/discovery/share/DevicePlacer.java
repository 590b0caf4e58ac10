package io.nodeatlas.discovery.share;

import java.math.BigDecimal;
import java.util.List;
import java.util.SortedMap;

/**
 * A family's claim-time view of one of its shared devices on this node, made by
 * {@link SharePlacer#forDevice} once per discovery. The agent has already checked the share's id and
 * amounts against the device's capacities and accounted them among every share of the device; the
 * family adds its own rules and chooses. Every answer that refuses is a sentence for the kubelet,
 * without the request and device (the agent names them).
 */
public interface DevicePlacer {

  /** Why the amounts a share consumes break the family's rules (a CPU count that is not whole); null when they do not. */
  default String checkAmounts(SortedMap<String, BigDecimal> consumed) {
    return null;
  }

  /**
   * Places {@code share} (its placement still none) among {@code others}: the shares of the same device
   * every claim holds, placed, this claim's earlier ones included.
   */
  Decision place(Share share, List<Share> others);

  /**
   * Whether a share recorded earlier still fits the device as it is now (CPUs taken offline since);
   * null when it does, else why not. The agent has already checked its amounts against the capacities.
   */
  default String recheck(Share share) {
    return null;
  }

  /** A placement, or why there is none. */
  record Decision(Placement placement, String refusal) {

    public static Decision of(Placement p) {
      return new Decision(p, null);
    }

    public static Decision refused(String why) {
      return new Decision(Placement.NONE, why);
    }

    public boolean placed() {
      return refusal == null;
    }
  }
}
