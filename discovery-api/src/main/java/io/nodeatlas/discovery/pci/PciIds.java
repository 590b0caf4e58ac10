package io.nodeatlas.discovery.pci;

import java.util.Locale;
import java.util.Optional;

/**
 * Pure parsers of the PCI attribute files ({@code Documentation/ABI/testing/sysfs-bus-pci}).
 * Every method throws {@link IllegalArgumentException} naming what was expected.
 */
public final class PciIds {


  private PciIds() {}


  /**
   * {@code vendor}, {@code device}, {@code subsystem_*} print {@code 0x%04x}, {@code class}
   * {@code 0x%06x}, {@code sriov_vf_device} {@code %x}: normalised to lower-case hex without
   * {@code 0x}, zero-padded to {@code digits}.
   */
  public static String hexId(String text, int digits) {
    String hex = text.startsWith("0x") || text.startsWith("0X") ? text.substring(2) : text;
    if (hex.isEmpty() || hex.length() > digits) {
      throw new IllegalArgumentException("not a " + digits + "-digit hex id: " + io.nodeatlas.discovery.host.Excerpt.of(text));
    }
    for (int i = 0; i < hex.length(); i++) {
      char c = hex.charAt(i);
      if (!((c >= '0' && c <= '9') || (c >= 'a' && c <= 'f') || (c >= 'A' && c <= 'F'))) {
        throw new IllegalArgumentException("not a " + digits + "-digit hex id: " + io.nodeatlas.discovery.host.Excerpt.of(text));
      }
    }
    return "0".repeat(digits - hex.length()) + hex.toLowerCase(Locale.ROOT);
  }

  /**
   * {@code current_link_speed}: {@code "%s GT/s PCIe"} on current kernels ({@code 32.0 GT/s PCIe}),
   * {@code "%s GT/s"} on old ones ({@code 8 GT/s}), or {@code Unknown}. Normalised to one decimal
   * ({@code 8.0 GT/s}) so old and new kernels publish the same value; empty for {@code Unknown}.
   */
  public static Optional<String> linkSpeed(String text) {
    if (text.equals("Unknown") || text.equals("Unknown speed")) {
      return Optional.empty();
    }
    String t = text.endsWith(" PCIe") ? text.substring(0, text.length() - 5) : text;
    if (!t.endsWith(" GT/s")) {
      throw new IllegalArgumentException("not \"<n> GT/s[ PCIe]\": " + io.nodeatlas.discovery.host.Excerpt.of(text));
    }
    String number = t.substring(0, t.length() - 5);
    int dot = number.indexOf('.');
    String whole = dot < 0 ? number : number.substring(0, dot);
    String fraction = dot < 0 ? "0" : number.substring(dot + 1);
    if (!digits(whole, 1, 3) || !digits(fraction, 1, 2)) {
      throw new IllegalArgumentException("not \"<n> GT/s[ PCIe]\": " + io.nodeatlas.discovery.host.Excerpt.of(text));
    }
    return Optional.of(Integer.parseInt(whole) + "." + fraction + " GT/s");
  }

  /** {@code current_link_width}: a lane count 1..32 (x1 to x32); 0 means no link, which is absent. */
  public static Optional<Integer> linkWidth(String text) {
    if (!digits(text, 1, 2)) {
      throw new IllegalArgumentException("not a lane count: " + io.nodeatlas.discovery.host.Excerpt.of(text));
    }
    int w = Integer.parseInt(text);
    if (w > 32) {
      throw new IllegalArgumentException("lane count " + w + " is above 32");
    }
    return w == 0 ? Optional.empty() : Optional.of(w);
  }

  /**
   * {@code numa_node}: the node, or {@code -1} when the platform does not say (absent). The
   * Kubernetes {@code deviceattribute} helper caps NUMA ids at 1023; larger values are not real nodes.
   */
  public static Optional<Integer> numaNode(String text) {
    if (text.equals("-1")) {
      return Optional.empty();
    }
    if (!digits(text, 1, 4)) {
      throw new IllegalArgumentException("not a NUMA node id: " + io.nodeatlas.discovery.host.Excerpt.of(text));
    }
    int n = Integer.parseInt(text);
    if (n > MAX_NUMA_NODE) {
      throw new IllegalArgumentException("NUMA node " + n + " is above " + MAX_NUMA_NODE);
    }
    return Optional.of(n);
  }

  /** Highest NUMA node id published ({@code k8s.io/dynamic-resource-allocation/deviceattribute}). */
  public static final int MAX_NUMA_NODE = 1023;

  private static boolean digits(String s, int min, int max) {
    if (s.length() < min || s.length() > max) {
      return false;
    }
    for (int i = 0; i < s.length(); i++) {
      if (s.charAt(i) < '0' || s.charAt(i) > '9') {
        return false;
      }
    }
    return true;
  }
}
