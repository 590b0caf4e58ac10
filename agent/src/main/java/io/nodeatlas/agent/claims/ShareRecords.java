package io.nodeatlas.agent.claims;

import io.nodeatlas.discovery.share.Share;
import java.math.BigDecimal;
import java.util.List;
import java.util.Map;
import java.util.SortedMap;
import java.util.TreeMap;

/** Between a share as the planner sees it and as the checkpoint records it. */
final class ShareRecords {

  private ShareRecords() {}

  static PreparedDevice prepared(List<String> requestNames, String pool, Share share, List<String> cdiIds) {
    SortedMap<String, String> consumed = new TreeMap<>();
    share.consumed().forEach((k, v) -> consumed.put(k, v.stripTrailingZeros().toPlainString()));
    return new PreparedDevice(requestNames, pool, share.device(), cdiIds, share.shareId(), consumed,
        share.placement().empty() ? null : share.placement());
  }

  /** The share a checkpoint entry records (its text was checked when the checkpoint was read: {@code CheckpointCodec}). */
  static Share held(String claimUid, PreparedDevice d) {
    SortedMap<String, BigDecimal> consumed = new TreeMap<>();
    for (Map.Entry<String, String> e : d.consumedCapacity().entrySet()) {
      try {
        consumed.put(e.getKey(), new BigDecimal(e.getValue()));
      } catch (NumberFormatException bad) {
        consumed.put(e.getKey(), BigDecimal.ZERO);
      }
    }
    return new Share(claimUid, d.device(), d.shareId(), consumed, d.placementOrNone());
  }
}
