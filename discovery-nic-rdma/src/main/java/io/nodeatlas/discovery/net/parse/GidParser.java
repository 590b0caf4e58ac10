package io.nodeatlas.discovery.net.parse;

/** One {@code ports/<n>/gids/<i>} value: {@code %pI6}, eight groups of four hex digits, never compressed. */
public final class GidParser {

  public static final String ZERO = "0000:0000:0000:0000:0000:0000:0000:0000";

  private GidParser() {}

  /** The GID in lower case; throws when it is not in the kernel's uncompressed form. */
  public static String parse(String text) {
    return ColonHex.lowerCase(text, 4, 8, 8, "8 groups of 4 hex digits");
  }

  public static boolean isZero(String gid) {
    return ZERO.equals(gid);
  }

  /** The low 64 bits (interface id: the port GUID on InfiniBand) as 16 hex digits. */
  public static String interfaceId(String gid) {
    return gid.substring(20).replace(":", "");
  }
}
