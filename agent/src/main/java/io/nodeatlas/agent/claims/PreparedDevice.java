package io.nodeatlas.agent.claims;

import com.fasterxml.jackson.annotation.JsonInclude;
import java.util.Collections;
import java.util.List;
import java.util.Map;
import java.util.TreeMap;
import io.nodeatlas.discovery.share.Placement;

/**
 * One device of a prepared claim, as reported back to the kubelet (the proto {@code Device}
 * message): base request names, pool, device, the fully qualified CDI device ids and, for a share of
 * a device that allows multiple allocations (KEP-5075), its {@code share_id} (v1 {@code Device} field 5).
 *
 * <p>A share also records what Prepare chose for it, so that a restart hands out nothing twice and a
 * repeated Prepare answers the same: {@code consumedCapacity} (capacity name → the decimal amount the
 * share holds) and {@code placement}, the device family's opaque, versioned choice ({@link Placement}).
 * They are absent for an exclusive device, so checkpoint entries of exclusive devices read as before
 * (checkpoint format {@code v2.1} added the share members; {@code v2.3} the placement, which a
 * {@code v2.1} or {@code v2.2} entry states as {@code cpus} and reads as placement version 1).
 */
public record PreparedDevice(
    List<String> requestNames,
    String pool,
    String device,
    List<String> cdiDeviceIds,
    @JsonInclude(JsonInclude.Include.NON_EMPTY) String shareId,
    @JsonInclude(JsonInclude.Include.NON_EMPTY) Map<String, String> consumedCapacity,
    @JsonInclude(JsonInclude.Include.NON_NULL) Placement placement) {

  /** The member of {@code v2.1} and {@code v2.2} entries that a placement of version 1 replaced. */
  static final String LEGACY_PLACEMENT = "cpus";

  public PreparedDevice {
    requestNames = List.copyOf(requestNames);
    cdiDeviceIds = List.copyOf(cdiDeviceIds);
    shareId = shareId == null ? "" : shareId;
    consumedCapacity = Collections.unmodifiableSortedMap(new TreeMap<>(consumedCapacity == null ? Map.of() : consumedCapacity));
    placement = placement == null || placement.empty() ? null : placement;
  }

  /** As the checkpoint reads an entry: a {@code v2.1}/{@code v2.2} entry's {@code cpus} is placement version 1. */
  @com.fasterxml.jackson.annotation.JsonCreator
  static PreparedDevice read(@com.fasterxml.jackson.annotation.JsonProperty("requestNames") List<String> requestNames,
      @com.fasterxml.jackson.annotation.JsonProperty("pool") String pool,
      @com.fasterxml.jackson.annotation.JsonProperty("device") String device,
      @com.fasterxml.jackson.annotation.JsonProperty("cdiDeviceIds") List<String> cdiDeviceIds,
      @com.fasterxml.jackson.annotation.JsonProperty("shareId") String shareId,
      @com.fasterxml.jackson.annotation.JsonProperty("consumedCapacity") Map<String, String> consumedCapacity,
      @com.fasterxml.jackson.annotation.JsonProperty("placement") Placement placement,
      @com.fasterxml.jackson.annotation.JsonProperty(LEGACY_PLACEMENT) String legacy) {
    if (legacy != null && !legacy.isEmpty()) {
      if (placement != null) {
        throw new IllegalArgumentException("both placement and " + LEGACY_PLACEMENT);
      }
      placement = new Placement(1, legacy);
    }
    return new PreparedDevice(requestNames, pool, device, cdiDeviceIds, shareId, consumedCapacity, placement);
  }

  /** The placement recorded for the share; {@link Placement#NONE} where there is none. */
  public Placement placementOrNone() {
    return placement == null ? Placement.NONE : placement;
  }

  /** An exclusive device (no share). */
  public PreparedDevice(List<String> requestNames, String pool, String device, List<String> cdiDeviceIds) {
    this(requestNames, pool, device, cdiDeviceIds, "", Map.of(), null);
  }

  /** Not a recorded member: derived from {@code shareId}. */
  @com.fasterxml.jackson.annotation.JsonIgnore
  public boolean isShare() {
    return !shareId.isEmpty();
  }
}
