package io.nodeatlas.discovery.model;

import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.Map;
import java.util.Optional;
import java.util.OptionalInt;
import java.util.OptionalLong;
import java.util.TreeMap;
import java.util.function.Consumer;

/**
 * The one lenient way a source turns facts into a {@link Device}. Where {@link Device.Builder} throws
 * on anything the ResourceSlice API would reject, a draft leaves out the value that does not fit and
 * says so in one warning naming the device, the attribute and the limit: a 70-byte serial number
 * costs the serial number, not the GPU. Absent values ({@code null}, empty optionals) are skipped
 * silently, which keeps sources terse.
 *
 * <p>The 32-entry limit ({@code ResourceSliceMaxAttributesAndCapacitiesPerDevice}) is applied in the
 * order entries were added: a source adds what users select on first, and what comes last is what is
 * left out when a device has too much to say.
 */
public final class DeviceDraft {

  private final String name;
  private final String source;
  private final Consumer<String> warn;
  private final Map<String, AttributeValue> attributes = new LinkedHashMap<>();
  private final Map<String, Quantity> capacity = new LinkedHashMap<>();
  private final Map<String, RequestPolicy> requestPolicies = new TreeMap<>();
  private final Map<String, Integer> order = new LinkedHashMap<>();
  private boolean allowMultipleAllocations;
  private ContainerEdits edits = ContainerEdits.EMPTY;
  private final Map<String, NodeAllocatableMapping> nodeAllocatable = new TreeMap<>();

  private DeviceDraft(String name, String source, Consumer<String> warn) {
    this.name = name;
    this.source = source;
    this.warn = warn;
  }

  /** A draft of device {@code name} from {@code source}; problems go to {@code warn}. */
  public static DeviceDraft of(String name, String source, Consumer<String> warn) {
    return new DeviceDraft(name, source, warn);
  }

  public String name() {
    return name;
  }

  public DeviceDraft attribute(String qualifiedName, AttributeValue value) {
    if (value != null && validName(qualifiedName)) {
      put(qualifiedName);
      attributes.put(qualifiedName, value);
    }
    return this;
  }

  /** A string attribute; one over 64 bytes is left out with a warning. */
  public DeviceDraft attribute(String qualifiedName, String value) {
    if (value == null) {
      return this;
    }
    try {
      return attribute(qualifiedName, AttributeValue.string(value));
    } catch (IllegalArgumentException e) {
      leftOut(qualifiedName, "the value is " + utf8Length(value) + " bytes, a ResourceSlice allows at most "
          + AttributeValue.MAX_VALUE_BYTES);
      return this;
    }
  }

  public DeviceDraft attribute(String qualifiedName, Optional<String> value) {
    return attribute(qualifiedName, value.orElse(null));
  }

  public DeviceDraft attribute(String qualifiedName, long value) {
    return attribute(qualifiedName, AttributeValue.of(value));
  }

  public DeviceDraft attribute(String qualifiedName, OptionalInt value) {
    return value.isPresent() ? attribute(qualifiedName, (long) value.getAsInt()) : this;
  }

  public DeviceDraft attribute(String qualifiedName, OptionalLong value) {
    return value.isPresent() ? attribute(qualifiedName, value.getAsLong()) : this;
  }

  public DeviceDraft attribute(String qualifiedName, boolean value) {
    return attribute(qualifiedName, AttributeValue.of(value));
  }

  /** An int attribute from an optional number. */
  public DeviceDraft intAttribute(String qualifiedName, Optional<? extends Number> value) {
    return value.isPresent() ? attribute(qualifiedName, value.get().longValue()) : this;
  }

  /** A boolean attribute from an optional. */
  public DeviceDraft boolAttribute(String qualifiedName, Optional<Boolean> value) {
    return value.isPresent() ? attribute(qualifiedName, value.get().booleanValue()) : this;
  }

  /** A version attribute; one that is not strict semver is left out with a warning. */
  public DeviceDraft version(String qualifiedName, String value) {
    if (value == null) {
      return this;
    }
    try {
      return attribute(qualifiedName, AttributeValue.version(value));
    } catch (IllegalArgumentException e) {
      leftOut(qualifiedName, "\"" + value + "\" is not a strict semantic version (MAJOR.MINOR.PATCH)");
      return this;
    }
  }

  public DeviceDraft version(String qualifiedName, Optional<String> value) {
    return version(qualifiedName, value.orElse(null));
  }

  public DeviceDraft capacity(String qualifiedName, Quantity value) {
    if (value != null && validName(qualifiedName)) {
      put(qualifiedName);
      capacity.put(qualifiedName, value);
    }
    return this;
  }

  public DeviceDraft capacity(String qualifiedName, long value) {
    return capacity(qualifiedName, Quantity.of(value));
  }

