package io.nodeatlas.match.fleet;

import com.fasterxml.jackson.core.JsonParser;
import com.fasterxml.jackson.core.JsonToken;
import com.fasterxml.jackson.databind.JsonNode;
import io.nodeatlas.discovery.model.Quantity;
import java.io.IOException;
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
    try (JsonParser p = claim.traverse()) {
      p.nextToken();
      return of(p, warnings);
    } catch (IOException e) {
      throw new java.io.UncheckedIOException(e);
    }
  }

  /**
   * The devices the ResourceClaim at {@code p} (its first token) holds, read from the token stream, which is
   * left at the claim's last token: only {@code metadata} and {@code status.allocation.devices.results}
   * are looked at, the rest is skipped without a tree.
   */
  public static List<Allocation> of(JsonParser p, List<String> warnings) throws IOException {
    if (p.currentToken() != JsonToken.START_OBJECT) {
      p.skipChildren();
      return List.of();
    }
    return ofFields(p, warnings);
  }

  /** {@link #of(JsonParser, List)} from inside the object: its fields from the next one on. */
  public static List<Allocation> ofFields(JsonParser p, List<String> warnings) throws IOException {
    String namespace = "";
    String claimName = "";
    List<String[]> results = new ArrayList<>();
    List<List<String[]>> consumed = new ArrayList<>();
    while (p.nextToken() == JsonToken.FIELD_NAME) {
      String field = p.currentName();
      JsonToken t = p.nextToken();
      if (field.equals("metadata") && t == JsonToken.START_OBJECT) {
        while (p.nextToken() == JsonToken.FIELD_NAME) {
          String m = p.currentName();
          p.nextToken();
          if (m.equals("name")) {
            claimName = text(p, "");
          } else if (m.equals("namespace")) {
            namespace = text(p, "");
          }
          p.skipChildren();
        }
      } else if (field.equals("status") && t == JsonToken.START_OBJECT) {
        // status.allocation.devices.results
        String[] path = {"allocation", "devices", "results"};
        descend(p, path, 0, results, consumed);
      } else {
        p.skipChildren();
      }
    }
    String name = namespace + "/" + claimName;
    List<Allocation> out = new ArrayList<>();
    for (int i = 0; i < results.size(); i++) {
      String[] r = results.get(i);
      String request = r[0];
      String driver = r[1];
      String pool = r[2];
      String device = r[3];
      if (driver.isEmpty() || pool.isEmpty() || device.isEmpty()) {
        warnings.add("ResourceClaim " + name + ": an allocation result without driver, pool or device is left out");
        continue;
      }
      Map<String, BigDecimal> amounts = new TreeMap<>();
      try {
        for (String[] c : consumed.get(i)) {
          String key = c[0].contains("/") ? c[0] : driver + "/" + c[0];
          amounts.put(key, Quantity.parse(c[1]).toBigDecimal());
        }
      } catch (IllegalArgumentException e) {
        warnings.add("ResourceClaim " + name + ": device " + device + ": consumedCapacity left out: " + e.getMessage());
        amounts.clear();
      }
      out.add(new Allocation(name, request, driver, pool, device, amounts));
    }
    return out;
  }

  /** Follows {@code path} down from the object at {@code p} to the results array and reads it; skips the rest. */
  private static void descend(JsonParser p, String[] path, int at, List<String[]> results, List<List<String[]>> consumed)
      throws IOException {
    while (p.nextToken() == JsonToken.FIELD_NAME) {
      String field = p.currentName();
      JsonToken t = p.nextToken();
      if (!field.equals(path[at])) {
        p.skipChildren();
      } else if (at < path.length - 1 && t == JsonToken.START_OBJECT) {
        descend(p, path, at + 1, results, consumed);
      } else if (at == path.length - 1 && t == JsonToken.START_ARRAY) {
        results.clear();
        consumed.clear();
        while (p.nextToken() != JsonToken.END_ARRAY) {
          result(p, results, consumed);
        }
      } else {
        p.skipChildren();
      }
    }
  }

  /** One {@code DeviceRequestAllocationResult}: request, driver, pool, device and the consumedCapacity texts. */
  private static void result(JsonParser p, List<String[]> results, List<List<String[]>> consumed) throws IOException {
    String[] r = {"", "", "", ""};
    List<String[]> amounts = new ArrayList<>(1);
    if (p.currentToken() == JsonToken.START_OBJECT) {
      while (p.nextToken() == JsonToken.FIELD_NAME) {
        String field = p.currentName();
        JsonToken t = p.nextToken();
        switch (field) {
          case "request" -> r[0] = text(p, "");
          case "driver" -> r[1] = text(p, "");
          case "pool" -> r[2] = text(p, "");
          case "device" -> r[3] = text(p, "");
          case "consumedCapacity" -> {
            amounts.clear();
            if (t == JsonToken.START_OBJECT) {
              while (p.nextToken() == JsonToken.FIELD_NAME) {
                String key = p.currentName();
                p.nextToken();
                // As JsonNode.asText: a null reads "null", an object or array "".
                amounts.add(new String[] {key, p.currentToken() == JsonToken.VALUE_NULL ? "null" : text(p, "")});
                p.skipChildren();
              }
            }
          }
          default -> { }
        }
        p.skipChildren();
      }
    } else {
      p.skipChildren();
    }
    results.add(r);
    consumed.add(amounts);
  }

  /** A scalar's text as {@code JsonNode.asText} gives it; {@code otherwise} for null and containers. */
  private static String text(JsonParser p, String otherwise) throws IOException {
    JsonToken t = p.currentToken();
    return t != null && t.isScalarValue() && t != JsonToken.VALUE_NULL ? p.getText() : otherwise;
  }

  /** The pool-wide name of the device: {@code driver/pool/device}. */
  public String key() {
    return driver + "/" + pool + "/" + device;
  }
}
