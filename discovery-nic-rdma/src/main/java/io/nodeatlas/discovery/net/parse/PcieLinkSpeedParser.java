package io.nodeatlas.discovery.net.parse;

import java.util.Optional;
import java.util.regex.Matcher;
import java.util.regex.Pattern;

/**
 * {@code current_link_speed}: {@code "%s GT/s PCIe"} on current kernels ({@code 32.0 GT/s PCIe}),
 * {@code "%s GT/s"} on old ones ({@code 8 GT/s}, {@code 2.5 GT/s}), or {@code Unknown}. Normalised to
 * one decimal ({@code 8.0 GT/s}) so old and new kernels publish the same value.
 */
public final class PcieLinkSpeedParser {

  private static final Pattern SPEED = Pattern.compile("^(\\d{1,3})(?:\\.(\\d{1,2}))? GT/s(?: PCIe)?$");

  private PcieLinkSpeedParser() {}

  /** The speed, or empty for {@code Unknown} (no link trained). */
  public static Optional<String> parse(String text) {
    if (text.equals("Unknown") || text.equals("Unknown speed")) {
      return Optional.empty();
    }
    Matcher m = SPEED.matcher(text);
    if (!m.matches()) {
      throw SysfsFormatException.of("link speed", text, "\"<n> GT/s[ PCIe]\"");
    }
    String fraction = m.group(2) == null ? "0" : m.group(2);
    return Optional.of(Integer.parseInt(m.group(1)) + "." + fraction + " GT/s");
  }
}
