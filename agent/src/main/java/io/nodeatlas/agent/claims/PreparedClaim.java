package io.nodeatlas.agent.claims;

import java.util.List;

/** A claim this node has prepared: what the checkpoint keeps so that Unprepare needs nothing else. */
public record PreparedClaim(ClaimRef claim, List<PreparedDevice> devices) {
  public PreparedClaim {
    devices = List.copyOf(devices);
  }
}
