package io.nodeatlas.discovery.net;

import io.nodeatlas.discovery.model.Names;
import io.nodeatlas.discovery.pci.PciAddress;
import java.nio.charset.StandardCharsets;
import java.util.zip.CRC32;

/**
 * Device names: {@code rdma-<ibdev>}, {@code nic-<bdf>}, {@code vf-<bdf>} as DNS labels. They depend
 * only on kernel names and PCI addresses, so they stay the same across runs for the same hardware. A
 * name that would not fit 63 characters keeps its start and gets a CRC-32 suffix of the full text.
 */
public final class DeviceNames {

  private static final int MAX = 63;

  private DeviceNames() {}

  public static String rdma(String ibdev) {
    return label("rdma", ibdev);
  }

  public static String nic(PciAddress address) {
    return label("nic", address.toString());
  }

  public static String vf(PciAddress address) {
    return label("vf", address.toString());
  }

  /** A virtual interface has no PCI address; its name is the interface name. */
  public static String virtualNic(String ifName) {
    return label("vnic", ifName);
  }

  static String label(String prefix, String text) {
    String fragment = Names.toLabelFragment(text);
    String name = prefix + "-" + fragment;
    if (!fragment.isEmpty() && name.length() <= MAX) {
      return name;
    }
    CRC32 crc = new CRC32();
    crc.update(text.getBytes(StandardCharsets.UTF_8));
    String hash = String.format("%08x", crc.getValue());
    String head = fragment.substring(0, Math.min(fragment.length(), MAX - prefix.length() - hash.length() - 2));
    while (head.endsWith("-")) {
      head = head.substring(0, head.length() - 1);
    }
    return head.isEmpty() ? prefix + "-" + hash : prefix + "-" + head + "-" + hash;
  }
}
