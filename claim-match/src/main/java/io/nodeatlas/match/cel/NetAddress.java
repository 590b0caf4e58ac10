package io.nodeatlas.match.cel;

import java.util.Arrays;

/**
 * An IP address as the apiserver's CEL {@code net.IP} type holds it (k8s.io/apiserver {@code pkg/cel/library/ip.go}):
 * parsed the way Go's {@code netip.ParseAddr} parses (dotted decimal without leading zeros, RFC 4291 text for
 * IPv6), with zones and IPv4-mapped IPv6 addresses refused, and printed in canonical form (RFC 5952: lower
 * case, the longest run of two or more zero groups shortened to {@code ::}, the first such run on a tie).
 * Pure parsing: no name lookup.
 */
public final class NetAddress implements Comparable<NetAddress> {

  private final byte[] bytes;

  private NetAddress(byte[] bytes) {
    this.bytes = bytes;
  }

  /** 4 or 16 bytes. */
  static NetAddress of(byte[] bytes) {
    return new NetAddress(bytes.clone());
  }

  /** The apiserver's {@code ip()}: an address, or an error that names the text and what is wrong with it. */
  public static NetAddress parse(String raw) {
    byte[] b;
    try {
      b = parseAddr(raw);
    } catch (IllegalArgumentException e) {
      throw new IllegalArgumentException("IP Address \"" + raw + "\" parse error during conversion from string: "
          + "ParseAddr(\"" + raw + "\"): " + e.getMessage());
    }
    if (raw.indexOf('%') >= 0) {
      throw new IllegalArgumentException("IP address \"" + raw + "\" with zone value is not allowed");
    }
    if (isMapped(b)) {
      throw new IllegalArgumentException("IPv4-mapped IPv6 address \"" + raw + "\" is not allowed");
    }
    return new NetAddress(b);
  }

  public static boolean isValid(String raw) {
    try {
      parse(raw);
      return true;
    } catch (IllegalArgumentException e) {
      return false;
    }
  }

  /** Go's {@code netip.ParseAddr}; a zone is accepted here (and refused by the caller). */
  static byte[] parseAddr(String s) {
    if (s.isEmpty()) {
      throw new IllegalArgumentException("unable to parse IP");
    }
    for (int i = 0; i < s.length(); i++) {
      char c = s.charAt(i);
      if (c == '.') {
        return parseV4(s);
      } else if (c == ':') {
        return parseV6(s);
      } else if (c == '%') {
        throw new IllegalArgumentException("missing IPv6 address");
      }
    }
    throw new IllegalArgumentException("unable to parse IP");
  }

  private static byte[] parseV4(String s) {
    byte[] out = new byte[4];
    int fields = 0;
    int val = 0;
    int digits = 0;
    for (int i = 0; i < s.length(); i++) {
      char c = s.charAt(i);
      if (c >= '0' && c <= '9') {
        if (digits == 1 && val == 0) {
          throw new IllegalArgumentException("IPv4 field has octet with leading zero");
        }
        val = val * 10 + (c - '0');
        digits++;
        if (val > 255) {
          throw new IllegalArgumentException("IPv4 field has value >255");
        }
      } else if (c == '.') {
        if (i == 0 || i == s.length() - 1 || s.charAt(i - 1) == '.') {
          throw new IllegalArgumentException("IPv4 field must have at least one digit (at \"" + s.substring(i) + "\")");
        }
        if (fields == 3) {
          throw new IllegalArgumentException("IPv4 address too long");
        }
        out[fields++] = (byte) val;
        val = 0;
        digits = 0;
      } else {
        throw new IllegalArgumentException("unexpected character (at \"" + s.substring(i) + "\")");
      }
    }
    if (fields < 3) {
      throw new IllegalArgumentException("IPv4 address too short");
    }
    out[3] = (byte) val;
    return out;
  }

