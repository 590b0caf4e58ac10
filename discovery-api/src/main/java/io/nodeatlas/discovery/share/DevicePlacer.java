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
   * As {@link #place(Share, List)}, for a claim whose allocation configures the share: {@code configs} are the
   * {@code opaque.parameters} (JSON text) of its {@code config[]} entries for our driver that apply to the
   * share's request, in allocation order (a class's before the claim's), as {@link DeviceRealiser#realise} gets
   * them. A family whose placement depends on how a claim uses the device (a GPU's sharing strategy) reads
   * them and records what it needs in the {@link Placement}, where the other claims' shares show it.
   */
  default Decision place(Share share, List<Share> others, List<String> configs) {
    return place(share, others);
  }

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
