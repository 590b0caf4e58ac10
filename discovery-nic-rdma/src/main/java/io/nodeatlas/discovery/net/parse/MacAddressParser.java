package io.nodeatlas.discovery.net.parse;

import java.util.Locale;

/**
 * A netdev {@code address}: {@code addr_len} bytes as colon-separated hex pairs; 6 for Ethernet,
 * 20 for IPoIB (4 bytes of flags and QPN, then the 16-byte port GID). At most MAX_ADDR_LEN (32).
 */
public final class MacAddressParser {

  private MacAddressParser() {}

  public static String parse(String text) {
    int n = text.length();
    if (n < 2 || n > 32 * 3 - 1 || (n + 1) % 3 != 0) {
      throw Expected.but("colon-separated hex bytes", text);
    }
    for (int i = 0; i < n; i++) {
      char c = text.charAt(i);
      boolean ok = (i % 3 == 2) ? c == ':' : Expected.isHex(c);
      if (!ok) {
        throw Expected.but("colon-separated hex bytes", text);
      }
    }
    return text.toLowerCase(Locale.ROOT);
  }

  /** The last 8 bytes as 16 hex digits: for IPoIB the port GUID, comparable with {@link GidParser#interfaceId}. */
  public static String lastEightBytes(String address) {
    String hex = address.replace(":", "");
    return hex.length() < 16 ? "" : hex.substring(hex.length() - 16);
  }
}
