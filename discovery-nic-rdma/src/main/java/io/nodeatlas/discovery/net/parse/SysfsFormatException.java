package io.nodeatlas.discovery.net.parse;

/** Text that does not have the format the kernel prints for that attribute. */
public final class SysfsFormatException extends RuntimeException {
  private static final long serialVersionUID = 1L;

  public SysfsFormatException(String message) {
    super(message);
  }

  static SysfsFormatException of(String what, String text, String expected) {
    return new SysfsFormatException(what + " \"" + abbreviate(text) + "\" is not " + expected);
  }

  /** Keeps warnings readable when a file holds a page of garbage. */
  static String abbreviate(String text) {
    String oneLine = text.replace("\n", "\\n").replace("\0", "\\0");
    return oneLine.length() <= 80 ? oneLine : oneLine.substring(0, 77) + "...";
  }
}
