package io.nodeatlas.match.fleet;

import com.fasterxml.jackson.databind.JsonNode;
import io.nodeatlas.discovery.model.Quantity;
import java.math.BigDecimal;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.TreeMap;

/**
 * One device an allocated ResourceClaim holds: a {@code resource.k8s.io/v1}
 * {@code DeviceRequestAllocationResult} ({@code driver}, {@code pool}, {@code device}, and for a device
 * that allows multiple allocations its {@code consumedCapacity}, KEP-5075), with the claim's
 * {@code namespace/name} to say who holds it.
 */
public record Allocation(String claim, String request, String driver, String pool, String device,
    Map<String, BigDecimal> consumed) {

  public Allocation {
    consumed = consumed.isEmpty() ? Map.of() : java.util.Collections.unmodifiableMap(new TreeMap<>(consumed));
  }

  /** The devices {@code claim} (a ResourceClaim object) holds; none when it is not allocated. */
  public static List<Allocation> of(JsonNode claim, List<String> warnings) {
    String name = claim.path("metadata").path("namespace").asText("") + "/" + claim.path("metadata").path("name").asText("");
    List<Allocation> out = new ArrayList<>();
    for (JsonNode r : claim.path("status").path("allocation").path("devices").path("results")) {
      String driver = r.path("driver").asText("");
      String pool = r.path("pool").asText("");
      String device = r.path("device").asText("");
      if (driver.isEmpty() || pool.isEmpty() || device.isEmpty()) {
        warnings.add("ResourceClaim " + name + ": an allocation result without driver, pool or device is left out");
        continue;
      }
      Map<String, BigDecimal> consumed = new TreeMap<>();
      try {
        for (Map.Entry<String, JsonNode> c : r.path("consumedCapacity").properties()) {
          String key = c.getKey().contains("/") ? c.getKey() : driver + "/" + c.getKey();
          consumed.put(key, Quantity.parse(c.getValue().asText()).toBigDecimal());
        }
      } catch (IllegalArgumentException e) {
        warnings.add("ResourceClaim " + name + ": device " + device + ": consumedCapacity left out: " + e.getMessage());
        consumed.clear();
      }
      out.add(new Allocation(name, r.path("request").asText(""), driver, pool, device, consumed));
    }
    return out;
  }

  /** The pool-wide name of the device: {@code driver/pool/device}. */
  public String key() {
    return driver + "/" + pool + "/" + device;
  }
}