  public DeviceDraft capacity(String qualifiedName, OptionalLong value) {
    return value.isPresent() ? capacity(qualifiedName, value.getAsLong()) : this;
  }

  /** A capacity that claims consume in shares ({@link RequestPolicy}); implies multiple allocations. */
  public DeviceDraft capacity(String qualifiedName, Quantity value, RequestPolicy policy) {
    capacity(qualifiedName, value);
    if (value != null && policy != null && capacity.containsKey(qualifiedName)) {
      requestPolicies.put(qualifiedName, policy);
      allowMultipleAllocations = true;
    }
    return this;
  }

  /** Several claims may hold this device at once. */
  public DeviceDraft allowMultipleAllocations(boolean allow) {
    this.allowMultipleAllocations = allow;
    return this;
  }

  public DeviceDraft containerEdits(ContainerEdits containerEdits) {
    this.edits = containerEdits == null ? ContainerEdits.EMPTY : containerEdits;
    return this;
  }

  /**
   * What an allocation counts as against node-allocatable {@code resource} (KEP-5517); a mapping of a
   * capacity the device does not end up with is left out with a warning.
   */
  public DeviceDraft nodeAllocatable(String resource, NodeAllocatableMapping mapping) {
    nodeAllocatable.put(resource, mapping);
    return this;
  }

  /** The device, or empty (with a warning) when its name is not a DNS label. */
  public Optional<Device> build() {
    if (!Names.isDnsLabel(name)) {
      warn.accept("device \"" + name + "\" left out: its name is not a DNS label (lower-case letters, digits and '-', at most 63 characters)");
      return Optional.empty();
    }
    int kept = 0;
    Map<String, AttributeValue> a = new TreeMap<>();
    Map<String, Quantity> c = new TreeMap<>();
    for (String key : order.keySet()) {
      if (kept == Device.MAX_ATTRIBUTES_AND_CAPACITIES) {
        leftOut(key, "the device already has " + Device.MAX_ATTRIBUTES_AND_CAPACITIES
            + " attributes and capacities, the most a ResourceSlice allows");
        requestPolicies.remove(key);
        continue;
      }
      kept++;
      if (attributes.containsKey(key)) {
        a.put(key, attributes.get(key));
      } else {
        c.put(key, capacity.get(key));
      }
    }
    // ResourceSliceMaxAttributeValuesPerDevice: list items count one each; lists that do not fit go.
    int values = a.values().stream().mapToInt(AttributeValue::valueCount).sum();
    for (String key : new ArrayList<>(a.keySet())) {
      AttributeValue v = a.get(key);
      if (values > AttributeValue.MAX_VALUES_PER_DEVICE && v.valueCount() > 1) {
        leftOut(key, "its " + v.valueCount() + " values would make the device's attribute values more than "
            + AttributeValue.MAX_VALUES_PER_DEVICE + ", the most a ResourceSlice allows");
        a.remove(key);
        values -= v.valueCount();
      }
    }
    boolean shared = allowMultipleAllocations || !requestPolicies.isEmpty();
    TreeMap<String, NodeAllocatableMapping> mappings = new TreeMap<>();
    nodeAllocatable.forEach((resource, m) -> {
      if (!NodeAllocatableMapping.isResourceName(resource)) {
        leftOut("nodeAllocatableResources " + resource, "not a node-allocatable resource (cpu, memory, hugepages-<size>)");
      } else if (m.capacityKey().isPresent() && !c.containsKey(m.capacityKey().get())) {
        leftOut("nodeAllocatableResources " + resource, "capacity " + m.capacityKey().get() + " is not published");
      } else {
        mappings.put(resource, m);
      }
    });
    return Optional.of(new Device(name, source, new TreeMap<>(a), new TreeMap<>(c),
        new TreeMap<>(requestPolicies), shared, edits, mappings));
  }

  private void put(String key) {
    // An attribute and a capacity of one name would be rejected by the API; the later one wins.
    if (attributes.remove(key) != null || capacity.remove(key) != null) {
      order.remove(key);
      requestPolicies.remove(key);
    }
    order.put(key, order.size());
  }

  private boolean validName(String qualifiedName) {
    try {
      Names.requireQualifiedName(qualifiedName);
      return true;
    } catch (IllegalArgumentException e) {
      warn.accept("device " + name + ": " + e.getMessage() + "; left out");
      return false;
    }
  }

  private void leftOut(String qualifiedName, String why) {
    warn.accept("device " + name + ": " + qualifiedName + " left out: " + why);
  }

  private static int utf8Length(String s) {
    return s.getBytes(java.nio.charset.StandardCharsets.UTF_8).length;
  }
}
