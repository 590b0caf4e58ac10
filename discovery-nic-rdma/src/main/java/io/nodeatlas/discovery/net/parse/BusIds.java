package io.nodeatlas.discovery.net.parse;

import java.nio.file.Path;
import java.util.Optional;

/**
 * PCI addresses in sysfs paths (the PCIe root rule is {@link io.nodeatlas.discovery.pci.PcieRoots}). A BDF must be the whole name, so that port-service
 * children such as {@code 0000:17:00.0:pcie001} never match (§2.2, §7.7); domains may be 4 or, on
 * some platforms, 8 hex digits.
 */
public final class BusIds {

  private BusIds() {}

  /**
   * {@code [0-9a-f]{4,8}:[0-9a-f]{2}:[0-1][0-9a-f].[0-7]}, checked by hand: it runs for every path
   * segment of every device link on nodes with thousands of VFs.
   */
  public static boolean isBdf(String name) {
    int domain = name.length() - 8;
    if (domain < 4 || domain > 8) {
      return false;
    }
    for (int i = 0; i < domain; i++) {
      if (!isLowerHex(name.charAt(i))) {
        return false;
      }
    }
    char slotHigh = name.charAt(domain + 4);
    char function = name.charAt(domain + 7);
    return name.charAt(domain) == ':'
        && isLowerHex(name.charAt(domain + 1)) && isLowerHex(name.charAt(domain + 2))
        && name.charAt(domain + 3) == ':'
        && (slotHigh == '0' || slotHigh == '1') && isLowerHex(name.charAt(domain + 5))
        && name.charAt(domain + 6) == '.'
        && function >= '0' && function <= '7';
  }

  private static boolean isLowerHex(char c) {
    return (c >= '0' && c <= '9') || (c >= 'a' && c <= 'f');
  }

  /**
   * The nearest PCI function at or above {@code devicePath}: a netdev's parent may be a virtio device
   * or an auxiliary SF under the function (dranet {@code pciAddressFromPath}).
   */
  public static Optional<String> nearestBdf(Path devicePath) {
    for (int i = devicePath.getNameCount() - 1; i >= 0; i--) {
      String segment = devicePath.getName(i).toString();
      if (isBdf(segment)) {
        return Optional.of(segment);
      }
    }
    return Optional.empty();
  }
}
