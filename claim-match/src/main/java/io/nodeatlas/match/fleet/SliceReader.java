package io.nodeatlas.match.fleet;

import com.fasterxml.jackson.databind.JsonNode;
import io.nodeatlas.discovery.model.AttributeValue;
import io.nodeatlas.discovery.model.ContainerEdits;
import io.nodeatlas.discovery.model.CounterConsumption;
import io.nodeatlas.discovery.model.CounterSet;
import io.nodeatlas.discovery.model.Device;
import io.nodeatlas.discovery.model.Quantity;
import io.nodeatlas.discovery.model.RequestPolicy;
import io.nodeatlas.match.Inventory.DeviceTaint;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.TreeMap;

/**
 * Reads {@code resource.k8s.io/v1} ResourceSlice objects of any driver into devices the matcher evaluates:
 * attribute and capacity names are qualified with the slice's driver where they have no domain (the
 * API's rule for a {@code QualifiedName}), capacities keep their request policies, and each device keeps
 * its taints and, under {@code perDeviceNodeSelection}, its own node selection. Shared counters and what
 * devices consume of them are kept (KEP-4815, {@code spec.sharedCounters}, {@code devices[].consumesCounters}).
 * A device or counter set the API would not have accepted costs that item and one warning.
 */
public final class SliceReader {

  /** One slice: its pool, the generation it belongs to, where it is visible, its devices and counter sets. */
  public record Slice(String name, String driver, String pool, long generation, long resourceSliceCount,
      NodeSelection selection, List<SliceDevice> devices, List<CounterSet> sharedCounters) {
    public Slice {
      devices = List.copyOf(devices);
      sharedCounters = List.copyOf(sharedCounters);
    }

    /** A slice without counter sets. */
    public Slice(String name, String driver, String pool, long generation, long resourceSliceCount,
        NodeSelection selection, List<SliceDevice> devices) {
      this(name, driver, pool, generation, resourceSliceCount, selection, devices, List.of());
    }

    /** {@code driver/pool}: the scope of the pool's device and counter set names. */
    public String poolKey() {
      return driver + "/" + pool;
    }
  }

  /** A device of a slice; {@code selection} is set under {@code perDeviceNodeSelection}. */
  public record SliceDevice(Device device, List<DeviceTaint> taints, NodeSelection selection) {
    public SliceDevice {
      taints = List.copyOf(taints);
    }
  }

  private SliceReader() {}

  /** Reads one ResourceSlice; throws IllegalArgumentException for a slice that cannot be used at all. */
  public static Slice read(JsonNode slice, List<String> warnings) {
    String name = slice.path("metadata").path("name").asText("");
    JsonNode spec = slice.path("spec");
    String driver = spec.path("driver").asText("");
    String pool = spec.path("pool").path("name").asText("");
    if (driver.isEmpty() || pool.isEmpty()) {
      throw new IllegalArgumentException("ResourceSlice " + name + ": spec.driver and spec.pool.name are required");
    }
    NodeSelection selection = NodeSelection.of(spec, true);
    List<SliceDevice> devices = new ArrayList<>();
    for (JsonNode d : spec.path("devices")) {
      String deviceName = d.path("name").asText("");
      try {
        NodeSelection own = selection instanceof NodeSelection.PerDevice ? NodeSelection.of(d, false) : null;
        devices.add(new SliceDevice(device(d, driver), taints(d.path("taints")), own));
      } catch (IllegalArgumentException e) {
        warnings.add("ResourceSlice " + name + " device " + deviceName + ": left out: " + e.getMessage());
      }
    }
    List<CounterSet> counters = new ArrayList<>();
    for (JsonNode set : spec.path("sharedCounters")) {
      try {
        counters.add(new CounterSet(set.path("name").asText(""), counters(set.path("counters"))));
      } catch (IllegalArgumentException e) {
        warnings.add("ResourceSlice " + name + " counter set " + set.path("name").asText("") + ": left out: "
            + e.getMessage());
      }
    }
    return new Slice(name, driver, pool, spec.path("pool").path("generation").asLong(0),
        spec.path("pool").path("resourceSliceCount").asLong(1), selection, devices, counters);
  }

