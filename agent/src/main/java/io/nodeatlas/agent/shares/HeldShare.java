package io.nodeatlas.agent.shares;

import io.nodeatlas.discovery.topology.CpuSet;
import java.math.BigDecimal;
import java.util.Collections;
import java.util.SortedMap;
import java.util.TreeMap;

/**
 * One share of a device that a claim holds (KEP-5075: an allocation result with a {@code shareID}):
 * what it consumes of each capacity and, for a {@code cpu} device, the CPUs chosen for it (empty
 * otherwise).
 */
public record HeldShare(String claimUid, String device, String shareId, SortedMap<String, BigDecimal> consumed, CpuSet cpus) {
  public HeldShare {
    consumed = Collections.unmodifiableSortedMap(new TreeMap<>(consumed));
    cpus = cpus == null ? CpuSet.EMPTY : cpus;
  }

  /** The same share: same claim, device and share id. */
  public boolean sameAs(String uid, String deviceName, String share) {
    return claimUid.equals(uid) && device.equals(deviceName) && shareId.equals(share);
  }
}
