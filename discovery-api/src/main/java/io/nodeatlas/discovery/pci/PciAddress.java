package io.nodeatlas.discovery.pci;

import java.util.Optional;

/**
 * A PCI function's address, {@code domain:bus:device.function}. One parser for every form we meet:
 * sysfs names ({@code 0000:17:00.0}, VMD domains of five to eight digits such as {@code 10000:01:00.0}),
 * NVML's {@code 00000000:3B:00.0} (eight upper-case domain digits). The canonical text is lower case
 * with at least four domain digits, as sysfs prints it ({@code drivers/pci/probe.c}: {@code "%04x:%02x:%02x.%d"}).
 *
 * <p>The standard attribute {@code resource.kubernetes.io/pciBusID} (KEP-5491, DRA device attributes)
 * takes exactly the form {@code DDDD:BB:DD.F}; an address whose domain needs more than four digits
 * has no standard form and publishes no {@code pciBusID} ({@link #standardBusId()} is empty), the
 * same rule for every source.
 */
public record PciAddress(long domain, int bus, int device, int function) implements Comparable<PciAddress> {

  public PciAddress {
    if (domain < 0 || domain > 0xffff_ffffL) {
      throw new IllegalArgumentException("PCI domain out of range: " + domain);
    }
    if (bus < 0 || bus > 0xff) {
      throw new IllegalArgumentException("PCI bus out of range: " + bus);
    }
    if (device < 0 || device > 0x1f) {
      throw new IllegalArgumentException("PCI device out of range: " + device);
    }
    if (function < 0 || function > 7) {
      throw new IllegalArgumentException("PCI function out of range: " + function);
    }
  }

  /**
   * Parses {@code [domain:]bus:device.function} in any case, with a domain of one to eight hex digits
   * (absent means 0). Throws {@link IllegalArgumentException} naming the expected form.
   */
  public static PciAddress parse(String text) {
    return tryParse(text).orElseThrow(() -> new IllegalArgumentException(
        "not a PCI address (domain:bus:device.function, e.g. 0000:3b:00.0): "
            + io.nodeatlas.discovery.host.Excerpt.of(text == null ? "" : text)));
  }

  /** Like {@link #parse}, empty instead of throwing. Hand-written: it runs for every path element of every device link. */
  public static Optional<PciAddress> tryParse(String text) {
    if (text == null) {
      return Optional.empty();
    }
    String t = text.trim();
    int dot = t.lastIndexOf('.');
    int lastColon = t.lastIndexOf(':');
    if (dot < 0 || lastColon < 0 || dot < lastColon || dot != t.length() - 2) {
      return Optional.empty();
    }
    int firstColon = t.indexOf(':');
    long domain = 0;
    String busText;
    if (firstColon == lastColon) {
      busText = t.substring(0, lastColon);
    } else {
      if (t.indexOf(':', firstColon + 1) != lastColon) {
        return Optional.empty();
      }
      long d = hex(t, 0, firstColon, 8);
      if (d < 0) {
        return Optional.empty();
      }
      domain = d;
      busText = t.substring(firstColon + 1, lastColon);
    }
    long bus = hex(busText, 0, busText.length(), 2);
    long device = hex(t, lastColon + 1, dot, 2);
    int function = t.charAt(dot + 1) - '0';
    if (bus < 0 || device < 0 || device > 0x1f || function < 0 || function > 7) {
      return Optional.empty();
    }
    return Optional.of(new PciAddress(domain, (int) bus, (int) device, function));
  }

