package io.nodeatlas.agent.claims;

import io.nodeatlas.agent.shares.HeldShare;
import io.nodeatlas.discovery.parse.CpuListParser;
import io.nodeatlas.discovery.topology.CpuSet;
import java.math.BigDecimal;
import java.util.List;
import java.util.Map;
import java.util.SortedMap;
import java.util.TreeMap;

/** Between a share as the allocator sees it and as the checkpoint records it. */
final class ShareRecords {

  private ShareRecords() {}

  static PreparedDevice prepared(List<String> requestNames, String pool, HeldShare share, List<String> cdiIds) {
    SortedMap<String, String> consumed = new TreeMap<>();
    share.consumed().forEach((k, v) -> consumed.put(k, v.stripTrailingZeros().toPlainString()));
    return new PreparedDevice(requestNames, pool, share.device(), cdiIds, share.shareId(), consumed, share.cpus().toString());
  }

  /** The share a checkpoint entry records (its text was checked when the checkpoint was read: {@code CheckpointCodec}). */
  static HeldShare held(String claimUid, PreparedDevice d) {
    SortedMap<String, BigDecimal> consumed = new TreeMap<>();
    for (Map.Entry<String, String> e : d.consumedCapacity().entrySet()) {
      try {
        consumed.put(e.getKey(), new BigDecimal(e.getValue()));
      } catch (NumberFormatException bad) {
        consumed.put(e.getKey(), BigDecimal.ZERO);
      }
    }
    CpuSet cpus;
    try {
      cpus = d.cpus().isEmpty() ? CpuSet.EMPTY : CpuListParser.parse(d.cpus());
    } catch (IllegalArgumentException bad) {
      cpus = CpuSet.EMPTY;
    }
    return new HeldShare(claimUid, d.device(), d.shareId(), consumed, cpus);
  }
}
