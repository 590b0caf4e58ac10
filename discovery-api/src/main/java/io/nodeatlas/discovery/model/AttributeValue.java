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
        AttributeValue.VersionValue {

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
