package io.nodeatlas.discovery.accel.parse;

import io.nodeatlas.discovery.host.Excerpt;
import java.util.Locale;

/**
 * Free text a driver prints for people (a product name, a part or serial number from the board's
 * FRU EEPROM, a VBIOS version) and the fixed-format {@code unique_id} of {@code amdgpu}. Free text
 * becomes a device attribute, which lands in ResourceSlices, CEL expressions and terminals: text with
 * control or invisible characters is malformed, not something to pass on.
 */
public final class HostText {

  private HostText() {}

  /**
   * Printable text, trimmed; {@code null} (absent) when empty. A FRU field the vendor left blank is
   * often padded with spaces or NULs, which {@link io.nodeatlas.discovery.host.HostFs#trimValue}
   * already removed.
   */
  public static String printable(String text) {
    String t = text.strip();
    if (t.isEmpty()) {
      return null;
    }
    if (!Excerpt.isPrintable(t)) {
      throw new IllegalArgumentException("contains control or invisible characters: " + Excerpt.of(t));
    }
    return t;
  }

  /**
   * {@code amdgpu}'s {@code unique_id} ({@code drivers/gpu/drm/amd/pm/amdgpu_pm.c}, {@code "%016llx\n"};
   * GFX9 and newer; empty when the ASIC has none): 16 lower-case hex digits.
   */
  public static String uniqueId(String text) {
    if (text.isEmpty() || text.length() > 16) {
      throw new IllegalArgumentException("not a 64-bit hex id: " + Excerpt.of(text));
    }
    for (int i = 0; i < text.length(); i++) {
      char c = text.charAt(i);
      if (!((c >= '0' && c <= '9') || (c >= 'a' && c <= 'f') || (c >= 'A' && c <= 'F'))) {
        throw new IllegalArgumentException("not a 64-bit hex id: " + Excerpt.of(text));
      }
    }
    return "0".repeat(16 - text.length()) + text.toLowerCase(Locale.ROOT);
  }
}
