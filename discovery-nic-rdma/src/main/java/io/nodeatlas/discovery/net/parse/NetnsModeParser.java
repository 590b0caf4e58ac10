package io.nodeatlas.discovery.net.parse;

import io.nodeatlas.discovery.net.model.NetnsMode;

/** {@code ib_core} module parameter {@code netns_mode}: a {@code bool} param, printed {@code Y} or {@code N}. */
public final class NetnsModeParser {

  private NetnsModeParser() {}

  public static NetnsMode parse(String text) {
    return switch (text) {
      case "Y", "y", "1" -> NetnsMode.SHARED;
      case "N", "n", "0" -> NetnsMode.EXCLUSIVE;
      default -> throw Expected.but("Y or N", text);
    };
  }
}
