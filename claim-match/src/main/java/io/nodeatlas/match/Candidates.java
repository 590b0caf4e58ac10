package io.nodeatlas.match;

import io.nodeatlas.discovery.model.Device;
import io.nodeatlas.match.MatchReport.Rejection;
import io.nodeatlas.match.claims.ClaimModel.DeviceSelection;
import java.util.List;
import java.util.Map;

/**
 * The devices that can serve one alternative of one request ({@code subrequest} is the
 * {@code firstAvailable} name, null for a plain request), what each would give, and the ones rejected.
 */
record Candidates(String request, String subrequest, DeviceSelection selection, List<Device> devices,
    List<Rejection> errors, Map<String, CapacityDemand.Demand> demands, List<Rejection> rejected) {
  String key() {
    return subrequest == null ? request : request + "/" + subrequest;
  }
}
