package io.nodeatlas.discovery.net.parse;

/**
 * A netdev {@code address}: {@code addr_len} bytes as colon-separated hex pairs; 6 for Ethernet,
 * 20 for IPoIB (4 bytes of flags and QPN, then the 16-byte port GID). At most MAX_ADDR_LEN (32).
 */
public final class MacAddressParser {

  /** The kernel's MAX_ADDR_LEN ({@code include/linux/netdevice.h}). */
  private static final int MAX_ADDR_LEN = 32;

  private MacAddressParser() {}

  public static String parse(String text) {
    return ColonHex.lowerCase(text, 2, 1, MAX_ADDR_LEN, "colon-separated hex bytes");
  }

  /** The last 8 bytes as 16 hex digits: for IPoIB the port GUID, comparable with {@link GidParser#interfaceId}. */
  public static String lastEightBytes(String address) {
    String hex = address.replace(":", "");
    return hex.length() < 16 ? "" : hex.substring(hex.length() - 16);
  }
}
