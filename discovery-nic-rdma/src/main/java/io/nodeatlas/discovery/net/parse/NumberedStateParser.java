package io.nodeatlas.discovery.net.parse;

import io.nodeatlas.discovery.model.AttributeValue;
import io.nodeatlas.discovery.net.model.NumberedState;

/**
 * The {@code "%d: %s"} form of port {@code state} ({@code 4: ACTIVE}), {@code phys_state}
 * ({@code 5: LinkUp}) and {@code node_type} ({@code 1: CA}) ({@code Documentation/ABI/stable/sysfs-class-infiniband}).
 */
public final class NumberedStateParser {

  private NumberedStateParser() {}

  public static NumberedState parse(String text) {
    int colon = text.indexOf(':');
    if (colon <= 0) {
      throw Expected.but("\"<number>: <name>\"", text);
    }
    int code = Numbers.parseInt(text.substring(0, colon), 0, 255);
    String name = text.substring(colon + 1).strip();
    if (name.isEmpty() || name.length() > AttributeValue.MAX_VALUE_BYTES || !isPrintable(name)) {
      throw Expected.but("\"<number>: <name>\"", text);
    }
    return new NumberedState(code, name);
  }

  static boolean isPrintable(String s) {
    for (int i = 0; i < s.length(); i++) {
      char c = s.charAt(i);
      if (c < 0x20 || c > 0x7e) {
        return false;
      }
    }
    return true;
  }
}
