package io.nodeatlas.discovery.net.uplink;

import java.net.InetAddress;
import java.net.UnknownHostException;
import java.util.ArrayList;
import java.util.List;
import java.util.regex.Pattern;

/**
 * IP address literals, never host names: {@link InetAddress#getByName} is only called on text that
 * cannot be a name, so no lookup ever leaves the machine.
 */
public final class IpLiterals {

  private static final Pattern V4 = Pattern.compile("^(25[0-5]|2[0-4]\\d|1\\d\\d|[1-9]?\\d)(\\.(25[0-5]|2[0-4]\\d|1\\d\\d|[1-9]?\\d)){3}$");
  private static final Pattern V6 = Pattern.compile("^[0-9A-Fa-f:.]{2,45}$");

  /** At most this many addresses in one setting (a dual-stack node has two). */
  public static final int MAX_ADDRESSES = 16;

  private IpLiterals() {}

  /** One IPv4 or IPv6 literal; {@link IllegalArgumentException} for anything else. */
  public static InetAddress parse(String text) {
    String t = text.strip();
    boolean v4 = V4.matcher(t).matches();
    if (!v4 && !(t.contains(":") && V6.matcher(t).matches())) {
      throw new IllegalArgumentException("\"" + t + "\" is not an IPv4 or IPv6 address");
    }
    try {
      return InetAddress.getByName(t);
    } catch (UnknownHostException e) {
      throw new IllegalArgumentException("\"" + t + "\" is not an IPv4 or IPv6 address", e);
    }
  }

  /** A comma-separated list of literals (empty text: none). */
  public static List<InetAddress> parseList(String text) {
    List<InetAddress> out = new ArrayList<>();
    if (text == null || text.isBlank()) {
      return out;
    }
    String[] parts = text.split(",", -1);
    if (parts.length > MAX_ADDRESSES) {
      throw new IllegalArgumentException("more than " + MAX_ADDRESSES + " addresses");
    }
    for (String p : parts) {
      out.add(parse(p));
    }
    return out;
  }

  /** The setting's check: the list as given when every entry is an address. */
  public static String check(String text) {
    parseList(text);
    return text.strip();
  }
}
