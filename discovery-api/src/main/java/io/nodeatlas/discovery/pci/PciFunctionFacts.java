package io.nodeatlas.discovery.pci;

import io.nodeatlas.discovery.model.DeviceDraft;
import io.nodeatlas.discovery.model.Names;
import io.nodeatlas.discovery.model.AttributeDoc;
import java.util.List;
import java.util.Optional;
import java.util.OptionalInt;

/**
 * What the kernel says about one PCI function in {@code /sys/bus/pci/devices/<address>/}
 * ({@code Documentation/ABI/testing/sysfs-bus-pci}): ids as lower-case hex without {@code 0x},
 * zero-padded (the form of {@code pci.ids} and NFD), the bound kernel driver, the NUMA node
 * (absent for the kernel's {@code -1}), the PCIe root, the negotiated link, the IOMMU group and the
 * closest PCIe switch above the function ({@link PcieSwitches}).
 * Every source that publishes PCI devices reads this one record with {@link PciFunctionReader} and
 * publishes its common attributes with {@link #publishTo}, and documents them with {@link #catalogue},
 * so a GPU, a NIC and an accelerator say the same thing the same way.
 */
public record PciFunctionFacts(
    PciAddress address,
    Optional<String> vendorId,
    Optional<String> deviceId,
    Optional<String> subsystemVendorId,
    Optional<String> subsystemDeviceId,
    Optional<String> classCode,
    Optional<String> kernelDriver,
    OptionalInt numaNode,
    Optional<String> pcieRoot,
    Optional<String> linkSpeed,
    OptionalInt linkWidth,
    OptionalInt iommuGroup,
    Optional<String> pcieSwitch) {

  /** Facts without a PCIe switch (a function straight on a root port, or one whose path is unknown). */
  public PciFunctionFacts(PciAddress address, Optional<String> vendorId, Optional<String> deviceId,
      Optional<String> subsystemVendorId, Optional<String> subsystemDeviceId, Optional<String> classCode,
      Optional<String> kernelDriver, OptionalInt numaNode, Optional<String> pcieRoot, Optional<String> linkSpeed,
      OptionalInt linkWidth, OptionalInt iommuGroup) {
    this(address, vendorId, deviceId, subsystemVendorId, subsystemDeviceId, classCode, kernelDriver, numaNode,
        pcieRoot, linkSpeed, linkWidth, iommuGroup, Optional.empty());
  }

  /** {@code resource.kubernetes.io/pciBusID}: {@code DDDD:BB:DD.F}. */
  public static final String PCI_BUS_ID = Names.PCI_BUS_ID;
  /** {@code resource.kubernetes.io/pcieRoot}: the host bridge, {@code pci0000:15}. */
  public static final String PCIE_ROOT = Names.PCIE_ROOT;
  /** {@code nodeatlas.io/pcieSwitch}: the upstream port of the closest PCIe switch ({@link PcieSwitches}). */
  public static final String PCIE_SWITCH = PcieSwitches.ATTRIBUTE;
  /** {@code resource.kubernetes.io/numaNode}. */
  public static final String NUMA_NODE = Names.NUMA_NODE;
  public static final String PCI_VENDOR_ID = Names.ours("pciVendorID");
  public static final String PCI_DEVICE_ID = Names.ours("pciDeviceID");
  public static final String PCI_SUBSYSTEM_VENDOR_ID = Names.ours("pciSubsystemVendorID");
  public static final String PCI_SUBSYSTEM_DEVICE_ID = Names.ours("pciSubsystemDeviceID");
  public static final String PCI_CLASS = Names.ours("pciClass");
  public static final String KERNEL_DRIVER = Names.ours("kernelDriver");
  public static final String PCIE_LINK_SPEED = Names.ours("pcieLinkSpeed");
  public static final String PCIE_LINK_WIDTH = Names.ours("pcieLinkWidth");
  public static final String IOMMU_GROUP = Names.ours("iommuGroup");

  /** Only an address: what a source knows of a function whose sysfs entry is missing. */
  public static PciFunctionFacts unknown(PciAddress address) {
    return new PciFunctionFacts(address, Optional.empty(), Optional.empty(), Optional.empty(), Optional.empty(),
        Optional.empty(), Optional.empty(), OptionalInt.empty(), Optional.empty(), Optional.empty(),
        OptionalInt.empty(), OptionalInt.empty());
  }

  /**
   * A typical function of a source, as the examples of its {@link #catalogue}: on NUMA node 0, in
   * no IOMMU group, its class left unsaid.
   */
  public static PciFunctionFacts example(String address, String pcieRoot, String vendorId, String deviceId,
      String subsystemVendorId, String subsystemDeviceId, String kernelDriver, String linkSpeed, int linkWidth) {
    return new PciFunctionFacts(PciAddress.parse(address), Optional.of(vendorId), Optional.of(deviceId),
        Optional.of(subsystemVendorId), Optional.of(subsystemDeviceId), Optional.empty(), Optional.of(kernelDriver),
        OptionalInt.of(0), Optional.of(pcieRoot), Optional.of(linkSpeed), OptionalInt.of(linkWidth), OptionalInt.empty());
  }

  /**
   * Publishes the facts every PCI device carries, in the one spelling: the standard
   * {@code pciBusID}, {@code pcieRoot}, our {@code pcieSwitch} (where a switch is above the
   * function) and {@code numaNode}, then the ids, the kernel driver and the link. A source adds its own attributes before these (what users select on first).
   */
  public DeviceDraft publishTo(DeviceDraft draft) {
    address.standardBusId().ifPresent(id -> draft.attribute(PCI_BUS_ID, id));
    draft.attribute(PCIE_ROOT, pcieRoot);
    draft.attribute(PCIE_SWITCH, pcieSwitch);
    draft.attribute(NUMA_NODE, numaNode);
    draft.attribute(PCI_VENDOR_ID, vendorId);
    draft.attribute(PCI_DEVICE_ID, deviceId);
    draft.attribute(PCI_SUBSYSTEM_VENDOR_ID, subsystemVendorId);
    draft.attribute(PCI_SUBSYSTEM_DEVICE_ID, subsystemDeviceId);
    draft.attribute(KERNEL_DRIVER, kernelDriver);
    draft.attribute(PCIE_LINK_SPEED, linkSpeed);
    draft.attribute(PCIE_LINK_WIDTH, linkWidth);
    return draft;
  }

  /**
   * The catalogue entries of what {@link #publishTo} publishes on {@code deviceType}, in the same
   * order, with these facts as the examples (a source passes a typical function of its own).
   * {@code function} names the PCI function in the text: {@code "the GPU's PCI function"}.
   */
  public List<AttributeDoc> catalogue(String deviceType, String function) {
    String hex4 = ", four lower-case hex digits (sysfs-bus-pci ";
    return List.of(
        AttributeDoc.attribute(deviceType, PCI_BUS_ID, "string", "", address.toString(), "PCI address of " + function
            + " (Kubernetes standard attribute); absent when the PCI domain has more than four hex digits."),
        AttributeDoc.attribute(deviceType, PCIE_ROOT, "string", "", pcieRoot.orElse(""), "PCIe root complex (host "
            + "bridge) above " + function + ", also through switches (Kubernetes standard attribute)."),
        AttributeDoc.attribute(deviceType, PCIE_SWITCH, "string", "", pcieSwitch.orElse("0000:16:00.0"),
            "PCIe switch closest above " + function + ": the PCI address of the switch's upstream port (the "
                + "switch in `lspci -t` and in `discover`'s PCI tree); absent when the function sits directly on a "
                + "root port. Devices behind one switch share it (`matchAttribute`: GPUDirect RDMA without "
                + "crossing the root complex); a VF has its PF's switch."),
        AttributeDoc.attribute(deviceType, NUMA_NODE, "int", "", String.valueOf(numaNode.orElse(0)), "NUMA node of "
            + function + " (sysfs numa_node; Kubernetes standard attribute); absent when the platform does not say."),
        AttributeDoc.attribute(deviceType, PCI_VENDOR_ID, "string", "", vendorId.orElse(""), "PCI vendor id" + hex4 + "vendor)."),
        AttributeDoc.attribute(deviceType, PCI_DEVICE_ID, "string", "", deviceId.orElse(""), "PCI device id" + hex4 + "device)."),
        AttributeDoc.attribute(deviceType, PCI_SUBSYSTEM_VENDOR_ID, "string", "", subsystemVendorId.orElse(""),
            "PCI subsystem vendor id: the board's maker" + hex4 + "subsystem_vendor)."),
        AttributeDoc.attribute(deviceType, PCI_SUBSYSTEM_DEVICE_ID, "string", "", subsystemDeviceId.orElse(""),
            "PCI subsystem device id: the board" + hex4 + "subsystem_device)."),
        AttributeDoc.attribute(deviceType, KERNEL_DRIVER, "string", "", kernelDriver.orElse(""),
            "Kernel driver bound to " + function + " (its sysfs driver link)."),
        AttributeDoc.attribute(deviceType, PCIE_LINK_SPEED, "string", "", linkSpeed.orElse(""),
            "Negotiated PCIe link speed per lane (sysfs current_link_speed)."),
        AttributeDoc.attribute(deviceType, PCIE_LINK_WIDTH, "int", "lanes", String.valueOf(linkWidth.orElse(0)),
            "Negotiated PCIe link width (sysfs current_link_width)."));
  }
}
