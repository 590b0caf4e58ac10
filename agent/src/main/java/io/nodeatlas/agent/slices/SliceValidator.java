package io.nodeatlas.agent.slices;

import io.fabric8.kubernetes.api.model.Quantity;
import io.fabric8.kubernetes.api.model.resource.v1.CapacityRequestPolicy;
import io.fabric8.kubernetes.api.model.resource.v1.CapacityRequestPolicyRange;
import io.fabric8.kubernetes.api.model.resource.v1.Device;
import io.fabric8.kubernetes.api.model.resource.v1.DeviceAttribute;
import io.fabric8.kubernetes.api.model.resource.v1.DeviceCapacity;
import io.fabric8.kubernetes.api.model.resource.v1.ResourceSlice;
import io.nodeatlas.discovery.model.AttributeValue;
import io.nodeatlas.discovery.model.Names;
import java.math.BigDecimal;
import java.nio.charset.StandardCharsets;
import java.util.ArrayList;
import java.util.HashSet;
import java.util.List;
import java.util.Map;
import java.util.Set;

/**
 * The API server's {@code resource.k8s.io/v1} ResourceSlice validation that applies to what we send,
 * run before sending: a device the API would reject is left out with a warning instead of failing
 * the whole pool. Names, counts and attribute values as the API limits them, and consumable capacity
 * (KEP-5075): {@code requestPolicy} only on a device with {@code allowMultipleAllocations}, and each
 * policy as {@code CapacityRequestPolicy} and {@code CapacityRequestPolicyRange} define it.
 */
public final class SliceValidator {

  /** ResourceSliceMaxDevices. */
  public static final int MAX_DEVICES = 128;
  /** ResourceSliceMaxAttributeValuesPerDevice: scalar attributes count one, list attributes one per item (KEP-5491). */
  public static final int MAX_ATTRIBUTE_VALUES = AttributeValue.MAX_VALUES_PER_DEVICE;
  /** ResourceSliceMaxDevicesWithTaintsOrConsumesCounters: when any device has taints, consumesCounters or list attributes. */
  public static final int MAX_DEVICES_WITH_TAINTS = 64;
  /** ResourceSliceMaxAttributesAndCapacitiesPerDevice. */
  public static final int MAX_ATTRIBUTES_AND_CAPACITIES = 32;
  /** ResourceSliceMaxCounterSets: {@code sharedCounters} entries per slice (KEP-4815). */
  public static final int MAX_COUNTER_SETS = 8;
  /** ResourceSliceMaxCountersPerCounterSet. */
  public static final int MAX_COUNTERS_PER_SET = 32;
  /** ResourceSliceMaxDeviceCounterConsumptionsPerDevice. */
  public static final int MAX_COUNTER_CONSUMPTIONS = 2;
  /** ResourceSliceMaxCountersPerDeviceCounterConsumption. */
  public static final int MAX_COUNTERS_PER_CONSUMPTION = 32;
  /** Taints per device (1.35+). */
  public static final int MAX_TAINTS = 16;
  /** CapacityRequestPolicyDiscreteMaxOptions: {@code validValues} entries per policy. */
  public static final int MAX_VALID_VALUES = 10;

  private SliceValidator() {}

