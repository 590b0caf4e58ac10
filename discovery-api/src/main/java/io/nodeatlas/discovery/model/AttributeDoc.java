package io.nodeatlas.discovery.model;

import io.nodeatlas.discovery.model.Names;
import java.util.Objects;
import java.util.Set;

/**
 * One line of the attribute catalogue ({@code docs/attributes.md}): an attribute or capacity a
 * source publishes on devices of one type, with its value type, unit, an example and its meaning.
 * Sources declare these next to the code that publishes them ({@link DiscoverySource#catalogue()});
 * the catalogue is generated from them and each source's tests check that every name it publishes
 * is declared, so the documentation cannot drift from the output.
 *
 * @param deviceType the {@code nodeatlas.io/type} value ({@code gpu}, {@code cpu}, ...)
 * @param name the fully qualified name ({@code nodeatlas.io/productName})
 * @param kind attribute or capacity
 * @param valueType {@code int}, {@code bool}, {@code string}, {@code version}, {@code strings} (a list) or {@code quantity}
 * @param unit the unit of a number ({@code bytes}, {@code MiB}, {@code Mb/s}); empty when none
 * @param example a typical value, as it appears in a ResourceSlice
 * @param meaning one sentence: what it is and where it comes from
 */
public record AttributeDoc(
    String deviceType, String name, Kind kind, String valueType, String unit, String example, String meaning) {

  /** Whether the entry is a ResourceSlice attribute or a capacity. */
  public enum Kind {
    ATTRIBUTE,
    CAPACITY
  }

  private static final Set<String> VALUE_TYPES = Set.of("int", "bool", "string", "version", "strings", "quantity");

  public AttributeDoc {
    Objects.requireNonNull(deviceType, "deviceType");
    Names.requireQualifiedName(name);
    Objects.requireNonNull(kind, "kind");
    if (!VALUE_TYPES.contains(valueType)) {
      throw new IllegalArgumentException(name + ": value type must be one of " + VALUE_TYPES);
    }
    if ((kind == Kind.CAPACITY) != valueType.equals("quantity")) {
      throw new IllegalArgumentException(name + ": capacities, and only capacities, are quantities");
    }
    unit = unit == null ? "" : unit;
    Objects.requireNonNull(example, "example");
    Objects.requireNonNull(meaning, "meaning");
  }

  public static AttributeDoc attribute(String deviceType, String name, String valueType, String unit, String example, String meaning) {
    return new AttributeDoc(deviceType, name, Kind.ATTRIBUTE, valueType, unit, example, meaning);
  }

  public static AttributeDoc capacity(String deviceType, String name, String unit, String example, String meaning) {
    return new AttributeDoc(deviceType, name, Kind.CAPACITY, "quantity", unit, example, meaning);
  }
}
