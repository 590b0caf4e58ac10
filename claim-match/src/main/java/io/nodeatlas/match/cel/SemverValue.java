package io.nodeatlas.match.cel;

import java.util.ArrayList;
import java.util.List;
import java.util.Objects;
import java.util.regex.Matcher;
import java.util.regex.Pattern;

/**
 * The CEL value {@code kubernetes.Semver}: what a {@code version} device attribute and {@code semver("...")}
 * evaluate to ({@code resource.k8s.io/v1} {@code CELDeviceSelector}). Equality and ordering follow semantic versioning 2.0.0 precedence, as the
 * apiserver's Semver type does: build metadata is ignored, a pre-release sorts before its release, numeric
 * pre-release identifiers compare numerically and sort before alphanumeric ones.
 */
public final class SemverValue implements Comparable<SemverValue> {

  /** The API's strict form (ResourceSlice {@code semverRe}), no leading {@code v}, no leading zeros. */
  private static final Pattern STRICT = Pattern.compile(
      "^(0|[1-9]\\d*)\\.(0|[1-9]\\d*)\\.(0|[1-9]\\d*)"
          + "(?:-((?:0|[1-9]\\d*|\\d*[a-zA-Z-][0-9a-zA-Z-]*)(?:\\.(?:0|[1-9]\\d*|\\d*[a-zA-Z-][0-9a-zA-Z-]*))*))?"
          + "(?:\\+([0-9a-zA-Z-]+(?:\\.[0-9a-zA-Z-]+)*))?$");

  private final long major;
  private final long minor;
  private final long patch;
  private final List<String> preRelease;
  private final String text;

  private SemverValue(long major, long minor, long patch, List<String> preRelease, String text) {
    this.major = major;
    this.minor = minor;
    this.patch = patch;
    this.preRelease = List.copyOf(preRelease);
    this.text = text;
  }

  /** Parses a strict semantic version; the message says why a string is not one. */
  public static SemverValue parse(String text) {
    if (text == null) {
      throw new IllegalArgumentException("semver: null is not a version");
    }
    Matcher m = STRICT.matcher(text);
    if (!m.matches()) {
      // blang/semver's wording (the apiserver's library) where the three numbers are missing.
      String why = text.split("[-+]", 2)[0].split("\\.", -1).length != 3 ? ": No Major.Minor.Patch elements found" : "";
      throw new IllegalArgumentException("\"" + truncate(text) + "\" is not a semantic version (MAJOR.MINOR.PATCH[-PRE][+BUILD])"
          + why);
    }
    List<String> pre = m.group(4) == null ? List.of() : List.of(m.group(4).split("\\."));
    return new SemverValue(number(m.group(1), text), number(m.group(2), text), number(m.group(3), text), pre, text);
  }

  /**
   * {@code semver(s, true)}: the library's normalisation before parsing — drop one leading {@code v},
   * strip leading zeros of the dot-separated parts, pad {@code 1} and {@code 1.2} to three parts (a short
   * version must not carry pre-release or build suffixes).
   */
  public static SemverValue parseNormalized(String text) {
    if (text == null) {
      throw new IllegalArgumentException("semver: null is not a version");
    }
    String s = text.startsWith("v") ? text.substring(1) : text;
    String[] parts = s.split("\\.", 3);
    List<String> out = new ArrayList<>(List.of(parts));
    for (int i = 0; i < out.size(); i++) {
      String p = out.get(i);
      if (p.length() > 1) {
        String trimmed = p.replaceFirst("^0+", "");
        if (trimmed.isEmpty() || !Character.isDigit(trimmed.charAt(0))) {
          trimmed = "0" + trimmed;
        }
        out.set(i, trimmed);
      }
    }
    if (out.size() < 3) {
      String last = out.get(out.size() - 1);
      if (last.contains("+") || last.contains("-")) {
        throw new IllegalArgumentException("\"" + truncate(text) + "\": a short version cannot carry pre-release or build metadata");
      }
      while (out.size() < 3) {
        out.add("0");
      }
    }
    return parse(String.join(".", out));
  }

  public static boolean isValid(String text, boolean normalize) {
    try {
      if (normalize) {
        parseNormalized(text);
      } else {
        parse(text);
      }
      return true;
    } catch (IllegalArgumentException e) {
      return false;
    }
  }

  private static long number(String digits, String text) {
    try {
      return Long.parseLong(digits);
    } catch (NumberFormatException e) {
      throw new IllegalArgumentException("\"" + truncate(text) + "\": version number " + digits + " is out of range", e);
    }
  }

  private static String truncate(String s) {
    return s.length() <= 80 ? s : s.substring(0, 77) + "...";
  }

  public long major() {
    return major;
  }

  public long minor() {
    return minor;
  }

  public long patch() {
    return patch;
  }

  @Override
  public int compareTo(SemverValue o) {
    int c = Long.compare(major, o.major);
    if (c == 0) {
      c = Long.compare(minor, o.minor);
    }
    if (c == 0) {
      c = Long.compare(patch, o.patch);
    }
    if (c != 0) {
      return c;
    }
    if (preRelease.isEmpty() || o.preRelease.isEmpty()) {
      // A release has higher precedence than any of its pre-releases.
      return Boolean.compare(preRelease.isEmpty(), o.preRelease.isEmpty());
    }
    for (int i = 0; i < Math.min(preRelease.size(), o.preRelease.size()); i++) {
      int p = comparePreRelease(preRelease.get(i), o.preRelease.get(i));
      if (p != 0) {
        return p;
      }
    }
    return Integer.compare(preRelease.size(), o.preRelease.size());
  }

  private static int comparePreRelease(String a, String b) {
    boolean an = a.chars().allMatch(Character::isDigit);
    boolean bn = b.chars().allMatch(Character::isDigit);
    if (an && bn) {
      return a.length() != b.length() ? Integer.compare(a.length(), b.length()) : a.compareTo(b);
    }
    if (an != bn) {
      return an ? -1 : 1;
    }
    return Integer.signum(a.compareTo(b));
  }

  @Override
  public boolean equals(Object o) {
    return o instanceof SemverValue v && compareTo(v) == 0;
  }

  @Override
  public int hashCode() {
    return Objects.hash(major, minor, patch, preRelease);
  }

  /** The version as written. */
  @Override
  public String toString() {
    return text;
  }
}