  /** Problems with one device; empty when the API would accept it. */
  public static List<String> deviceProblems(Device d) {
    List<String> problems = new ArrayList<>();
    if (!Names.isDnsLabel(d.getName())) {
      problems.add("name \"" + d.getName() + "\" is not a DNS label");
    }
    Map<String, DeviceAttribute> attributes = d.getAttributes() == null ? Map.of() : d.getAttributes();
    Map<String, ?> capacity = d.getCapacity() == null ? Map.of() : d.getCapacity();
    if (attributes.size() + capacity.size() > MAX_ATTRIBUTES_AND_CAPACITIES) {
      problems.add((attributes.size() + capacity.size()) + " attributes and capacities, at most "
          + MAX_ATTRIBUTES_AND_CAPACITIES + " allowed");
    }
    int values = attributes.values().stream().mapToInt(SliceValidator::valueCount).sum();
    if (values > MAX_ATTRIBUTE_VALUES) {
      problems.add(values + " attribute values, at most " + MAX_ATTRIBUTE_VALUES + " allowed");
    }
    attributes.forEach((name, value) -> {
      qualifiedNameProblem(name).ifPresent(problems::add);
      attributeProblem(name, value).ifPresent(problems::add);
    });
    Map<String, DeviceCapacity> capacities = d.getCapacity() == null ? Map.of() : d.getCapacity();
    capacities.forEach((name, value) -> {
      qualifiedNameProblem(name).ifPresent(problems::add);
      capacityProblems(name, value, Boolean.TRUE.equals(d.getAllowMultipleAllocations())).forEach(problems::add);
    });
    for (String name : attributes.keySet()) {
      if (capacity.containsKey(name)) {
        problems.add("\"" + name + "\" is both an attribute and a capacity");
      }
    }
    Object nodeAllocatable = d.getAdditionalProperties() == null ? null
        : d.getAdditionalProperties().get(SliceDeviceMapper.NODE_ALLOCATABLE_RESOURCES);
    if (nodeAllocatable != null) {
      problems.addAll(nodeAllocatableProblems(nodeAllocatable, capacities.keySet()));
    }
    if (d.getTaints() != null && d.getTaints().size() > MAX_TAINTS) {
      problems.add(d.getTaints().size() + " taints, at most " + MAX_TAINTS + " allowed");
    }
    var consumes = d.getConsumesCounters() == null ? List.<io.fabric8.kubernetes.api.model.resource.v1.DeviceCounterConsumption>of()
        : d.getConsumesCounters();
    if (consumes.size() > MAX_COUNTER_CONSUMPTIONS) {
      problems.add(consumes.size() + " consumesCounters entries, at most " + MAX_COUNTER_CONSUMPTIONS + " allowed");
    }
    Set<String> sets = new HashSet<>();
    for (var c : consumes) {
      if (!sets.add(c.getCounterSet())) {
        problems.add("consumesCounters names counter set \"" + c.getCounterSet() + "\" twice");
      }
      counterProblems("consumesCounters " + c.getCounterSet(), c.getCounterSet(), c.getCounters(),
          MAX_COUNTERS_PER_CONSUMPTION).forEach(problems::add);
    }
    return problems;
  }

  /**
   * A counter set or a device's consumption of one (validateCounterSet, validateDeviceCounterConsumption in
   * k8s.io/kubernetes pkg/apis/resource/validation): the set's name and every counter name a DNS label, 1 to
   * {@code max} counters, each value a quantity.
   */
  static List<String> counterProblems(String at, String setName,
      Map<String, io.fabric8.kubernetes.api.model.resource.v1.Counter> counters, int max) {
    List<String> problems = new ArrayList<>();
    if (setName == null || !Names.isDnsLabel(setName)) {
      problems.add(at + ": counter set name \"" + setName + "\" is not a DNS label");
    }
    int n = counters == null ? 0 : counters.size();
    if (n == 0 || n > max) {
      problems.add(at + ": " + n + " counters, 1 to " + max + " allowed");
    }
    if (counters != null) {
      counters.forEach((name, c) -> {
        if (!Names.isDnsLabel(name)) {
          problems.add(at + ": counter name \"" + name + "\" is not a DNS label");
        }
        if (c == null || amount(c.getValue()) == null) {
          problems.add(at + ": counter " + name + " has no quantity value");
        }
      });
    }
    return problems;
  }

