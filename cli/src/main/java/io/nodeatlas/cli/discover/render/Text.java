package io.nodeatlas.cli.discover.render;

import io.nodeatlas.discovery.host.Excerpt;
import java.util.Locale;

/**
 * Host text on its way into a picture. Device names are DNS labels, but attribute values, host names,
 * warnings and (in a saved report) even PCI addresses are whatever the host or the file said: every such
 * string passes {@link #clean} before a renderer measures or prints it, so an ESC cannot recolour the
 * terminal, a newline cannot forge a line, and a long value cannot push the layout apart.
 */
public final class Text {

  /** The mark that ends a cut string; one column wide. */
  static final String ELLIPSIS = "…";

  private Text() {}

  /**
   * {@code text} made printable ({@link Excerpt#scrub}: controls and invisible code points escaped; lone
   * surrogates too, which no UTF-8 or XML document can hold) and cut to at most {@code max} code points.
   */
  static String clean(String text, int max) {
    if (text == null) {
      return "";
    }
    String scrubbed = Excerpt.scrub(text);
    StringBuilder out = new StringBuilder(scrubbed.length());
    for (int i = 0; i < scrubbed.length(); i++) {
      char c = scrubbed.charAt(i);
      if (Character.isHighSurrogate(c) && i + 1 < scrubbed.length() && Character.isLowSurrogate(scrubbed.charAt(i + 1))) {
        out.append(c).append(scrubbed.charAt(++i));
      } else if (Character.isSurrogate(c)) {
        out.append(String.format(Locale.ROOT, "\\u%04x", (int) c));
      } else {
        out.append(c);
      }
    }
    return cut(out.toString(), max);
  }

  /** {@code text} cut to at most {@code max} columns ({@link #width}), the last one an ellipsis when cut. */
  static String cut(String text, int max) {
    if (width(text) <= max) {
      return text;
    }
    if (max <= 0) {
      return "";
    }
    StringBuilder out = new StringBuilder();
    int used = 0;
    for (int i = 0; i < text.length(); ) {
      int cp = text.codePointAt(i);
      int w = columns(cp);
      if (used + w > max - 1) {
        break;
      }
      out.appendCodePoint(cp);
      used += w;
      i += Character.charCount(cp);
    }
    return out.append(ELLIPSIS).toString();
  }

  /**
   * Columns a cleaned string takes in a monospace font: one per code point, two for the East Asian wide
   * ranges (CJK, Hangul, full-width forms, emoji), which terminals and fallback fonts draw double width.
   * Erring wide keeps columns apart; it never lets text run into its neighbour.
   */
  static int width(String text) {
    int w = 0;
    for (int i = 0; i < text.length(); ) {
      int cp = text.codePointAt(i);
      w += columns(cp);
      i += Character.charCount(cp);
    }
    return w;
  }

  private static int columns(int cp) {
    boolean wide = (cp >= 0x1100 && cp <= 0x115f) || (cp >= 0x2e80 && cp <= 0xa4cf) || (cp >= 0xac00 && cp <= 0xd7a3)
        || (cp >= 0xf900 && cp <= 0xfaff) || (cp >= 0xfe30 && cp <= 0xfe4f) || (cp >= 0xff00 && cp <= 0xff60)
        || (cp >= 0xffe0 && cp <= 0xffe6) || (cp >= 0x1f000 && cp <= 0x1faff) || (cp >= 0x20000 && cp <= 0x3fffd);
    return wide ? 2 : 1;
  }

  /** {@code text} padded with spaces to {@code columns}. */
  static String pad(String text, int columns) {
    int w = width(text);
    return w >= columns ? text : text + " ".repeat(columns - w);
  }

  /**
   * Bytes the way Kubernetes quantities read: the largest binary unit, exact when it divides
   * ({@code 512Gi}), else one decimal ({@code 79.6Gi}).
   */
  public static String bytes(long value) {
    String[] units = {"", "Ki", "Mi", "Gi", "Ti", "Pi", "Ei"};
    if (value < 1024) {
      return Long.toString(value);
    }
    int u = 0;
    double v = value;
    while (u < units.length - 1 && v >= 1024) {
      v /= 1024;
      u++;
    }
    long whole = value >> (10 * u);
    if (whole << (10 * u) == value) {
      return whole + units[u];
    }
    String s = String.format(Locale.ROOT, "%.1f", Math.floor(v * 10) / 10);
    return (s.endsWith(".0") ? s.substring(0, s.length() - 2) : s) + units[u];
  }

  /** {@code n thing} or {@code n things}. */
  static String count(long n, String thing) {
    return n + " " + thing + (n == 1 ? "" : "s");
  }
}
