package io.nodeatlas.cdi.spec;

import java.util.Optional;

/**
 * CDI name rules, as the reference library's {@code pkg/parser} applies them (CDI spec v1.1.0, "kind"
 * and device names). Each check returns the library's error text, or empty when the name is valid, so the
 * validator's messages match what a runtime logs.
 */
public final class CdiNames {

  private CdiNames() {}

  /** The vendor part of a kind: before the first {@code /}; empty when either side of it is missing. */
  public static String vendorOf(String kind) {
    int slash = kind.indexOf('/');
    if (slash <= 0 || slash == kind.length() - 1) {
      return "";
    }
    return kind.substring(0, slash);
  }

  /** The class part of a kind: after the first {@code /} (may itself contain {@code /}, which is then invalid). */
  public static String classOf(String kind) {
    int slash = kind.indexOf('/');
    if (slash <= 0 || slash == kind.length() - 1) {
      return "";
    }
    return kind.substring(slash + 1);
  }

  /** parser.ValidateVendorName. */
  public static Optional<String> checkVendor(String vendor) {
    return checkVendorOrClass(vendor).map(e -> "invalid vendor. " + e);
  }

  /** parser.ValidateClassName. */
  public static Optional<String> checkClass(String deviceClass) {
    return checkVendorOrClass(deviceClass).map(e -> "invalid class. " + e);
  }

  /** First char a letter, middle chars letters, digits, {@code _ . -}, last char a letter or digit. */
  private static Optional<String> checkVendorOrClass(String name) {
    if (name.isEmpty()) {
      return Optional.of("empty name");
    }
    if (!isLetter(name.charAt(0))) {
      return Optional.of(quote(name) + ", should start with letter");
    }
    for (int i = 1; i < name.length() - 1; i++) {
      char c = name.charAt(i);
      if (!isAlphaNumeric(c) && c != '_' && c != '-' && c != '.') {
        return Optional.of("invalid character '" + c + "' in name " + quote(name));
      }
    }
    if (!isAlphaNumeric(name.charAt(name.length() - 1))) {
      return Optional.of(quote(name) + ", should end with a letter or digit");
    }
    return Optional.empty();
  }

  /**
   * parser.ValidateDeviceName: first char a letter or digit, middle chars also {@code _ . : -}, last a
   * letter or digit. (The library's message for a bad first char really says "class".)
   */
  public static Optional<String> checkDeviceName(String name) {
    if (name.isEmpty()) {
      return Optional.of("invalid (empty) device name");
    }
    if (!isAlphaNumeric(name.charAt(0))) {
      return Optional.of("invalid class " + quote(name) + ", should start with a letter or digit");
    }
    for (int i = 1; i < name.length() - 1; i++) {
      char c = name.charAt(i);
      if (!isAlphaNumeric(c) && c != '_' && c != '-' && c != '.' && c != ':') {
        return Optional.of("invalid character '" + c + "' in device name " + quote(name));
      }
    }
    if (!isAlphaNumeric(name.charAt(name.length() - 1))) {
      return Optional.of("invalid name " + quote(name) + ", should end with a letter or digit");
    }
    return Optional.empty();
  }

  /** {@code vendor/class=name}, checked; throws with the library's message when a part is invalid. */
  public static String qualifiedName(String vendor, String deviceClass, String name) {
    checkVendor(vendor).or(() -> checkClass(deviceClass)).or(() -> checkDeviceName(name)).ifPresent(e -> {
      throw new IllegalArgumentException(e);
    });
    return vendor + "/" + deviceClass + "=" + name;
  }

  static boolean isLetter(char c) {
    return (c >= 'A' && c <= 'Z') || (c >= 'a' && c <= 'z');
  }

  static boolean isAlphaNumeric(char c) {
    return isLetter(c) || (c >= '0' && c <= '9');
  }

  /** Go's {@code %q} for the printable ASCII names that occur here; other characters are escaped as {@code \\uXXXX}. */
  public static String quote(String s) {
    StringBuilder out = new StringBuilder(s.length() + 2).append('"');
    for (int i = 0; i < s.length(); i++) {
      char c = s.charAt(i);
      switch (c) {
        case '"' -> out.append("\\\"");
        case '\\' -> out.append("\\\\");
        case '\n' -> out.append("\\n");
        case '\t' -> out.append("\\t");
        default -> {
          if (c < 0x20 || c == 0x7f) {
            out.append(String.format("\\x%02x", (int) c));
          } else {
            out.append(c);
          }
        }
      }
    }
    return out.append('"').toString();
  }
}