  /** Problems with a whole slice as it will be sent. */
  public static List<String> sliceProblems(ResourceSlice s) {
    List<String> problems = new ArrayList<>();
    String name = s.getMetadata() == null ? null : s.getMetadata().getName();
    if (name == null || !Names.isDnsSubdomain(name)) {
      problems.add("slice name \"" + name + "\" is not a DNS subdomain of at most 253 characters");
    }
    var spec = s.getSpec();
    if (spec == null) {
      problems.add("slice has no spec");
      return problems;
    }
    String driver = spec.getDriver();
    if (driver == null || driver.length() > 63 || !Names.isDnsSubdomain(driver.toLowerCase(java.util.Locale.ROOT))) {
      problems.add("driver \"" + driver + "\" is not a DNS subdomain of at most 63 characters");
    }
    if (spec.getNodeName() == null || !Names.isDnsSubdomain(spec.getNodeName())) {
      problems.add("nodeName \"" + spec.getNodeName() + "\" is not a valid node name");
    }
    var pool = spec.getPool();
    if (pool == null || pool.getName() == null || !validPoolName(pool.getName())) {
      problems.add("pool name \"" + (pool == null ? null : pool.getName()) + "\" is not valid");
    } else {
      if (pool.getGeneration() == null || pool.getGeneration() < 0) {
        problems.add("pool generation must be >= 0");
      }
      if (pool.getResourceSliceCount() == null || pool.getResourceSliceCount() <= 0) {
        problems.add("pool resourceSliceCount must be > 0");
      }
    }
    List<Device> devices = spec.getDevices() == null ? List.of() : spec.getDevices();
    var counterSets = spec.getSharedCounters() == null
        ? List.<io.fabric8.kubernetes.api.model.resource.v1.CounterSet>of() : spec.getSharedCounters();
    if (!counterSets.isEmpty() && !devices.isEmpty()) {
      problems.add("only one of sharedCounters or devices is allowed in a slice");
    }
    if (counterSets.size() > MAX_COUNTER_SETS) {
      problems.add(counterSets.size() + " counter sets, at most " + MAX_COUNTER_SETS + " allowed in one slice");
    }
    Set<String> setNames = new HashSet<>();
    for (var set : counterSets) {
      if (!setNames.add(set.getName())) {
        problems.add("counter set \"" + set.getName() + "\" appears twice");
      }
      counterProblems("sharedCounters " + set.getName(), set.getName(), set.getCounters(), MAX_COUNTERS_PER_SET)
          .forEach(problems::add);
    }
    boolean tainted = devices.stream().anyMatch(d -> (d.getTaints() != null && !d.getTaints().isEmpty())
        || (d.getConsumesCounters() != null && !d.getConsumesCounters().isEmpty()));
    int max = tainted || hasListAttributes(devices) ? MAX_DEVICES_WITH_TAINTS : MAX_DEVICES;
    if (devices.size() > max) {
      problems.add(devices.size() + " devices, at most " + max + " allowed in one slice");
    }
    Set<String> seen = new HashSet<>();
    for (Device d : devices) {
      if (!seen.add(d.getName())) {
        problems.add("device \"" + d.getName() + "\" appears twice");
      }
      deviceProblems(d).forEach(p -> problems.add("device " + d.getName() + ": " + p));
    }
    return problems;
  }

  /** Whether any device has a list attribute ({@code ints}, {@code bools}, {@code strings}, {@code versions}). */
  public static boolean hasListAttributes(List<Device> devices) {
    return devices.stream().filter(d -> d.getAttributes() != null).flatMap(d -> d.getAttributes().values().stream())
        .anyMatch(a -> size(a.getInts()) + size(a.getBools()) + size(a.getStrings()) + size(a.getVersions()) > 0);
  }

  /** The values an attribute counts toward {@link #MAX_ATTRIBUTE_VALUES} (numEntriesDeviceAttribute). */
  private static int valueCount(DeviceAttribute a) {
    int items = size(a.getInts()) + size(a.getBools()) + size(a.getStrings()) + size(a.getVersions());
    return items == 0 ? 1 : items;
  }

  private static int size(List<?> list) {
    return list == null ? 0 : list.size();
  }

