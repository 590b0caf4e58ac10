package io.nodeatlas.discovery.net.parse;

import io.nodeatlas.discovery.net.model.Rate;
import java.util.Optional;

/**
 * Port {@code rate}: {@code "%d%s Gb/sec (%dX%s)"} (drivers/infiniband/core/sysfs.c {@code rate_show}),
 * e.g. {@code 400 Gb/sec (4X NDR)}, {@code 2.5 Gb/sec (1X SDR)}, and on old kernels {@code 2.5 Gb/sec (1X)}.
 * Checked by hand, without a regex: it runs for every port of every VF.
 */
public final class RateParser {

  private static final String EXPECTED = "\"<n> Gb/sec (<w>X <speed>)\"";
  private static final String UNIT = " Gb/sec (";

  private RateParser() {}

  public static Rate parse(String text) {
    int n = text.length();
    int i = digits(text, 0, 6);
    if (i == 0) {
      throw Expected.but(EXPECTED, text);
    }
    int tenths = Integer.parseInt(text, 0, i, 10) * 10;
    if (text.startsWith(".5", i)) {
      tenths += 5;
      i += 2;
    }
    if (!text.startsWith(UNIT, i)) {
      throw Expected.but(EXPECTED, text);
    }
    i += UNIT.length();
    int widthEnd = digits(text, i, 3);
    if (widthEnd == i || widthEnd >= n || text.charAt(widthEnd) != 'X') {
      throw Expected.but(EXPECTED, text);
    }
    int width = Integer.parseInt(text, i, widthEnd, 10);
    i = widthEnd + 1;
    if (i < n && text.charAt(i) == ' ') {
      i++;
    }
    // The speed name: an upper-case letter, then up to 7 upper-case letters or digits (SDR ... XDR, FDR10).
    int speedStart = i;
    if (i < n && text.charAt(i) >= 'A' && text.charAt(i) <= 'Z') {
      i++;
      while (i < n && i - speedStart < 8 && isUpperOrDigit(text.charAt(i))) {
        i++;
      }
    }
    if (i != n - 1 || text.charAt(i) != ')') {
      throw Expected.but(EXPECTED, text);
    }
    Optional<String> speed = i == speedStart ? Optional.empty() : Optional.of(text.substring(speedStart, i));
    return new Rate(tenths, width, speed);
  }

  /** The end of a run of 1..max ASCII digits starting at {@code from}; {@code from} when there is none or it is longer. */
  private static int digits(String text, int from, int max) {
    int i = from;
    while (i < text.length() && Expected.isDigit(text.charAt(i))) {
      i++;
    }
    return i - from > max ? from : i;
  }

  private static boolean isUpperOrDigit(char c) {
    return (c >= 'A' && c <= 'Z') || Expected.isDigit(c);
  }
}
