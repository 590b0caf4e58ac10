package io.nodeatlas.discovery.gpu;

import io.nodeatlas.discovery.gpu.nvml.NvmlSession.PciInfo;
import io.nodeatlas.discovery.pci.PciAddress;
import io.nodeatlas.discovery.pci.PciFunctionFacts;
import java.util.Optional;

/**
 * What NVML's {@code nvmlPciInfo_t} ({@code nvmlDeviceGetPciInfo_v3}, NVML API Reference, "Device
 * Queries") says about a GPU's PCI function, in the form every PCI source publishes.
 */
final class NvmlPci {

  private NvmlPci() {}

  /**
   * The GPU's address: {@code busId} as NVML prints it ({@code 00000000:3B:00.0}, eight upper-case
   * domain digits), else the {@code domain}, {@code bus} and {@code device} fields with function 0
   * (NVML does not report the function; a GPU is function 0). Empty when neither is an address.
   */
  static Optional<PciAddress> address(PciInfo pci) {
    return PciAddress.tryParse(pci.busId()).or(() -> {
      try {
        return Optional.of(new PciAddress(pci.domain(), pci.bus(), pci.device(), 0));
      } catch (IllegalArgumentException e) {
        return Optional.empty();
      }
    });
  }

  /**
   * The function's sysfs facts with the ids NVML reports put in place of sysfs's: NVML answers for the
   * GPU even where sysfs is not mounted or not captured. {@code pciDeviceId} packs
   * {@code device << 16 | vendor}, {@code pciSubSystemId} packs
   * {@code subsystem device << 16 | subsystem vendor}; 0 means NVML did not say.
   */
  static PciFunctionFacts withNvmlIds(PciFunctionFacts sysfs, PciInfo pci) {
    Optional<String> vendor = sysfs.vendorId();
    Optional<String> device = sysfs.deviceId();
    Optional<String> subsystemVendor = sysfs.subsystemVendorId();
    Optional<String> subsystemDevice = sysfs.subsystemDeviceId();
    if (pci.pciDeviceId() != 0) {
      vendor = Optional.of(hex16(pci.pciDeviceId()));
      device = Optional.of(hex16(pci.pciDeviceId() >>> 16));
    }
    if (pci.pciSubSystemId() != 0) {
      subsystemVendor = Optional.of(hex16(pci.pciSubSystemId()));
      subsystemDevice = Optional.of(hex16(pci.pciSubSystemId() >>> 16));
    }
    return new PciFunctionFacts(sysfs.address(), vendor, device, subsystemVendor, subsystemDevice,
        sysfs.classCode(), sysfs.kernelDriver(), sysfs.numaNode(), sysfs.pcieRoot(), sysfs.linkSpeed(),
        sysfs.linkWidth(), sysfs.iommuGroup(), sysfs.pcieSwitch());
  }

  /** The low 16 bits as the PCI id spelling of {@link PciFunctionFacts}: four lower-case hex digits. */
  static String hex16(int value) {
    return String.format("%04x", value & 0xffff);
  }
}
