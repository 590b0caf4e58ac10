package io.nodeatlas.match.fleet;

import com.fasterxml.jackson.core.JsonParser;
import com.fasterxml.jackson.core.JsonStreamContext;
import com.fasterxml.jackson.core.JsonToken;
import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import com.fasterxml.jackson.databind.node.ObjectNode;
import io.nodeatlas.discovery.model.AttributeValue;
import io.nodeatlas.discovery.model.ContainerEdits;
import io.nodeatlas.discovery.model.CounterConsumption;
import io.nodeatlas.discovery.model.CounterSet;
import io.nodeatlas.discovery.model.Device;
import io.nodeatlas.discovery.model.Quantity;
import io.nodeatlas.discovery.model.RequestPolicy;
import io.nodeatlas.match.Inventory.DeviceTaint;
import java.io.IOException;
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
  /**
   * The last device read of each name: the same device of the next node of a kind (gpu-0 of every node)
   * mostly has equal attribute, capacity and request policy maps, and a device handed an earlier device's
   * map neither copies it nor checks its names again. Compared, not hashed: a map that differs (a uuid)
   * costs a few lookups. Bounded like the values.
   */
  private final Map<String, Device> lastByName = new java.util.HashMap<>();
  static final int SHARED_MAX = 100_000;

  /** A reader for one fleet: the slices it reads share their repeated values. */
  public SliceReader() {}

  /** Qualified attribute and capacity names by driver and name as written: a fleet repeats a few dozen. */
  private final Map<String, Map<String, String>> qualifiedNames = new java.util.HashMap<>();
  /** The codec the small parts of a slice (pool, selection, taints, counters) are read with as trees. */
  private static final ObjectMapper TREES = new ObjectMapper();

  /** A slice the API would not have accepted at all; {@code name} is its metadata.name. */
  public static final class RefusedSlice extends IllegalArgumentException {
    private static final long serialVersionUID = 1L;
    private final String name;

    RefusedSlice(String name, String message) {
      super(message);
      this.name = name;
    }

    public String name() {
      return name;
    }
  }

  /** Reads one ResourceSlice with a reader of its own. */
  public static Slice read(JsonNode slice, List<String> warnings) {
    return new SliceReader().slice(slice, warnings);
  }

  /** Reads one ResourceSlice tree (a saved file's item) with the same reader as the token stream. */
  public Slice slice(JsonNode slice, List<String> warnings) {
    try (JsonParser p = slice.traverse(TREES)) {
      p.nextToken();
      return slice(p, warnings);
    } catch (IOException e) {
      throw new java.io.UncheckedIOException(e);
    }
  }

  /**
   * Reads one ResourceSlice from the token stream, {@code p} at its first token, and leaves {@code p} at its
   * last: the devices go straight into records, without a tree of the slice. Jackson's stream bounds (depth,
   * string length) stay with the parser; the parser's IOException is the caller's (the page is not JSON).
   * Throws {@link RefusedSlice} for a slice that cannot be used at all, once it is read to its end.
   */
  public Slice slice(JsonParser p, List<String> warnings) throws IOException {
    if (p.currentToken() != JsonToken.START_OBJECT) {
      p.skipChildren();
      throw new RefusedSlice("", "ResourceSlice : spec.driver and spec.pool.name are required");
    }
    return sliceFields(p, warnings);
  }

  /**
   * {@link #slice(JsonParser, List)} from inside the object: its fields from the next one on (a saved list's
   * item whose {@code apiVersion} and {@code kind} were read to know it is a slice).
   */
  public Slice sliceFields(JsonParser p, List<String> warnings) throws IOException {
    String name = "";
    ObjectNode spec = TREES.createObjectNode();
    List<ReadDevice> devices = new ArrayList<>();
    JsonNode pendingDevices = null;
    while (p.nextToken() == JsonToken.FIELD_NAME) {
      String field = p.currentName();
      JsonToken t = p.nextToken();
      if (field.equals("metadata") && t == JsonToken.START_OBJECT) {
        while (p.nextToken() == JsonToken.FIELD_NAME) {
          String m = p.currentName();
          p.nextToken();
          if (m.equals("name")) {
            name = text(p, "");
          }
          p.skipChildren();
        }
      } else if (field.equals("spec") && t == JsonToken.START_OBJECT) {
        while (p.nextToken() == JsonToken.FIELD_NAME) {
          String f = p.currentName();
          JsonToken v = p.nextToken();
          if (f.equals("devices")) {
            devices.clear();
            pendingDevices = null;
            if (spec.path("driver").isValueNode() && v == JsonToken.START_ARRAY) {
              // The API server writes the driver first: the devices are read as they come.
              String driver = spec.path("driver").asText("");
              while (p.nextToken() != JsonToken.END_ARRAY) {
                devices.add(device(p, driver));
              }
            } else {
              // A driver written after the devices (a saved file with sorted keys): they wait as a tree.
              pendingDevices = p.readValueAsTree();
            }
          } else {
            JsonNode value = p.readValueAsTree();
            spec.set(f, value == null ? com.fasterxml.jackson.databind.node.NullNode.getInstance() : value);
          }
        }
      } else {
        p.skipChildren();
      }
    }
    String driver = spec.path("driver").asText("");
    String pool = spec.path("pool").path("name").asText("");
    if (driver.isEmpty() || pool.isEmpty()) {
      throw new RefusedSlice(name, "ResourceSlice " + name + ": spec.driver and spec.pool.name are required");
    }
    NodeSelection selection;
    try {
      selection = NodeSelection.of(spec, true);
    } catch (IllegalArgumentException e) {
      throw new RefusedSlice(name, e.getMessage());
    }
    if (pendingDevices != null && pendingDevices.isArray()) {
      try (JsonParser d = pendingDevices.traverse(TREES)) {
        d.nextToken();
        while (d.nextToken() != JsonToken.END_ARRAY) {
          devices.add(device(d, driver));
        }
      }
    }
    List<SliceDevice> out = new ArrayList<>(devices.size());
    for (ReadDevice d : devices) {
      try {
        NodeSelection own = selection instanceof NodeSelection.PerDevice ? NodeSelection.of(d.where(), false) : null;
        if (d.problem() != null) {
          throw d.problem();
        }
        out.add(new SliceDevice(d.device(), d.taints(), own));
      } catch (IllegalArgumentException e) {
        warnings.add("ResourceSlice " + name + " device " + d.name() + ": left out: " + e.getMessage());
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
        spec.path("pool").path("resourceSliceCount").asLong(1), selection, out, counters);
  }

  /**
   * A device as read, before the slice's node selection is known: the device or why it cannot be used
   * ({@code problem}), its taints, and its own selection fields ({@code where}).
   */
  private record ReadDevice(String name, Device device, IllegalArgumentException problem, List<DeviceTaint> taints,
      JsonNode where) {}

  private static final JsonNode NO_FIELDS = TREES.createObjectNode();

  /** A scalar's text as {@code JsonNode.asText} gives it; {@code otherwise} for null and containers. */
  private static String text(JsonParser p, String otherwise) throws IOException {
    JsonToken t = p.currentToken();
    return t != null && t.isScalarValue() && t != JsonToken.VALUE_NULL ? p.getText() : otherwise;
  }

  /** One device of a slice of {@code driver}, read alone. */
  static Device device(JsonNode d, String driver) {
    try (JsonParser p = d.traverse(TREES)) {
      p.nextToken();
      ReadDevice read = new SliceReader().device(p, driver);
      if (read.problem() != null) {
        throw read.problem();
      }
      return read.device();
    } catch (IOException e) {
      throw new java.io.UncheckedIOException(e);
    }
  }

  /**
   * One device from the token stream, {@code p} at its first token; leaves {@code p} at its last. A value
   * the API would refuse costs this device: it is read to its end and the first problem kept.
   */
  private ReadDevice device(JsonParser p, String driver) throws IOException {
    // The maps are built once and handed to the record (no builder: a fleet reads 100,000 devices).
    TreeMap<String, AttributeValue> attributes = new TreeMap<>();
    TreeMap<String, Quantity> capacity = new TreeMap<>();
    TreeMap<String, RequestPolicy> policies = new TreeMap<>();
    List<CounterConsumption> consumes = new ArrayList<>();
    List<DeviceTaint> taints = List.of();
    ObjectNode where = null;
    String deviceName = "";
    boolean multiple = false;
    IllegalArgumentException problem = null;
    if (p.currentToken() != JsonToken.START_OBJECT) {
      p.skipChildren();
    } else {
      JsonStreamContext outer = p.getParsingContext().getParent();
      try {
        while (p.nextToken() == JsonToken.FIELD_NAME) {
          String field = p.currentName();
          JsonToken t = p.nextToken();
          switch (field) {
            case "name" -> {
              deviceName = text(p, "");
              p.skipChildren();
            }
            case "attributes" -> {
              if (t != JsonToken.START_OBJECT) {
                p.skipChildren();
                continue;
              }
              while (p.nextToken() == JsonToken.FIELD_NAME) {
                String key = p.currentName();
                p.nextToken();
                try {
                  AttributeValue value = attribute(p, key);
                  attributes.put(qualified(key, driver), value);
                } catch (IllegalArgumentException e) {
                  problem = problem == null ? e : problem;
                }
              }
            }
            case "capacity" -> {
              if (t != JsonToken.START_OBJECT) {
                p.skipChildren();
                continue;
              }
              while (p.nextToken() == JsonToken.FIELD_NAME) {
                String key = qualified(p.currentName(), driver);
                p.nextToken();
                try {
                  capacity(p, key, capacity, policies);
                } catch (IllegalArgumentException e) {
                  problem = problem == null ? e : problem;
                }
              }
            }
            case "consumesCounters" -> {
              JsonNode list = p.readValueAsTree();
              for (JsonNode c : list == null ? NO_FIELDS : list) {
                try {
                  consumes.add(new CounterConsumption(c.path("counterSet").asText(""), counters(c.path("counters"))));
                } catch (IllegalArgumentException e) {
                  problem = problem == null ? e : problem;
                }
              }
            }
            case "taints" -> {
              JsonNode list = p.readValueAsTree();
              taints = list == null ? List.of() : taints(list);
            }
            case "allowMultipleAllocations" -> {
              if (t.isBoolean()) {
                multiple = t == JsonToken.VALUE_TRUE;
              } else {
                // Anything but a boolean as JsonNode.asBoolean(false) reads it.
                JsonNode value = p.readValueAsTree();
                multiple = value != null && value.asBoolean(false);
              }
            }
            case "nodeName", "allNodes", "nodeSelector" -> {
              where = where == null ? TREES.createObjectNode() : where;
              JsonNode value = p.readValueAsTree();
              where.set(field, value == null ? com.fasterxml.jackson.databind.node.NullNode.getInstance() : value);
            }
            default -> p.skipChildren();
          }
        }
      } catch (IllegalArgumentException | IllegalStateException e) {
        // Whatever a value's check threw mid-way, the device is read to its end and left out.
        problem = problem == null ? new IllegalArgumentException(e.getMessage(), e) : problem;
        while (!(p.currentToken() == JsonToken.END_OBJECT && p.getParsingContext() == outer)) {
          if (p.nextToken() == null) {
            throw new com.fasterxml.jackson.core.JsonParseException(p, "unexpected end of the device");
          }
        }
      }
    }
    Device device = null;
    if (problem == null) {
      try {
        String name = name(deviceName);
        Device last = lastByName.get(name);
        device = last == null
            ? new Device(name, driver, attributes, capacity, policies, multiple, ContainerEdits.EMPTY, List.of(),
                consumes)
            : new Device(name, driver, same(attributes, last.attributes()), same(capacity, last.capacity()),
                same(policies, last.requestPolicies()), multiple, ContainerEdits.EMPTY, List.of(), consumes);
        if (last != null || lastByName.size() < SHARED_MAX) {
          lastByName.put(name, device);
        }
      } catch (IllegalArgumentException e) {
        problem = e;
      }
    }
    return new ReadDevice(deviceName, device, problem, taints, where == null ? NO_FIELDS : where);
  }

  /** {@code held} (an earlier device's map) when {@code read} equals it, else {@code read}. */
  private static <V> java.util.SortedMap<String, V> same(TreeMap<String, V> read, java.util.SortedMap<String, V> held) {
    return read.size() == held.size() && read.equals(held) ? held : read;
  }

  /** One capacity entry ({@code {"value": "64", "requestPolicy": {...}}}), read to its end before it is checked. */
  private void capacity(JsonParser p, String key, TreeMap<String, Quantity> capacity, TreeMap<String, RequestPolicy> policies)
      throws IOException {
    String value = null;
    JsonNode policy = null;
    if (p.currentToken() == JsonToken.START_OBJECT) {
      while (p.nextToken() == JsonToken.FIELD_NAME) {
        String f = p.currentName();
        JsonToken t = p.nextToken();
        if (f.equals("value")) {
          value = t.isStructStart() ? "" : text(p, null);
          p.skipChildren();
        } else if (f.equals("requestPolicy")) {
          policy = p.readValueAsTree();
        } else {
          p.skipChildren();
        }
      }
    } else {
      p.skipChildren();
    }
    capacity.put(key, quantity(value));
    if (policy != null && policy.isObject()) {
      policies.put(key, policy(policy));
    }
  }

  /** A {@code map[string]Counter} ({@code {"memory": {"value": "10Gi"}}}). */
  private TreeMap<String, Quantity> counters(JsonNode map) {
    TreeMap<String, Quantity> out = new TreeMap<>();
    for (Map.Entry<String, JsonNode> c : map.properties()) {
      out.put(c.getKey(), quantity(c.getValue().path("value").asText(null)));
    }
    return out;
  }

  /** {@code driver/name} for a name without a domain, shared across the fleet's devices. */
  private String qualified(String name, String driver) {
    Map<String, String> known = qualifiedNames.computeIfAbsent(driver, k -> new java.util.HashMap<>());
    String q = known.get(name);
    if (q == null) {
      q = qualified0(name, driver);
      if (known.size() < SHARED_MAX) {
        known.put(name, q);
      }
    }
    return q;
  }

  private static String qualified0(String name, String driver) {
    return name.contains("/") ? name : driver + "/" + name;
  }

  /**
   * One attribute value ({@code {"string": "x"}}, {@code int}, {@code bool}, {@code version}, or a KEP-5491
   * {@code strings} list), read to its end before it is checked; the forms are tried in that order.
   */
  private AttributeValue attribute(JsonParser p, String name) throws IOException {
    String string = null;
    String version = null;
    Long integer = null;
    Boolean bool = null;
    List<String> strings = null;
    int fields = 0;
    if (p.currentToken() == JsonToken.START_OBJECT) {
      while (p.nextToken() == JsonToken.FIELD_NAME) {
        String f = p.currentName();
        JsonToken t = p.nextToken();
        fields++;
        switch (f) {
          case "string" -> string = t == JsonToken.VALUE_STRING ? p.getText() : null;
          case "version" -> version = t == JsonToken.VALUE_STRING ? p.getText() : null;
          case "bool" -> bool = t.isBoolean() ? t == JsonToken.VALUE_TRUE : null;
          case "int" -> integer = integer(p, t);
          case "strings" -> {
            if (t == JsonToken.START_ARRAY) {
              strings = new ArrayList<>();
              while (p.nextToken() != JsonToken.END_ARRAY) {
                strings.add(p.currentToken() == JsonToken.VALUE_NULL ? "null" : text(p, ""));
                p.skipChildren();
              }
            } else {
              strings = null;
            }
          }
          default -> { }
        }
        p.skipChildren();
      }
    } else {
      p.skipChildren();
    }
    if (string != null && fields == 1) {
      // The common case, shared by its text.
      AttributeValue known = values.get(string);
      if (known == null) {
        known = AttributeValue.string(string);
        if (values.size() < SHARED_MAX) {
          values.put(string, known);
        }
      }
      return known;
    }
    if (integer != null) {
      long n = integer;
      // Small numbers (NUMA nodes, indexes) are shared; Long.valueOf caches them without allocating.
      return n >= -128 && n <= 127 ? ints.computeIfAbsent(n, AttributeValue::of) : AttributeValue.of(n);
    } else if (bool != null) {
      return AttributeValue.of(bool);
    } else if (string != null) {
      return AttributeValue.string(string);
    } else if (version != null) {
      return AttributeValue.version(version);
    } else if (strings != null) {
      // A KEP-5491 list attribute (resource.kubernetes.io/pcieRoot of cpu devices with --cpu-pcie-roots).
      return new AttributeValue.StringsValue(strings);
    }
    throw new IllegalArgumentException("attribute " + name + " has none of int, bool, string, version, strings");
  }

  /** An {@code int} field's value when it fits a long (as {@code JsonNode.canConvertToLong}), else null. */
  private static Long integer(JsonParser p, JsonToken t) throws IOException {
    if (t == JsonToken.VALUE_NUMBER_INT) {
      JsonParser.NumberType type = p.getNumberType();
      return type == JsonParser.NumberType.BIG_INTEGER ? null : p.getLongValue();
    }
    if (t == JsonToken.VALUE_NUMBER_FLOAT) {
      double d = p.getDoubleValue();
      return d >= Long.MIN_VALUE && d <= Long.MAX_VALUE ? (long) d : null;
    }
    return null;
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
