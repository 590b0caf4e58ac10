package io.nodeatlas.discovery.model;

import java.nio.charset.StandardCharsets;
import java.util.regex.Pattern;

/**
 * A typed device attribute, mirroring {@code resource.k8s.io/v1 DeviceAttribute}: exactly one of
 * {@code int}, {@code bool}, {@code string} or {@code version} is set. The limits are the API's
 * ({@code resource.k8s.io/v1} validation: {@code DeviceAttributeMaxValueLength}, semver), checked on construction so that no invalid value can reach a
 * ResourceSlice, a CDI spec or the {@code discover} output.
 */
public sealed interface AttributeValue
    permits AttributeValue.IntValue,
        AttributeValue.BoolValue,
        AttributeValue.StringValue,
        AttributeValue.VersionValue,
        AttributeValue.StringsValue {

  /** Strings and versions are limited to 64 bytes (DeviceAttributeMaxValueLength). */
  int MAX_VALUE_BYTES = 64;

  /** The API's {@code semverRe}: strict semantic versioning 2.0.0, no leading {@code v}. */
  Pattern SEMVER =
      Pattern.compile(
          "^(0|[1-9]\\d*)\\.(0|[1-9]\\d*)\\.(0|[1-9]\\d*)"
              + "(-(0|[1-9]\\d*|\\d*[a-zA-Z-][0-9a-zA-Z-]*)(\\.(0|[1-9]\\d*|\\d*[a-zA-Z-][0-9a-zA-Z-]*))*)?"
              + "(\\+[0-9a-zA-Z-]+(\\.[0-9a-zA-Z-]+)*)?$");

  /** The JSON member name the API uses for this type: {@code int}, {@code bool}, {@code string}, {@code version}. */
  String typeName();

  /** The value as a Java object ({@link Long}, {@link Boolean} or {@link String}). */
  Object asObject();

  static IntValue of(long value) {
    return new IntValue(value);
  }

  static BoolValue of(boolean value) {
    return new BoolValue(value);
  }

  static StringValue string(String value) {
    return new StringValue(value);
  }

  static VersionValue version(String value) {
    return new VersionValue(value);
  }

  /** The API's rule for string and version values: present, and at most {@link #MAX_VALUE_BYTES} bytes of UTF-8. */
  private static void requireAtMostMaxBytes(String type, String value) {
    if (value == null) {
      throw new IllegalArgumentException(type + " attribute value must not be null");
    }
    int bytes = value.getBytes(StandardCharsets.UTF_8).length;
    if (bytes > MAX_VALUE_BYTES) {
      throw new IllegalArgumentException(
          type + " attribute value is " + bytes + " bytes, the API allows at most " + MAX_VALUE_BYTES + ": \"" + value + "\"");
    }
  }

  /** A 64-bit signed integer attribute. */
  record IntValue(long value) implements AttributeValue {
    @Override
    public String typeName() {
      return "int";
    }

    @Override
    public Object asObject() {
      return value;
    }
  }

  /** A boolean attribute. */
  record BoolValue(boolean value) implements AttributeValue {
    @Override
    public String typeName() {
      return "bool";
    }

    @Override
    public Object asObject() {
      return value;
    }
  }

  /**
   * A list of strings ({@code strings}; KEP-5491 list-type attributes, alpha, feature gate
   * {@code DRAListTypeAttributes}): not empty, each value at most 64 bytes, at most
   * {@link #MAX_VALUES_PER_DEVICE} values (the API counts every list item toward that per-device total).
   */
  static StringsValue strings(java.util.List<String> values) {
    return new StringsValue(values);
  }

  /** ResourceSliceMaxAttributeValuesPerDevice: scalar attributes count one each, list attributes one per item. */
  int MAX_VALUES_PER_DEVICE = 48;

  /** How many of the per-device attribute values this attribute uses. */
  default int valueCount() {
    return 1;
  }

  /** A list of strings; see {@link #strings}. */
  record StringsValue(java.util.List<String> values) implements AttributeValue {
    public StringsValue {
      values = java.util.List.copyOf(values);
      if (values.isEmpty() || values.size() > MAX_VALUES_PER_DEVICE) {
        throw new IllegalArgumentException("a strings attribute holds 1 to " + MAX_VALUES_PER_DEVICE + " values, got "
            + values.size());
      }
      values.forEach(v -> requireAtMostMaxBytes("string", v));
    }

    @Override
    public String typeName() {
      return "strings";
    }

    @Override
    public Object asObject() {
      return values;
    }

    @Override
    public int valueCount() {
      return values.size();
    }
  }

  /** A string attribute of at most 64 bytes in UTF-8. */
  record StringValue(String value) implements AttributeValue {
    public StringValue {
      requireAtMostMaxBytes("string", value);
    }

    @Override
    public String typeName() {
      return "string";
    }

    @Override
    public Object asObject() {
      return value;
    }
  }

  /** A strict semantic version of at most 64 bytes ({@code 12.4} must be published as {@code 12.4.0}). */
  record VersionValue(String value) implements AttributeValue {
    public VersionValue {
      requireAtMostMaxBytes("version", value);
      if (!SEMVER.matcher(value).matches()) {
        throw new IllegalArgumentException(
            "version attribute value \"" + value + "\" is not a strict semantic version (MAJOR.MINOR.PATCH)");
      }
    }

    @Override
    public String typeName() {
      return "version";
    }

    @Override
    public Object asObject() {
      return value;
    }
  }
}
