package io.nodeatlas.discovery.share;

import java.math.BigDecimal;
import java.util.Collections;
import java.util.Objects;
import java.util.SortedMap;
import java.util.TreeMap;

/**
 * One share of a device that a claim holds (KEP-5075: an allocation result with a {@code shareID}), the
 * one record that crosses between the agent and a device family: what it consumes of each capacity, as
 * the agent checked and accounted it, and the family's {@link Placement} (none until placed).
 */
public record Share(String claimUid, String device, String shareId, SortedMap<String, BigDecimal> consumed, Placement placement) {

  public Share {
    Objects.requireNonNull(claimUid, "claimUid");
    Objects.requireNonNull(device, "device");
    Objects.requireNonNull(shareId, "shareId");
    consumed = Collections.unmodifiableSortedMap(new TreeMap<>(consumed));
    placement = placement == null ? Placement.NONE : placement;
  }

  /** The same share with {@code p} as its placement. */
  public Share placed(Placement p) {
    return new Share(claimUid, device, shareId, consumed, p);
  }

  /** The same share: same claim, device and share id. */
  public boolean sameAs(String uid, String deviceName, String share) {
    return claimUid.equals(uid) && device.equals(deviceName) && shareId.equals(share);
  }

  /** What the share consumes of {@code capacity}; zero when it names none. */
  public BigDecimal consumed(String capacity) {
    return consumed.getOrDefault(capacity, BigDecimal.ZERO);
  }
}
