package io.nodeatlas.discovery.cpu.parse;

import io.nodeatlas.discovery.host.HostFs;
import java.util.List;
import java.util.SortedMap;
import java.util.TreeMap;

/**
 * Parses a NUMA node's {@code distance} row ({@code 10 21}): one SLIT distance per online node, in the
 * order of {@code /sys/devices/system/node/online} (drivers/base/node.c walks {@code for_each_online_node}).
 * Node ids can be sparse ({@code 0,8,250-255} on POWER9), so column {@code i} belongs to the i-th
 * online node, never to node id {@code i} (Documentation/ABI/stable/sysfs-devices-node, {@code distance}).
 */
public final class DistanceParser {

  /** The ACPI SLIT stores a byte; the kernel's node_distance is an int. Anything above is garbage. */
  private static final int MAX_DISTANCE = 0xFFFF;

  private DistanceParser() {}

  public static SortedMap<Integer, Integer> parse(String text, List<Integer> onlineNodeOrder) {
    if (text == null) {
      throw new IllegalArgumentException("distance row is null");
    }
    String s = HostFs.trimValue(text);
    String[] columns = s.isEmpty() ? new String[0] : s.split("[ \t]+");
    if (columns.length != onlineNodeOrder.size()) {
      throw new IllegalArgumentException("distance row has " + columns.length + " values but "
          + onlineNodeOrder.size() + " nodes are online: \"" + shorten(s) + "\"");
    }
    SortedMap<Integer, Integer> out = new TreeMap<>();
    for (int i = 0; i < columns.length; i++) {
      String c = columns[i];
      if (c.isEmpty() || c.length() > 5) {
        throw new IllegalArgumentException("not a distance: \"" + shorten(c) + "\"");
      }
      int value = 0;
      for (int k = 0; k < c.length(); k++) {
        char ch = c.charAt(k);
        if (ch < '0' || ch > '9') {
          throw new IllegalArgumentException("not a distance: \"" + shorten(c) + "\"");
        }
        value = value * 10 + (ch - '0');
      }
      if (value > MAX_DISTANCE) {
        throw new IllegalArgumentException("distance out of range: " + value);
      }
      if (out.put(onlineNodeOrder.get(i), value) != null) {
        throw new IllegalArgumentException("node " + onlineNodeOrder.get(i) + " appears twice in the node order");
      }
    }
    return out;
  }

  private static String shorten(String s) {
    return s.length() > 80 ? s.substring(0, 80) + "..." : s;
  }
}
