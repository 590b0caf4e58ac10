package io.nodeatlas.match.cel;

/**
 * A network prefix as the apiserver's CEL {@code net.CIDR} type holds it (k8s.io/apiserver
 * {@code pkg/cel/library/cidr.go}): an address and a prefix length parsed as Go's {@code netip.ParsePrefix} does
 * (decimal bits without a sign or leading zero, no zone), IPv4-mapped IPv6 refused. The address keeps the bits
 * beyond the prefix ({@code cidr("10.0.0.1/8").ip()} is {@code 10.0.0.1}); {@link #masked()} clears them.
 */
public record NetPrefix(NetAddress address, int bits) {

  public static NetPrefix parse(String raw) {
    try {
      return parsePrefix(raw);
    } catch (IllegalArgumentException e) {
      throw new IllegalArgumentException("network address parse error during conversion from string: "
          + "network address parse error during conversion from string: " + e.getMessage());
    }
  }

  public static boolean isValid(String raw) {
    try {
      parse(raw);
      return true;
    } catch (IllegalArgumentException e) {
      return false;
    }
  }

  private static NetPrefix parsePrefix(String raw) {
    String at = "netip.ParsePrefix(\"" + raw + "\"): ";
    int slash = raw.lastIndexOf('/');
    if (slash < 0) {
      throw new IllegalArgumentException(at + "no '/'");
    }
    String addrText = raw.substring(0, slash);
    byte[] b;
    try {
      b = NetAddress.parseAddr(addrText);
    } catch (IllegalArgumentException e) {
      throw new IllegalArgumentException(at + "ParseAddr(\"" + addrText + "\"): " + e.getMessage());
    }
    if (addrText.indexOf('%') >= 0) {
      throw new IllegalArgumentException(at + "IPv6 zones cannot be present in a prefix");
    }
    String bitsText = raw.substring(slash + 1);
    if (bitsText.isEmpty() || bitsText.length() > 3 || (bitsText.length() > 1 && bitsText.charAt(0) == '0')
        || !bitsText.chars().allMatch(c -> c >= '0' && c <= '9')) {
      throw new IllegalArgumentException(at + "bad bits after slash: \"" + bitsText + "\"");
    }
    int bits = Integer.parseInt(bitsText);
    NetAddress address = NetAddress.of(b);
    if (bits > address.bitLength()) {
      throw new IllegalArgumentException(at + "prefix length out of range");
    }
    if (b.length == 16 && b[10] == (byte) 0xff && b[11] == (byte) 0xff && allZero(b, 10)) {
      throw new IllegalArgumentException("IPv4-mapped IPv6 address \"" + raw + "\" is not allowed");
    }
    return new NetPrefix(address, bits);
  }

  private static boolean allZero(byte[] b, int n) {
    for (int i = 0; i < n; i++) {
      if (b[i] != 0) {
        return false;
      }
    }
    return true;
  }

  public NetPrefix masked() {
    return new NetPrefix(address.masked(bits), bits);
  }

  /** Go's {@code Prefix.Contains}: false across address families. */
  public boolean contains(NetAddress ip) {
    return ip.family() == address.family() && ip.masked(bits).equals(address.masked(bits));
  }

  /** The apiserver's {@code containsCIDR}: the other prefix lies inside this one. */
  public boolean containsPrefix(NetPrefix other) {
    return other.address.family() == address.family() && bits <= other.bits
        && other.address.masked(bits).equals(address.masked(bits));
  }

  @Override
  public String toString() {
    return address + "/" + bits;
  }
}
