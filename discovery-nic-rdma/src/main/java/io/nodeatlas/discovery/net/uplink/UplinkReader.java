package io.nodeatlas.discovery.net.uplink;

import io.nodeatlas.discovery.host.FactReader;
import io.nodeatlas.discovery.host.HostFileException;
import io.nodeatlas.discovery.host.HostFs;
import io.nodeatlas.discovery.net.parse.InterfaceNames;
import java.math.BigInteger;
import java.net.Inet4Address;
import java.net.Inet6Address;
import java.net.InetAddress;
import java.nio.ByteBuffer;
import java.nio.ByteOrder;
import java.nio.file.Path;
import java.util.ArrayDeque;
import java.util.Deque;
import java.util.HexFormat;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Optional;

/**
 * Finds the interfaces that carry the host's own traffic, from the host's procfs and sysfs:
 *
 * <ul>
 *   <li>(all from the host's network namespace: {@code <procfs>/1/net}, else {@code <procfs>/net})</li>
 *   <li>a default route: {@code /proc/net/route} (IPv4, {@code Destination} and {@code Mask} 0, flag
 *       {@code RTF_UP}) and {@code /proc/net/ipv6_route} ({@code ::/0}, {@code RTF_UP} and not
 *       {@code RTF_REJECT}: the kernel keeps an unreachable {@code ::/0} on {@code lo}), main table only,
 *       as procfs shows it (the {@code route}/{@code ipv6_route} formats of {@code net/ipv4/fib_trie.c}
 *       and {@code net/ipv6/route.c});</li>
 *   <li>the node's own addresses (the Node's InternalIP, {@code --node-ip}): an IPv6 address through
 *       {@code /proc/net/if_inet6} (the interface holding it), an IPv4 address through the longest
 *       connected (gateway-less) route of {@code /proc/net/route} that contains it;</li>
 *   <li>below each of those, every interface reached through {@code lower_*} links of
 *       {@code /sys/class/net/<if>} ({@code Documentation/ABI/testing/sysfs-class-net}, the kernel's
 *       adjacency lists): a route on {@code br0} over {@code bond0} over {@code eth0} and {@code eth1}
 *       makes all four uplinks, so the physical NICs (or VFs, or a PF) under a bridge, bond or VLAN are
 *       found. An interface above an uplink ({@code upper_*}) is not one by that alone.</li>
 * </ul>
 *
 * A missing routes file (no host procfs given) means no routes; a routes file that cannot be read
 * means {@link Uplinks#unknown()}: every interface is then treated as an uplink, with one warning.
 */
public final class UplinkReader {

  /** lower_* levels followed (bridge over bond over VLAN over NIC is 3). */
  static final int MAX_DEPTH = 8;
  /** At most this many interfaces are visited below the route-carrying ones. */
  static final int MAX_VISITED = 4096;

  private static final int RTF_UP = 0x1;
  private static final int RTF_GATEWAY = 0x2;
  private static final int RTF_REJECT = 0x200;

  private final FactReader facts;
  private final HostFs fs;

  public UplinkReader(FactReader facts) {
    this.facts = facts;
    this.fs = facts.fs();
  }

  /** The uplinks of the host, with the node's own addresses ({@code nodeIps}, possibly none). */
  public Uplinks read(List<InetAddress> nodeIps) {
    Map<String, String> found = new LinkedHashMap<>();
    Path net = netDir();
    Path route = net.resolve("route");
    Path route6 = net.resolve("ipv6_route");
    Optional<String> v4;
    Optional<String> v6;
    try {
      v4 = fs.readString(route);
      v6 = fs.readString(route6);
    } catch (HostFileException e) {
      String reason = e.getMessage();
      facts.warn("the host's routes cannot be read (" + reason + "); every network interface is treated as an "
          + "uplink: published with nodeatlas.io/uplink=true and without netDevices edits");
      return new Uplinks(Map.of(), Optional.of(reason));
    }
    List<V4Route> v4Routes = v4.map(text -> facts.lines(route, UplinkReader::v4Route)).orElse(List.of());
    for (V4Route r : v4Routes) {
      if (r.mask() == 0 && r.destination() == 0 && (r.flags() & RTF_UP) != 0) {
        found.putIfAbsent(r.iface(), "default route (IPv4)");
      }
    }
    if (v6.isPresent()) {
      for (V6Route r : facts.lines(route6, UplinkReader::v6Route)) {
        if (r.prefixLength() == 0 && r.destination().signum() == 0 && (r.flags() & RTF_UP) != 0
            && (r.flags() & RTF_REJECT) == 0 && !r.iface().equals("lo")) {
          found.putIfAbsent(r.iface(), "default route (IPv6)");
        }
      }
    }
    for (InetAddress ip : nodeIps) {
      Optional<String> iface = ip instanceof Inet4Address ? connectedRoute(v4Routes, ip) : holderOf(net, (Inet6Address) ip);
      iface.ifPresentOrElse(i -> found.putIfAbsent(i, "node IP " + ip.getHostAddress()),
          () -> facts.warn("node IP " + ip.getHostAddress() + ": no interface of the host carries it"));
    }
    followLowerLinks(found);
    return new Uplinks(found, Optional.empty());
  }