  /** A {@code map[string]Counter} ({@code {"memory": {"value": "10Gi"}}}). */
  private static TreeMap<String, Quantity> counters(JsonNode map) {
    TreeMap<String, Quantity> out = new TreeMap<>();
    for (Map.Entry<String, JsonNode> c : map.properties()) {
      out.put(c.getKey(), Quantity.parse(c.getValue().path("value").asText(null)));
    }
    return out;
  }

  static Device device(JsonNode d, String driver) {
    // The maps are built once and handed to the record (no builder: a fleet reads 100,000 devices).
    TreeMap<String, AttributeValue> attributes = new TreeMap<>();
    for (Map.Entry<String, JsonNode> a : d.path("attributes").properties()) {
      attributes.put(qualified(a.getKey(), driver), attribute(a.getValue(), a.getKey()));
    }
    TreeMap<String, Quantity> capacity = new TreeMap<>();
    TreeMap<String, RequestPolicy> policies = new TreeMap<>();
    for (Map.Entry<String, JsonNode> c : d.path("capacity").properties()) {
      String key = qualified(c.getKey(), driver);
      capacity.put(key, Quantity.parse(c.getValue().path("value").asText(null)));
      JsonNode policy = c.getValue().path("requestPolicy");
      if (policy.isObject()) {
        policies.put(key, policy(policy));
      }
    }
    List<CounterConsumption> consumes = new ArrayList<>();
    for (JsonNode c : d.path("consumesCounters")) {
      consumes.add(new CounterConsumption(c.path("counterSet").asText(""), counters(c.path("counters"))));
    }
    return new Device(d.path("name").asText(""), driver, attributes, capacity, policies,
        d.path("allowMultipleAllocations").asBoolean(false), ContainerEdits.EMPTY, List.of(), consumes);
  }

  private static String qualified(String name, String driver) {
    return name.contains("/") ? name : driver + "/" + name;
  }

  private static AttributeValue attribute(JsonNode v, String name) {
    if (v.has("int") && v.get("int").canConvertToLong()) {
      return AttributeValue.of(v.get("int").asLong());
    } else if (v.has("bool") && v.get("bool").isBoolean()) {
      return AttributeValue.of(v.get("bool").asBoolean());
    } else if (v.has("string") && v.get("string").isTextual()) {
      return AttributeValue.string(v.get("string").asText());
    } else if (v.has("version") && v.get("version").isTextual()) {
      return AttributeValue.version(v.get("version").asText());
    }
    throw new IllegalArgumentException("attribute " + name + " has none of int, bool, string, version");
  }

  private static RequestPolicy policy(JsonNode p) {
    Quantity def = Quantity.parse(p.path("default").asText(null));
    JsonNode range = p.path("validRange");
    if (range.isObject()) {
      return RequestPolicy.range(def, Quantity.parse(range.path("min").asText(null)), optional(range, "max"),
          optional(range, "step"));
    }
    List<Quantity> values = new ArrayList<>();
    p.path("validValues").forEach(v -> values.add(Quantity.parse(v.asText())));
    return new RequestPolicy(def, Optional.empty(), values);
  }

  private static Quantity optional(JsonNode node, String field) {
    return node.hasNonNull(field) ? Quantity.parse(node.get(field).asText()) : null;
  }

  private static List<DeviceTaint> taints(JsonNode list) {
    List<DeviceTaint> out = new ArrayList<>();
    for (JsonNode t : list) {
      out.add(new DeviceTaint(t.path("key").asText(""), t.path("value").asText(""), t.path("effect").asText("")));
    }
    return out;
  }
}
