package io.nodeatlas.discovery.net.parse;

/**
 * Linux interface names ({@code dev_valid_name}): 1 to 15 bytes, not {@code .} or {@code ..}, no
 * {@code /}, {@code :} or whitespace.
 */
public final class InterfaceNames {

  /** IFNAMSIZ minus the terminating NUL. */
  public static final int MAX_LENGTH = 15;

  private InterfaceNames() {}

  public static String parse(String text) {
    if (!isValid(text)) {
      throw Expected.but("a Linux interface name (1 to 15 bytes, no '/', ':' or whitespace)", text);
    }
    return text;
  }

  public static boolean isValid(String name) {
    if (name.isEmpty() || name.length() > MAX_LENGTH || name.equals(".") || name.equals("..")) {
      return false;
    }
    for (int i = 0; i < name.length(); i++) {
      char c = name.charAt(i);
      if (c == '/' || c == ':' || c <= 0x20 || c >= 0x7f) {
        return false;
      }
    }
    return true;
  }
}