  private static byte[] parseV6(String in) {
    String s = in;
    int zone = s.indexOf('%');
    if (zone >= 0) {
      if (zone == s.length() - 1) {
        throw new IllegalArgumentException("zone must be a non-empty string");
      }
      s = s.substring(0, zone);
    }
    byte[] ip = new byte[16];
    int ellipsis = -1;
    int i = 0;
    if (s.length() >= 2 && s.charAt(0) == ':' && s.charAt(1) == ':') {
      ellipsis = 0;
      s = s.substring(2);
      if (s.isEmpty()) {
        return ip;
      }
    }
    while (i < 16) {
      int off = 0;
      int acc = 0;
      while (off < s.length()) {
        int d = hexValue(s.charAt(off));
        if (d < 0) {
          break;
        }
        off++;
        if (off > 4) {
          throw new IllegalArgumentException("each colon-separated field must have at most 4 hex digits (at \""
              + s + "\")");
        }
        acc = (acc << 4) + d;
      }
      if (off == 0) {
        throw new IllegalArgumentException("each colon-separated field must have at least one digit (at \"" + s + "\")");
      }
      if (off < s.length() && s.charAt(off) == '.') {
        if (ellipsis < 0 && i != 12) {
          throw new IllegalArgumentException("embedded IPv4 address must replace the final 2 fields of the address "
              + "(at \"" + s + "\")");
        }
        if (i + 4 > 16) {
          throw new IllegalArgumentException("too many hex fields to fit an embedded IPv4 at the end of the address "
              + "(at \"" + s + "\")");
        }
        byte[] v4;
        try {
          v4 = parseV4(s);
        } catch (IllegalArgumentException e) {
          throw new IllegalArgumentException(e.getMessage() + " (at \"" + s + "\")");
        }
        System.arraycopy(v4, 0, ip, i, 4);
        i += 4;
        s = "";
        break;
      }
      ip[i] = (byte) (acc >> 8);
      ip[i + 1] = (byte) acc;
      i += 2;
      s = s.substring(off);
      if (s.isEmpty()) {
        break;
      }
      if (s.charAt(0) != ':') {
        throw new IllegalArgumentException("unexpected character, want colon (at \"" + s + "\")");
      } else if (s.length() == 1) {
        throw new IllegalArgumentException("colon must be followed by more characters (at \"" + s + "\")");
      }
      s = s.substring(1);
      if (s.charAt(0) == ':') {
        if (ellipsis >= 0) {
          throw new IllegalArgumentException("multiple :: in address (at \":" + s + "\")");
        }
        ellipsis = i;
        s = s.substring(1);
        if (s.isEmpty()) {
          break;
        }
      }
    }
    if (!s.isEmpty()) {
      throw new IllegalArgumentException("trailing garbage after address (at \"" + s + "\")");
    }
    if (i < 16) {
      if (ellipsis < 0) {
        throw new IllegalArgumentException("address string too short");
      }
      int n = 16 - i;
      for (int j = i - 1; j >= ellipsis; j--) {
        ip[j + n] = ip[j];
      }
      Arrays.fill(ip, ellipsis, ellipsis + n, (byte) 0);
    } else if (ellipsis >= 0) {
      throw new IllegalArgumentException("the :: must expand to at least one field of zeros");
    }
    return ip;
  }

  private static int hexValue(char c) {
    if (c >= '0' && c <= '9') {
      return c - '0';
    } else if (c >= 'a' && c <= 'f') {
      return c - 'a' + 10;
    } else if (c >= 'A' && c <= 'F') {
      return c - 'A' + 10;
    }
    return -1;
  }

  private static boolean isMapped(byte[] b) {
    if (b.length != 16) {
      return false;
    }
    for (int i = 0; i < 10; i++) {
      if (b[i] != 0) {
        return false;
      }
    }
    return b[10] == (byte) 0xff && b[11] == (byte) 0xff;
  }

  byte[] bytes() {
    return bytes.clone();
  }

  int bitLength() {
    return bytes.length * 8;
  }

  public long family() {
    return bytes.length == 4 ? 4 : 6;
  }

