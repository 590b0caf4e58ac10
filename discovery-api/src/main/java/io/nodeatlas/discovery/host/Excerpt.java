package io.nodeatlas.discovery.host;

/**
 * Host files are input, and their bytes end up in warnings, logs and terminals. Every piece of host
 * text quoted in a message goes through here: control characters (an ESC that would recolour a
 * terminal, a newline that would forge a log line) and other invisible code points are written as
 * escapes, and long text is cut to a short excerpt.
 */
public final class Excerpt {

  /** How much of a value a message quotes. */
  public static final int MAX_EXCERPT_CHARS = 40;

  /** How long a whole warning or log message may get. */
  public static final int MAX_MESSAGE_CHARS = 512;

  private Excerpt() {}

  /** A short, printable, quoted excerpt of host text: {@code "abc\x1b[31m…"}. */
  public static String of(String text) {
    if (text == null) {
      return "null";
    }
    boolean cut = text.length() > MAX_EXCERPT_CHARS;
    String head = cut ? text.substring(0, MAX_EXCERPT_CHARS) : text;
    return "\"" + escape(head) + (cut ? "…" : "") + "\" (" + text.length() + " chars)";
  }

  /** A whole message made safe to print: control and invisible characters escaped, length capped. */
  public static String scrub(String message) {
    if (message == null) {
      return "";
    }
    boolean cut = message.length() > MAX_MESSAGE_CHARS;
    String head = cut ? message.substring(0, MAX_MESSAGE_CHARS) : message;
    String escaped = escape(head);
    return cut ? escaped + "…" : escaped;
  }

  /** Whether {@code text} has nothing {@link #scrub} would change. */
  public static boolean isPrintable(String text) {
    for (int i = 0; i < text.length(); i++) {
      if (needsEscape(text.charAt(i))) {
        return false;
      }
    }
    return true;
  }

  private static String escape(String text) {
    if (isPrintable(text)) {
      return text;
    }
    StringBuilder out = new StringBuilder(text.length() + 16);
    for (int i = 0; i < text.length(); i++) {
      char c = text.charAt(i);
      if (!needsEscape(c)) {
        out.append(c);
      } else if (c == '\n') {
        out.append("\\n");
      } else if (c == '\t') {
        out.append("\\t");
      } else if (c == '\r') {
        out.append("\\r");
      } else if (c < 0x100) {
        out.append(String.format("\\x%02x", (int) c));
      } else {
        out.append(String.format("\\u%04x", (int) c));
      }
    }
    return out.toString();
  }

  private static boolean needsEscape(char c) {
    if (c < 0x20 || c == 0x7f || (c >= 0x80 && c < 0xa0)) {
      return true; // C0 and C1 controls, DEL
    }
    switch (Character.getType(c)) {
      case Character.FORMAT: // zero-width and bidi controls (U+200B, U+202E, ...)
      case Character.LINE_SEPARATOR:
      case Character.PARAGRAPH_SEPARATOR:
      case Character.PRIVATE_USE:
      case Character.UNASSIGNED:
        return true;
      default:
        return c == '\ufffd';
    }
  }
}