  /** Pool names: one or more DNS subdomains separated by {@code /}, at most 253 characters. */
  static boolean validPoolName(String pool) {
    if (pool.isEmpty() || pool.length() > 253) {
      return false;
    }
    for (String part : pool.split("/", -1)) {
      if (!Names.isDnsSubdomain(part)) {
        return false;
      }
    }
    return true;
  }

  private static java.util.Optional<String> qualifiedNameProblem(String name) {
    try {
      Names.requireQualifiedName(name);
      return java.util.Optional.empty();
    } catch (IllegalArgumentException e) {
      return java.util.Optional.of(e.getMessage());
    }
  }

  /** A capacity's value and request policy, as {@code DeviceCapacity} and {@code CapacityRequestPolicy} allow them. */
  static List<String> capacityProblems(String name, DeviceCapacity c, boolean allowMultipleAllocations) {
    List<String> problems = new ArrayList<>();
    String at = "capacity " + name;
    BigDecimal value = c == null ? null : amount(c.getValue());
    if (value == null) {
      problems.add(at + ": value is missing or not a quantity");
      return problems;
    }
    CapacityRequestPolicy p = c.getRequestPolicy();
    if (p == null) {
      return problems;
    }
    if (!allowMultipleAllocations) {
      problems.add(at + ": requestPolicy needs allowMultipleAllocations: true on the device");
    }
    BigDecimal def = p.getDefault() == null ? null : amount(p.getDefault());
    if (p.getDefault() != null && def == null) {
      problems.add(at + ": requestPolicy.default is not a quantity");
    }
    if (def != null && (def.signum() < 0 || def.compareTo(value) > 0)) {
      problems.add(at + ": requestPolicy.default " + plain(def) + " is outside 0.." + plain(value));
    }
    List<Quantity> values = p.getValidValues() == null ? List.of() : p.getValidValues();
    CapacityRequestPolicyRange range = p.getValidRange();
    if (range != null && !values.isEmpty()) {
      problems.add(at + ": requestPolicy sets both validRange and validValues, at most one is allowed");
    }
    if ((range != null || !values.isEmpty()) && p.getDefault() == null) {
      problems.add(at + ": requestPolicy.default is required with validRange or validValues");
    }
    if (values.size() > MAX_VALID_VALUES) {
      problems.add(at + ": requestPolicy.validValues has " + values.size() + " entries, at most " + MAX_VALID_VALUES
          + " allowed");
    }
    validValuesProblems(at, values, def, value, problems);
    if (range != null) {
      rangeProblems(at, range, def, value, problems);
    }
    return problems;
  }

  /** {@code validValues}: quantities sorted ascending, each within the capacity, the default among them. */
  private static void validValuesProblems(String at, List<Quantity> values, BigDecimal def, BigDecimal value,
      List<String> problems) {
    BigDecimal previous = null;
    boolean defaultListed = false;
    for (Quantity q : values) {
      BigDecimal v = amount(q);
      if (v == null) {
        problems.add(at + ": requestPolicy.validValues has an entry that is not a quantity");
        return;
      }
      if (previous != null && v.compareTo(previous) <= 0) {
        problems.add(at + ": requestPolicy.validValues must be sorted ascending without duplicates");
      }
      if (v.signum() < 0 || v.compareTo(value) > 0) {
        problems.add(at + ": requestPolicy.validValues entry " + plain(v) + " is outside 0.." + plain(value));
      }
      defaultListed |= def != null && v.compareTo(def) == 0;
      previous = v;
    }
    if (!values.isEmpty() && def != null && !defaultListed) {
      problems.add(at + ": requestPolicy.default " + plain(def) + " is not one of validValues");
    }
  }

