package io.nodeatlas.discovery.net.parse;

/** Attributes whose value is text chosen by a driver or the kernel, kept when it is safe to publish. */
public final class TextValues {

  private TextValues() {}

  /** Driver-defined text ({@code fw_ver}, {@code hca_type}, {@code board_id}, a class device's {@code ibdev}): kept when printable. */
  public static String freeText(String text) {
    for (int i = 0; i < text.length(); i++) {
      char c = text.charAt(i);
      if (c < 0x20 || c == 0x7f) {
        throw Expected.but("printable text", text);
      }
    }
    return text;
  }

  /**
   * {@code phys_port_name} and {@code phys_switch_id} ({@code Documentation/ABI/testing/sysfs-class-net}):
   * short printable tokens (switch ids are hex, port names like {@code p0} or {@code pf0vf1}).
   */
  public static String token(String text) {
    if (text.length() > 64) {
      throw Expected.but("a token of at most 64 characters", text);
    }
    for (int i = 0; i < text.length(); i++) {
      char c = text.charAt(i);
      if (c <= 0x20 || c >= 0x7f) {
        throw Expected.but("a token of printable ASCII characters", text);
      }
    }
    return text;
  }

  /**
   * {@code operstate} ({@code Documentation/ABI/testing/sysfs-class-net}): the RFC 2863 states, as the
   * kernel prints them (already lower case).
   */
  public static String operState(String text) {
    return switch (text) {
      case "unknown", "notpresent", "down", "lowerlayerdown", "testing", "dormant", "up" -> text;
      default -> throw Expected.but("an RFC 2863 operational state (up, down, ...)", text);
    };
  }
}
