package io.nodeatlas.discovery.accel.parse;

import java.util.Map;

/**
 * The short, lower-case vendor name published as {@code nodeatlas.io/vendor}, from the PCI vendor id
 * (the PCI-SIG assigned ids, as in {@code include/linux/pci_ids.h}). A vendor we have no short name
 * for is published as its id ({@code 1ed5}): stable, distinct per vendor, lower case.
 */
public final class Vendors {

  private static final Map<String, String> SHORT_NAMES = Map.ofEntries(
      Map.entry("1002", "amd"), // PCI_VENDOR_ID_ATI: Radeon and Instinct GPUs
      Map.entry("1022", "amd"), // PCI_VENDOR_ID_AMD
      Map.entry("8086", "intel"),
      Map.entry("10de", "nvidia"),
      Map.entry("1a03", "aspeed"), // BMC graphics (ast)
      Map.entry("102b", "matrox"), // server graphics (mgag200)
      Map.entry("1013", "cirrus"),
      Map.entry("15ad", "vmware"),
      Map.entry("1af4", "redhat"), // virtio-gpu
      Map.entry("1b36", "redhat"),
      Map.entry("1234", "qemu"), // bochs display
      Map.entry("80ee", "virtualbox"),
      Map.entry("1414", "microsoft"),
      Map.entry("5143", "qualcomm"),
      Map.entry("19e5", "huawei"),
      Map.entry("1d17", "zhaoxin"),
      Map.entry("5333", "s3"));

  private Vendors() {}

  /** The short name of a 4-digit lower-case PCI vendor id (as {@code PciIds.hexId} gives it). */
  public static String shortName(String vendorId) {
    return SHORT_NAMES.getOrDefault(vendorId, vendorId);
  }
}