  /** {@code validRange}: min, max and step as quantities within the capacity, the default on a step. */
  private static void rangeProblems(String at, CapacityRequestPolicyRange range, BigDecimal def, BigDecimal value,
      List<String> problems) {
    BigDecimal min = amount(range.getMin());
    BigDecimal max = range.getMax() == null ? null : amount(range.getMax());
    BigDecimal step = range.getStep() == null ? null : amount(range.getStep());
    if (min == null || (range.getMax() != null && max == null) || (range.getStep() != null && step == null)) {
      problems.add(at + ": requestPolicy.validRange needs min, and min, max and step must be quantities");
      return;
    }
    if (min.signum() < 0 || min.compareTo(value) > 0) {
      problems.add(at + ": requestPolicy.validRange.min " + plain(min) + " is outside 0.." + plain(value));
    }
    if (max != null && (max.compareTo(min) < 0 || max.compareTo(value) > 0)) {
      problems.add(at + ": requestPolicy.validRange.max " + plain(max) + " is outside " + plain(min) + ".." + plain(value));
    }
    if (def != null && (def.compareTo(min) < 0 || (max != null && def.compareTo(max) > 0))) {
      problems.add(at + ": requestPolicy.default " + plain(def) + " is outside the valid range");
    }
    if (step != null && step.signum() <= 0) {
      problems.add(at + ": requestPolicy.validRange.step must be positive");
    } else if (step != null) {
      // validateRequestPolicyRange: one step past min must fit the capacity (so a capacity of exactly
      // min takes no step), and the default and max must lie on the steps from min.
      if (min.add(step).compareTo(value) > 0) {
        problems.add(at + ": requestPolicy.validRange min + step " + plain(min.add(step)) + " exceeds the capacity "
            + plain(value));
      }
      if (def != null && def.subtract(min).remainder(step).signum() != 0) {
        problems.add(at + ": requestPolicy.default " + plain(def) + " is not min plus a multiple of step " + plain(step));
      }
      if (max != null && max.subtract(min).remainder(step).signum() != 0) {
        problems.add(at + ": requestPolicy.validRange.max " + plain(max) + " is not min plus a multiple of step "
            + plain(step));
      }
    }
  }

  /**
   * KEP-5517 {@code nodeAllocatableResources}, as {@code pkg/apis/resource/validation}
   * validateNodeAllocatableResources checks it: each key a node-allocatable resource ({@code cpu},
   * {@code memory}, {@code hugepages-<size>}); each entry with a {@code mapping} or an {@code overhead};
   * a mapping's {@code capacityKey} naming a capacity of the device, with a positive
   * {@code capacityMultiplier}, or else a positive {@code deviceMultiplier} (the two are union members);
   * an overhead with a non-negative {@code perPod} or {@code perContainer}.
   */
  static List<String> nodeAllocatableProblems(Object value, Set<String> capacities) {
    List<String> problems = new ArrayList<>();
    String at = SliceDeviceMapper.NODE_ALLOCATABLE_RESOURCES;
    if (!(value instanceof Map<?, ?> resources)) {
      problems.add(at + " must be a map");
      return problems;
    }
    resources.forEach((key, entry) -> {
      String name = String.valueOf(key);
      String here = at + "[" + name + "]";
      if (!io.nodeatlas.discovery.model.NodeAllocatableMapping.isResourceName(name)) {
        problems.add(here + ": not a node allocatable resource name (cpu, memory, hugepages-<size>)");
      }
      if (!(entry instanceof Map<?, ?> e) || (e.get("mapping") == null && e.get("overhead") == null)) {
        problems.add(here + ": at least one of mapping or overhead must be set");
        return;
      }
      if (e.get("mapping") != null) {
        if (!(e.get("mapping") instanceof Map<?, ?> m)) {
          problems.add(here + ".mapping must be an object");
        } else {
          Object key0 = m.get("capacityKey");
          BigDecimal capacityMultiplier = quantityField(m, "capacityMultiplier", here + ".mapping", problems);
          BigDecimal deviceMultiplier = quantityField(m, "deviceMultiplier", here + ".mapping", problems);
          if (key0 != null) {
            if (!capacities.contains(String.valueOf(key0))) {
              problems.add(here + ".mapping.capacityKey \"" + key0 + "\" is not a capacity of the device");
            }
            if (m.get("capacityMultiplier") == null) {
              problems.add(here + ".mapping.capacityMultiplier is required when capacityKey is set");
            }
            if (m.get("deviceMultiplier") != null) {
              problems.add(here + ".mapping sets capacityKey and deviceMultiplier, at most one is allowed");
            }
          } else if (m.get("capacityMultiplier") != null) {
            problems.add(here + ".mapping.capacityKey is required when capacityMultiplier is set");
          }
          if (capacityMultiplier != null && capacityMultiplier.signum() <= 0) {
            problems.add(here + ".mapping.capacityMultiplier must be positive");
          }
          if (deviceMultiplier != null && deviceMultiplier.signum() <= 0) {
            problems.add(here + ".mapping.deviceMultiplier must be positive");
          }
        }
      }
      if (e.get("overhead") != null) {
        if (!(e.get("overhead") instanceof Map<?, ?> o) || (o.get("perPod") == null && o.get("perContainer") == null)) {
          problems.add(here + ".overhead: at least one of perPod or perContainer must be set");
        } else {
          for (String f : List.of("perPod", "perContainer")) {
            BigDecimal v = quantityField(o, f, here + ".overhead", problems);
            if (v != null && v.signum() < 0) {
              problems.add(here + ".overhead." + f + " must be non-negative");
            }
          }
        }
      }
    });
    return problems;
  }