  private void followLowerLinks(Map<String, String> found) {
    Deque<String[]> queue = new ArrayDeque<>();
    found.keySet().forEach(name -> queue.add(new String[] {name, "0"}));
    int visited = 0;
    while (!queue.isEmpty() && visited < MAX_VISITED) {
      String[] next = queue.poll();
      visited++;
      int depth = Integer.parseInt(next[1]);
      if (depth >= MAX_DEPTH || !InterfaceNames.isValid(next[0])) {
        continue;
      }
      for (Path entry : facts.list(fs.sys("class/net/" + next[0]))) {
        String name = entry.getFileName().toString();
        if (!name.startsWith("lower_")) {
          continue;
        }
        String lower = name.substring("lower_".length());
        if (InterfaceNames.isValid(lower) && found.putIfAbsent(lower, "below " + next[0]) == null) {
          queue.add(new String[] {lower, Integer.toString(depth + 1)});
        }
      }
    }
  }

  private Optional<String> connectedRoute(List<V4Route> routes, InetAddress ip) {
    int address = ByteBuffer.wrap(ip.getAddress()).getInt();
    V4Route best = null;
    for (V4Route r : routes) {
      if ((r.flags() & RTF_UP) == 0 || (r.flags() & RTF_GATEWAY) != 0 || r.mask() == 0) {
        continue;
      }
      if ((address & r.mask()) == (r.destination() & r.mask())
          && (best == null || Integer.compareUnsigned(r.mask(), best.mask()) > 0)) {
        best = r;
      }
    }
    return Optional.ofNullable(best).map(V4Route::iface);
  }

  /**
   * {@code /proc/net} shows the network namespace of the process that reads it ({@code proc(5)}: a link to
   * {@code self/net}); an agent in a pod with the host's {@code /proc} mounted would see its own. The host
   * init's ({@code 1/net}) is the host's namespace, so it is read when present.
   */
  private Path netDir() {
    Path init = fs.proc("1/net");
    return fs.isDirectory(init) ? init : fs.proc("net");
  }

  private Optional<String> holderOf(Path net, Inet6Address ip) {
    String wanted = HexFormat.of().formatHex(ip.getAddress());
    for (String[] f : facts.lines(net.resolve("if_inet6"), UplinkReader::inet6Line)) {
      if (f[0].equalsIgnoreCase(wanted)) {
        return Optional.of(f[1]);
      }
    }
    return Optional.empty();
  }

  /** A main-table IPv4 route: destination and mask as network-order ints. */
  record V4Route(String iface, int destination, int mask, int flags) {}

  /** An IPv6 route. */
  record V6Route(String iface, BigInteger destination, int prefixLength, int flags) {}

  /**
   * One line of {@code /proc/net/route}: {@code Iface Destination Gateway Flags RefCnt Use Metric Mask MTU
   * Window IRTT}; addresses are the in-memory (network-order) 32 bits printed as a native-endian
   * {@code %08X}, so they are read back in the host's byte order. The header line is skipped.
   */
  static V4Route v4Route(String line) {
    String[] f = line.trim().split("\\s+");
    if (f.length > 0 && f[0].equals("Iface")) {
      return null;
    }
    if (f.length < 8) {
      throw new IllegalArgumentException("expected at least 8 fields, found " + f.length);
    }
    return new V4Route(iface(f[0]), nativeHex(f[1]), nativeHex(f[7]), (int) hex(f[3], 8));
  }

  /** One line of {@code /proc/net/ipv6_route}: dest, dest prefix, src, src prefix, next hop, metric, refcnt, use, flags, iface. */
  static V6Route v6Route(String line) {
    String[] f = line.trim().split("\\s+");
    if (f.length != 10 || f[0].length() != 32) {
      throw new IllegalArgumentException("expected 10 fields starting with a 32-digit address");
    }
    return new V6Route(iface(f[9]), new BigInteger(hexDigits(f[0]), 16), (int) hex(f[1], 2), (int) hex(f[8], 8));
  }

  /** One line of {@code /proc/net/if_inet6}: address, ifindex, prefix, scope, flags, name. */
  static String[] inet6Line(String line) {
    String[] f = line.trim().split("\\s+");
    if (f.length != 6 || f[0].length() != 32) {
      throw new IllegalArgumentException("expected 6 fields starting with a 32-digit address");
    }
    return new String[] {hexDigits(f[0]), iface(f[5])};
  }

  private static String iface(String name) {
    if (!InterfaceNames.isValid(name)) {
      throw new IllegalArgumentException("not an interface name");
    }
    return name;
  }

  private static String hexDigits(String s) {
    for (int i = 0; i < s.length(); i++) {
      if (Character.digit(s.charAt(i), 16) < 0) {
        throw new IllegalArgumentException("not hexadecimal");
      }
    }
    return s;
  }

  private static long hex(String s, int maxDigits) {
    if (s.isEmpty() || s.length() > maxDigits) {
      throw new IllegalArgumentException("not a hexadecimal number of at most " + maxDigits + " digits");
    }
    return Long.parseLong(hexDigits(s), 16);
  }

  private static int nativeHex(String s) {
    if (s.length() != 8) {
      throw new IllegalArgumentException("expected 8 hexadecimal digits");
    }
    int printed = (int) hex(s, 8);
    // The kernel prints the network-order word as a native integer; undo that to get network order.
    return ByteOrder.nativeOrder() == ByteOrder.LITTLE_ENDIAN ? Integer.reverseBytes(printed) : printed;
  }
}
