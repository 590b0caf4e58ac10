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

  /**
   * Values already read, by their JSON text: a fleet's devices repeat the same attribute values, quantities
   * and request policies, and one shared (immutable) record each keeps the heap and the collector's work
   * proportional to the distinct values. Bounded: past {@link #SHARED_MAX} a value is kept unshared.
   */
  private final Map<String, AttributeValue> values = new java.util.HashMap<>();
  private final Map<String, Quantity> quantities = new java.util.HashMap<>();
  private final Map<Long, AttributeValue> ints = new java.util.HashMap<>();
  private final Map<String, String> names = new java.util.HashMap<>();
  private final Map<JsonNode, RequestPolicy> policies = new java.util.HashMap<>();
  static final int SHARED_MAX = 100_000;

  /** A reader for one fleet: the slices it reads share their repeated values. */
  public SliceReader() {}

  /** Reads one ResourceSlice with a reader of its own. */
  public static Slice read(JsonNode slice, List<String> warnings) {
    return new SliceReader().slice(slice, warnings);
  }

  /** Reads one ResourceSlice; throws IllegalArgumentException for a slice that cannot be used at all. */
  public Slice slice(JsonNode slice, List<String> warnings) {
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
        devices.add(new SliceDevice(read(d, driver), taints(d.path("taints")), own));
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
  private TreeMap<String, Quantity> counters(JsonNode map) {
    TreeMap<String, Quantity> out = new TreeMap<>();
    for (Map.Entry<String, JsonNode> c : map.properties()) {
      out.put(c.getKey(), quantity(c.getValue().path("value").asText(null)));
    }
    return out;
  }

  /** One device of a slice of {@code driver}, read alone. */
  static Device device(JsonNode d, String driver) {
    return new SliceReader().read(d, driver);
  }

  private Device read(JsonNode d, String driver) {
    // The maps are built once and handed to the record (no builder: a fleet reads 100,000 devices).
    TreeMap<String, AttributeValue> attributes = new TreeMap<>();
    for (Map.Entry<String, JsonNode> a : d.path("attributes").properties()) {
      attributes.put(qualified(a.getKey(), driver), attribute(a.getValue(), a.getKey()));
    }
    TreeMap<String, Quantity> capacity = new TreeMap<>();
    TreeMap<String, RequestPolicy> policies = new TreeMap<>();
    for (Map.Entry<String, JsonNode> c : d.path("capacity").properties()) {
      String key = qualified(c.getKey(), driver);
      capacity.put(key, quantity(c.getValue().path("value").asText(null)));
      JsonNode policy = c.getValue().path("requestPolicy");
      if (policy.isObject()) {
        policies.put(key, policy(policy));
      }
    }
    List<CounterConsumption> consumes = new ArrayList<>();
    for (JsonNode c : d.path("consumesCounters")) {
      consumes.add(new CounterConsumption(c.path("counterSet").asText(""), counters(c.path("counters"))));
    }
    return new Device(name(d.path("name").asText("")), driver, attributes, capacity, policies,
        d.path("allowMultipleAllocations").asBoolean(false), ContainerEdits.EMPTY, List.of(), consumes);
  }

  private static String qualified(String name, String driver) {
    return name.contains("/") ? name : driver + "/" + name;
  }

  private AttributeValue attribute(JsonNode v, String name) {
    JsonNode string = v.get("string");
    if (string != null && string.isTextual() && v.size() == 1) {
      // The common case, shared by its text; any other form is read as below.
      AttributeValue known = values.get(string.textValue());
      if (known == null) {
        known = AttributeValue.string(string.textValue());
        if (values.size() < SHARED_MAX) {
          values.put(string.textValue(), known);
        }
      }
      return known;
    }
    if (v.has("int") && v.get("int").canConvertToLong()) {
      long n = v.get("int").asLong();
      // Small numbers (NUMA nodes, indexes) are shared; Long.valueOf caches them without allocating.
      return n >= -128 && n <= 127 ? ints.computeIfAbsent(n, AttributeValue::of) : AttributeValue.of(n);
    } else if (v.has("bool") && v.get("bool").isBoolean()) {
      return AttributeValue.of(v.get("bool").asBoolean());
    } else if (v.has("string") && v.get("string").isTextual()) {
      return AttributeValue.string(v.get("string").asText());
    } else if (v.has("version") && v.get("version").isTextual()) {
      return AttributeValue.version(v.get("version").asText());
    } else if (v.has("strings") && v.get("strings").isArray()) {
      // A KEP-5491 list attribute (resource.kubernetes.io/pcieRoot of cpu devices with --cpu-pcie-roots).
      List<String> values = new ArrayList<>();
      v.get("strings").forEach(s -> values.add(s.asText()));
      return new AttributeValue.StringsValue(values);
    }
    throw new IllegalArgumentException("attribute " + name + " has none of int, bool, string, version, strings");
  }

  private RequestPolicy policy(JsonNode p) {
    RequestPolicy known = policies.get(p);
    if (known == null) {
      known = readPolicy(p);
      if (policies.size() < SHARED_MAX) {
        policies.put(p, known);
      }
    }
    return known;
  }

  /** A device name, shared: the devices of a fleet's nodes repeat the same few names. */
  private String name(String text) {
    String known = names.putIfAbsent(text, text);
    if (known == null && names.size() >= SHARED_MAX) {
      names.clear();
    }
    return known == null ? text : known;
  }

  private Quantity quantity(String text) {
    Quantity known = text == null ? null : quantities.get(text);
    if (known == null) {
      known = Quantity.parse(text);
      if (quantities.size() < SHARED_MAX) {
        quantities.put(text, known);
      }
    }
    return known;
  }

  private RequestPolicy readPolicy(JsonNode p) {
    Quantity def = quantity(p.path("default").asText(null));
    JsonNode range = p.path("validRange");
    if (range.isObject()) {
      return RequestPolicy.range(def, quantity(range.path("min").asText(null)), optional(range, "max"),
          optional(range, "step"));
    }
    List<Quantity> valid = new ArrayList<>();
    p.path("validValues").forEach(v -> valid.add(quantity(v.asText())));
    return new RequestPolicy(def, Optional.empty(), valid);
  }

  private Quantity optional(JsonNode node, String field) {
    return node.hasNonNull(field) ? quantity(node.get(field).asText()) : null;
  }

  private static List<DeviceTaint> taints(JsonNode list) {
    List<DeviceTaint> out = new ArrayList<>();
    for (JsonNode t : list) {
      out.add(new DeviceTaint(t.path("key").asText(""), t.path("value").asText(""), t.path("effect").asText("")));
    }
    return out;
  }
}