  private static BigDecimal quantityField(Map<?, ?> m, String field, String at, List<String> problems) {
    Object v = m.get(field);
    if (v == null) {
      return null;
    }
    BigDecimal amount = null;
    if (v instanceof Number || v instanceof String) {
      try {
        amount = amount(new Quantity(String.valueOf(v)));
      } catch (RuntimeException e) {
        amount = null;
      }
    }
    if (amount == null) {
      problems.add(at + "." + field + " is not a quantity");
    }
    return amount;
  }

  private static BigDecimal amount(Quantity q) {
    if (q == null) {
      return null;
    }
    try {
      return q.getNumericalAmount();
    } catch (RuntimeException e) {
      return null;
    }
  }

  private static String plain(BigDecimal v) {
    return v.stripTrailingZeros().toPlainString();
  }

  private static java.util.Optional<String> attributeProblem(String name, DeviceAttribute a) {
    int set = 0;
    set += a.getInt() != null ? 1 : 0;
    set += a.getBool() != null ? 1 : 0;
    set += a.getString() != null ? 1 : 0;
    set += a.getVersion() != null ? 1 : 0;
    set += a.getInts() != null && !a.getInts().isEmpty() ? 1 : 0;
    set += a.getBools() != null && !a.getBools().isEmpty() ? 1 : 0;
    set += a.getStrings() != null && !a.getStrings().isEmpty() ? 1 : 0;
    set += a.getVersions() != null && !a.getVersions().isEmpty() ? 1 : 0;
    if (set != 1) {
      return java.util.Optional.of("attribute " + name + " must have exactly one value, has " + set);
    }
    if (a.getStrings() != null && a.getStrings().stream()
        .anyMatch(v -> v == null || v.getBytes(StandardCharsets.UTF_8).length > AttributeValue.MAX_VALUE_BYTES)) {
      return java.util.Optional.of("attribute " + name + ": a string longer than " + AttributeValue.MAX_VALUE_BYTES + " bytes");
    }
    if (a.getString() != null && a.getString().getBytes(StandardCharsets.UTF_8).length > AttributeValue.MAX_VALUE_BYTES) {
      return java.util.Optional.of("attribute " + name + ": string longer than " + AttributeValue.MAX_VALUE_BYTES + " bytes");
    }
    if (a.getVersion() != null && (a.getVersion().length() > AttributeValue.MAX_VALUE_BYTES
        || !AttributeValue.SEMVER.matcher(a.getVersion()).matches())) {
      return java.util.Optional.of("attribute " + name + ": \"" + a.getVersion() + "\" is not a semantic version of at most 64 bytes");
    }
    return java.util.Optional.empty();
  }
}
