package io.nodeatlas.agent.claims;

import com.fasterxml.jackson.annotation.JsonInclude;
import java.util.Collections;
import java.util.List;
import java.util.Map;
import java.util.TreeMap;

/**
 * One device of a prepared claim, as reported back to the kubelet (the proto {@code Device}
 * message): base request names, pool, device, the fully qualified CDI device ids and, for a share of
 * a device that allows multiple allocations (KEP-5075), its {@code share_id} (v1 {@code Device} field 5).
 *
 * <p>A share also records what Prepare chose for it, so that a restart hands out nothing twice and a
 * repeated Prepare answers the same: {@code consumedCapacity} (capacity name → the decimal amount the
 * share holds) and, for a CPU share, {@code cpus} (kernel list syntax). The three are absent for an
 * exclusive device, so checkpoint entries of exclusive devices read as before (checkpoint format
 * {@code v2.1} added them; {@code v2.0} files read with none).
 */
public record PreparedDevice(
    List<String> requestNames,
    String pool,
    String device,
    List<String> cdiDeviceIds,
    @JsonInclude(JsonInclude.Include.NON_EMPTY) String shareId,
    @JsonInclude(JsonInclude.Include.NON_EMPTY) Map<String, String> consumedCapacity,
    @JsonInclude(JsonInclude.Include.NON_EMPTY) String cpus) {

  public PreparedDevice {
    requestNames = List.copyOf(requestNames);
    cdiDeviceIds = List.copyOf(cdiDeviceIds);
    shareId = shareId == null ? "" : shareId;
    consumedCapacity = Collections.unmodifiableSortedMap(new TreeMap<>(consumedCapacity == null ? Map.of() : consumedCapacity));
    cpus = cpus == null ? "" : cpus;
  }

  /** An exclusive device (no share). */
  public PreparedDevice(List<String> requestNames, String pool, String device, List<String> cdiDeviceIds) {
    this(requestNames, pool, device, cdiDeviceIds, "", Map.of(), "");
  }

  /** Not a recorded member: derived from {@code shareId}. */
  @com.fasterxml.jackson.annotation.JsonIgnore
  public boolean isShare() {
    return !shareId.isEmpty();
  }
}
