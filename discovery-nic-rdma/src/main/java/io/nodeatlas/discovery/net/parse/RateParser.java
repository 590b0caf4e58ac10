package io.nodeatlas.discovery.net.parse;

import io.nodeatlas.discovery.net.model.Rate;
import java.util.Optional;
import java.util.regex.Matcher;
import java.util.regex.Pattern;

/**
 * Port {@code rate}: {@code "%d%s Gb/sec (%dX%s)"} (drivers/infiniband/core/sysfs.c {@code rate_show}),
 * e.g. {@code 400 Gb/sec (4X NDR)}, {@code 2.5 Gb/sec (1X SDR)}, and on old kernels {@code 2.5 Gb/sec (1X)}.
 */
public final class RateParser {

  private static final Pattern RATE =
      Pattern.compile("^(\\d{1,6})(\\.5)? Gb/sec \\((\\d{1,3})X ?([A-Z][A-Z0-9]{0,7})?\\)$");

  private RateParser() {}

  public static Rate parse(String text) {
    Matcher m = RATE.matcher(text);
    if (!m.matches()) {
      throw SysfsFormatException.of("rate", text, "\"<n> Gb/sec (<w>X <speed>)\"");
    }
    int tenths = Integer.parseInt(m.group(1)) * 10 + (m.group(2) == null ? 0 : 5);
    int width = Integer.parseInt(m.group(3));
    return new Rate(tenths, width, Optional.ofNullable(m.group(4)));
  }
}
