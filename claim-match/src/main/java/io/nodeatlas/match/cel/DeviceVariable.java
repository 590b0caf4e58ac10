package io.nodeatlas.match.cel;

import io.nodeatlas.discovery.model.AttributeValue;
import io.nodeatlas.discovery.model.Device;
import io.nodeatlas.discovery.model.Quantity;
import java.util.AbstractMap;
import java.util.Collections;
import java.util.Map;
import java.util.Set;
import java.util.TreeMap;

/**
 * The value of the CEL variable {@code device} for one device, shaped as the scheduler builds it
 * (DRALIB {@code cel/compile.go} {@code DeviceMatches}): {@code driver}, {@code allowMultipleAllocations},
 * and {@code attributes}/{@code capacity} as maps from domain to maps from identifier to value. A name
 * without a domain is put under the driver's domain. Looking up a domain the device does not have gives an
 * empty map (so {@code "x" in device.attributes["other.io"]} is false), while {@code "other.io" in
 * device.attributes} still reports only the domains that exist.
 */
public final class DeviceVariable {

  private DeviceVariable() {}

  /** Builds the {@code device} value; version attributes become {@link SemverValue}, capacities {@link QuantityValue}. */
  public static Map<String, Object> of(Device device, String driver) {
    Map<String, Map<String, Object>> attributes = new TreeMap<>();
    for (Map.Entry<String, AttributeValue> e : device.attributes().entrySet()) {
      String[] name = split(e.getKey(), driver);
      attributes.computeIfAbsent(name[0], k -> new TreeMap<>()).put(name[1], celValue(e.getValue()));
    }
    Map<String, Map<String, Object>> capacity = new TreeMap<>();
    for (Map.Entry<String, Quantity> e : device.capacity().entrySet()) {
      String[] name = split(e.getKey(), driver);
      capacity.computeIfAbsent(name[0], k -> new TreeMap<>()).put(name[1], QuantityValue.of(e.getValue()));
    }
    return assemble(driver, device.allowMultipleAllocations(), attributes, capacity);
  }

  /**
   * The {@code device} value from CEL values already split by domain (for tests and readers of other sources):
   * attribute values are Long, Boolean, String, {@link SemverValue} or lists of them.
   */
  static Map<String, Object> assemble(String driver, boolean allowMultipleAllocations,
      Map<String, ? extends Map<String, Object>> attributes, Map<String, ? extends Map<String, Object>> capacity) {
    Map<String, Object> out = new TreeMap<>();
    out.put("driver", driver);
    out.put("allowMultipleAllocations", allowMultipleAllocations);
    out.put("attributes", new DomainMap(attributes));
    out.put("capacity", new DomainMap(capacity));
    return Collections.unmodifiableMap(out);
  }

  /** The CEL value of one attribute: int64, bool, string, {@code kubernetes.Semver} or a list of strings. */
  public static Object celValue(AttributeValue value) {
    if (value instanceof AttributeValue.IntValue i) {
      return i.value();
    } else if (value instanceof AttributeValue.BoolValue b) {
      return b.value();
    } else if (value instanceof AttributeValue.StringValue s) {
      return s.value();
    } else if (value instanceof AttributeValue.StringsValue list) {
      return list.values(); // a KEP-5491 list attribute is a CEL list of strings
    }
    return SemverValue.parse(((AttributeValue.VersionValue) value).value());
  }

  /** {@code domain/id} → {domain, id}; no slash → {driver, id}. */
  static String[] split(String qualifiedName, String driver) {
    int slash = qualifiedName.indexOf('/');
    return slash < 0
        ? new String[] {driver, qualifiedName}
        : new String[] {qualifiedName.substring(0, slash), qualifiedName.substring(slash + 1)};
  }

  /**
   * A domain map whose lookups of absent domains yield an empty map, as the scheduler's
   * {@code newStringInterfaceMapWithDefault} does; membership and iteration see only real domains.
   */
  static final class DomainMap extends AbstractMap<String, Object> {
    private final Map<String, Object> domains;

    DomainMap(Map<String, ? extends Map<String, Object>> domains) {
      Map<String, Object> copy = new TreeMap<>();
      domains.forEach((k, v) -> copy.put(k, Collections.unmodifiableMap(v)));
      this.domains = Collections.unmodifiableMap(copy);
    }

    @Override
    public Object get(Object key) {
      Object v = domains.get(key);
      return v != null ? v : Map.of();
    }

    @Override
    public boolean containsKey(Object key) {
      return domains.containsKey(key);
    }

    @Override
    public Set<Entry<String, Object>> entrySet() {
      return domains.entrySet();
    }
  }
}