  /**
   * Whether {@code name} is exactly a sysfs PCI function name ({@code 0000:17:00.0}, lower case,
   * four to eight domain digits), so port-service children such as {@code 0000:17:00.0:pcie001}
   * and other directory names never match.
   */
  public static boolean isSysfsName(String name) {
    int domainDigits = name.length() - 8;
    if (domainDigits < 4 || domainDigits > 8) {
      return false;
    }
    for (int i = 0; i < domainDigits; i++) {
      if (!isLowerHex(name.charAt(i))) {
        return false;
      }
    }
    char slotHigh = name.charAt(domainDigits + 4);
    char function = name.charAt(domainDigits + 7);
    return name.charAt(domainDigits) == ':'
        && isLowerHex(name.charAt(domainDigits + 1)) && isLowerHex(name.charAt(domainDigits + 2))
        && name.charAt(domainDigits + 3) == ':'
        && (slotHigh == '0' || slotHigh == '1') && isLowerHex(name.charAt(domainDigits + 5))
        && name.charAt(domainDigits + 6) == '.'
        && function >= '0' && function <= '7';
  }

  /** The nearest PCI function at or above {@code path} (a netdev's parent may be a virtio device or an auxiliary SF under the function). */
  public static Optional<PciAddress> nearest(java.nio.file.Path path) {
    for (int i = path.getNameCount() - 1; i >= 0; i--) {
      String segment = path.getName(i).toString();
      if (isSysfsName(segment)) {
        return tryParse(segment);
      }
    }
    return Optional.empty();
  }

  /** The sysfs form: lower case, at least four domain digits. */
  @Override
  public String toString() {
    // By hand rather than String.format: this runs for every PCI function of every discovery.
    String d = Long.toHexString(domain);
    StringBuilder out = new StringBuilder(16);
    for (int i = d.length(); i < 4; i++) {
      out.append('0');
    }
    out.append(d).append(':');
    hex2(out, bus).append(':');
    hex2(out, device).append('.').append(function);
    return out.toString();
  }

  private static StringBuilder hex2(StringBuilder out, int v) {
    return out.append(Character.forDigit(v >> 4, 16)).append(Character.forDigit(v & 0xf, 16));
  }

  /** The {@code resource.kubernetes.io/pciBusID} value; empty when the domain needs more than four digits. */
  public Optional<String> standardBusId() {
    return domain <= 0xffff ? Optional.of(toString()) : Optional.empty();
  }

  /** The same slot's function 0 (NVML does not report the function of a GPU, which is function 0). */
  public PciAddress function0() {
    return new PciAddress(domain, bus, device, 0);
  }

  @Override
  public int compareTo(PciAddress o) {
    int c = Long.compare(domain, o.domain);
    if (c == 0) {
      c = Integer.compare(bus, o.bus);
    }
    if (c == 0) {
      c = Integer.compare(device, o.device);
    }
    return c != 0 ? c : Integer.compare(function, o.function);
  }

  // Written out with the generated pair's meaning: addresses key the maps of every PCI walk, and a
  // record's generated equals and hashCode are bound through an invokedynamic bootstrap that the JDK's
  // AOT cache does not link ahead of time (see Topology.CacheInfo).
  @Override
  public boolean equals(Object o) {
    return o instanceof PciAddress other && domain == other.domain && bus == other.bus && device == other.device
        && function == other.function;
  }

  @Override
  public int hashCode() {
    return ((Long.hashCode(domain) * 31 + bus) * 31 + device) * 31 + function;
  }

  private static boolean isLowerHex(char c) {
    return (c >= '0' && c <= '9') || (c >= 'a' && c <= 'f');
  }

  /** The hex number in {@code s[from, to)} of 1..maxDigits digits, or -1. */
  private static long hex(String s, int from, int to, int maxDigits) {
    int n = to - from;
    if (n < 1 || n > maxDigits) {
      return -1;
    }
    long v = 0;
    for (int i = from; i < to; i++) {
      char c = s.charAt(i);
      int d = c >= '0' && c <= '9' ? c - '0' : c >= 'a' && c <= 'f' ? c - 'a' + 10 : c >= 'A' && c <= 'F' ? c - 'A' + 10 : -1;
      if (d < 0) {
        return -1;
      }
      v = v * 16 + d;
    }
    return v;
  }
}
