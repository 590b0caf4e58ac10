package io.nodeatlas.discovery.net.parse;

import java.util.Locale;

/**
 * PCI ids: {@code vendor}, {@code device}, {@code subsystem_*} print {@code 0x%04x}, {@code class}
 * {@code 0x%06x}, and {@code sriov_vf_device} {@code %x} without the prefix. Normalised to lower-case
 * hex without {@code 0x}, zero-padded to {@code digits}, the form pci.ids and NFD use.
 */
public final class PciIdParser {

  private PciIdParser() {}

  public static String parse(String what, String text, int digits) {
    String hex = text.startsWith("0x") || text.startsWith("0X") ? text.substring(2) : text;
    if (hex.isEmpty() || hex.length() > digits) {
      throw SysfsFormatException.of(what, text, "a " + digits + "-digit hex id");
    }
    for (int i = 0; i < hex.length(); i++) {
      if (Character.digit(hex.charAt(i), 16) < 0) {
        throw SysfsFormatException.of(what, text, "a " + digits + "-digit hex id");
      }
    }
    return "0".repeat(digits - hex.length()) + hex.toLowerCase(Locale.ROOT);
  }
}
