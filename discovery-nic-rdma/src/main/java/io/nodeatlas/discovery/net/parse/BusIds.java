package io.nodeatlas.discovery.net.parse;

import java.nio.file.Path;
import java.util.Optional;
import java.util.regex.Pattern;

/**
 * PCI addresses and host bridges in sysfs paths. The BDF regex is anchored so that port-service
 * children such as {@code 0000:17:00.0:pcie001} never match (§2.2, §7.7); domains may be 4 or, on
 * some platforms, 8 hex digits.
 */
public final class BusIds {

  private static final Pattern BDF = Pattern.compile("^[0-9a-f]{4,8}:[0-9a-f]{2}:[0-1][0-9a-f]\\.[0-7]$");
  private static final Pattern HOST_BRIDGE = Pattern.compile("^pci[0-9a-f]{4,8}:[0-9a-f]{2}$");

  private BusIds() {}

  public static boolean isBdf(String name) {
    return BDF.matcher(name).matches();
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

  /**
   * The PCIe root of a device path relative to the sysfs root: the first component under
   * {@code devices/}, e.g. {@code pci0000:15} for {@code devices/pci0000:15/0000:15:01.0/...}
   * (k8s deviceattribute {@code pcieRoot}; §1.9).
   */
  public static Optional<String> pcieRoot(Path pathUnderSysfs) {
    if (pathUnderSysfs.getNameCount() < 3 || !pathUnderSysfs.getName(0).toString().equals("devices")) {
      return Optional.empty();
    }
    String root = pathUnderSysfs.getName(1).toString();
    return HOST_BRIDGE.matcher(root).matches() ? Optional.of(root) : Optional.empty();
  }
}