  public boolean isUnspecified() {
    for (byte b : bytes) {
      if (b != 0) {
        return false;
      }
    }
    return true;
  }

  public boolean isLoopback() {
    if (bytes.length == 4) {
      return bytes[0] == 127;
    }
    for (int i = 0; i < 15; i++) {
      if (bytes[i] != 0) {
        return false;
      }
    }
    return bytes[15] == 1;
  }

  public boolean isMulticast() {
    return bytes.length == 4 ? (bytes[0] & 0xf0) == 0xe0 : (bytes[0] & 0xff) == 0xff;
  }

  /** 224.0.0.0/24 or ff02::/16 (Go's {@code IsLinkLocalMulticast}). */
  public boolean isLinkLocalMulticast() {
    if (bytes.length == 4) {
      return (bytes[0] & 0xff) == 224 && bytes[1] == 0 && bytes[2] == 0;
    }
    return (bytes[0] & 0xff) == 0xff && (bytes[1] & 0x0f) == 0x02;
  }

  /** 169.254.0.0/16 or fe80::/10. */
  public boolean isLinkLocalUnicast() {
    if (bytes.length == 4) {
      return (bytes[0] & 0xff) == 169 && (bytes[1] & 0xff) == 254;
    }
    return (bytes[0] & 0xff) == 0xfe && (bytes[1] & 0xc0) == 0x80;
  }

  /** Go's {@code IsGlobalUnicast}: not unspecified, loopback, multicast, link-local or the IPv4 broadcast address. */
  public boolean isGlobalUnicast() {
    if (bytes.length == 4 && bytes[0] == (byte) 0xff && bytes[1] == (byte) 0xff && bytes[2] == (byte) 0xff
        && bytes[3] == (byte) 0xff) {
      return false;
    }
    return !isUnspecified() && !isLoopback() && !isMulticast() && !isLinkLocalUnicast();
  }

  /** The first {@code bits} bits kept, the rest zero. */
  NetAddress masked(int bits) {
    byte[] out = bytes.clone();
    for (int i = 0; i < out.length; i++) {
      int keep = Math.max(0, Math.min(8, bits - i * 8));
      out[i] = (byte) (out[i] & (0xff << (8 - keep)));
    }
    return new NetAddress(out);
  }

  @Override
  public String toString() {
    if (bytes.length == 4) {
      return (bytes[0] & 0xff) + "." + (bytes[1] & 0xff) + "." + (bytes[2] & 0xff) + "." + (bytes[3] & 0xff);
    }
    int[] groups = new int[8];
    for (int i = 0; i < 8; i++) {
      groups[i] = ((bytes[2 * i] & 0xff) << 8) | (bytes[2 * i + 1] & 0xff);
    }
    int bestStart = -1;
    int bestLen = 0;
    for (int i = 0; i < 8; ) {
      if (groups[i] != 0) {
        i++;
        continue;
      }
      int j = i;
      while (j < 8 && groups[j] == 0) {
        j++;
      }
      if (j - i > bestLen && j - i >= 2) {
        bestStart = i;
        bestLen = j - i;
      }
      i = j;
    }
    StringBuilder sb = new StringBuilder();
    for (int i = 0; i < 8; i++) {
      if (i == bestStart) {
        sb.append("::");
        i += bestLen - 1;
        continue;
      }
      if (sb.length() > 0 && sb.charAt(sb.length() - 1) != ':') {
        sb.append(':');
      }
      sb.append(Integer.toHexString(groups[i]));
    }
    return sb.toString();
  }

  @Override
  public boolean equals(Object o) {
    return o instanceof NetAddress other && Arrays.equals(bytes, other.bytes);
  }

  @Override
  public int hashCode() {
    return Arrays.hashCode(bytes);
  }

  @Override
  public int compareTo(NetAddress o) {
    if (bytes.length != o.bytes.length) {
      return Integer.compare(bytes.length, o.bytes.length);
    }
    return Arrays.compareUnsigned(bytes, o.bytes);
  }
}
