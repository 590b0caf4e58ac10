package io.nodeatlas.discovery.net.parse;

import io.nodeatlas.discovery.parse.HexDigits;

import java.util.Locale;

/**
 * Hex digits in colon-separated groups of one width, as the kernel prints hardware addresses and
 * ids: netdev {@code address} (bytes), {@code node_guid} ({@code %04x:%04x:%04x:%04x}) and port GIDs
 * ({@code %pI6}). Checked by hand, not with a regular expression: it runs for every interface, RDMA
 * device and GID, and nodes have thousands of VFs.
 */
final class ColonHex {

  private ColonHex() {}

  /**
   * {@code text} in lower case when it is {@code minGroups} to {@code maxGroups} groups of exactly
   * {@code digits} hex digits joined by {@code :}; otherwise throws naming {@code expected}.
   */
  static String lowerCase(String text, int digits, int minGroups, int maxGroups, String expected) {
    int width = digits + 1;
    int n = text.length();
    int groups = (n + 1) / width;
    if ((n + 1) % width != 0 || groups < minGroups || groups > maxGroups) {
      throw Expected.but(expected, text);
    }
    for (int i = 0; i < n; i++) {
      char c = text.charAt(i);
      boolean ok = (i % width == digits) ? c == ':' : HexDigits.is(c);
      if (!ok) {
        throw Expected.but(expected, text);
      }
    }
    return text.toLowerCase(Locale.ROOT);
  }
}
