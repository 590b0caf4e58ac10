package io.nodeatlas.match.cel;

import java.util.Collection;
import java.util.Map;

/** Renders CEL values for explanations: strings quoted, versions as {@code semver("…")}, quantities as {@code quantity("…")}. */
final class Values {

  private Values() {}

  static String render(Object v) {
    if (v instanceof String s) {
      return "\"" + s.replace("\\", "\\\\").replace("\"", "\\\"") + "\"";
    } else if (v instanceof SemverValue s) {
      return "semver(\"" + s + "\")";
    } else if (v instanceof QuantityValue q) {
      return "quantity(\"" + q + "\")";
    } else if (v instanceof Map<?, ?> m) {
      return m.isEmpty() ? "{} (no such domain on this device)" : "{" + m.size() + " entries: " + String.join(", ",
          m.keySet().stream().map(String::valueOf).sorted().toList()) + "}";
    } else if (v instanceof Collection<?> c) {
      return "[" + c.size() + " items]";
    }
    return String.valueOf(v);
  }
}
