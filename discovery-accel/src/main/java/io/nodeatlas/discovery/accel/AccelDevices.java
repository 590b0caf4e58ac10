package io.nodeatlas.discovery.accel;

import io.nodeatlas.discovery.accel.parse.DevNumber;
import io.nodeatlas.discovery.accel.parse.PciIdsDatabase.DeviceKey;
import io.nodeatlas.discovery.accel.parse.Vendors;
import io.nodeatlas.discovery.model.ContainerEdits;
import io.nodeatlas.discovery.model.ContainerEdits.DeviceNode;
import io.nodeatlas.discovery.model.Device;
import io.nodeatlas.discovery.model.DeviceDraft;
import io.nodeatlas.discovery.model.Names;
import io.nodeatlas.discovery.pci.PciAddress;
import io.nodeatlas.discovery.pci.PciFunctionFacts;
import io.nodeatlas.discovery.model.AttributeDoc;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.function.Consumer;

/**
 * Publishes {@link Gpu}s as {@code gpu} devices: names, attributes in the catalogue's spelling, the
 * memory capacity, and the container edits. Pure: everything it needs was read before.
 */
public final class AccelDevices {

  public static final String SOURCE = "accel";
  /** The device type, shared with the NVIDIA {@code gpu} source: a GPU is a GPU; {@link #VENDOR} tells them apart. */
  public static final String DEVICE_TYPE = "gpu";

  public static final String TYPE = Device.TYPE;
  public static final String VENDOR = Names.ours("vendor");
  public static final String PRODUCT_NAME = Names.ours("productName");
  public static final String BOARD_PART_NUMBER = Names.ours("boardPartNumber");
  public static final String SERIAL = Names.ours("serial");
  public static final String UNIQUE_ID = Names.ours("uniqueID");
  public static final String VBIOS_VERSION = Names.ours("vbiosVersion");
  public static final String VISIBLE_MEMORY_BYTES = Names.ours("visibleMemoryBytes");
  public static final String MEMORY = Names.ours("memory");

  /** Where ROCm's compute interface lives on the host and in a container. */
  public static final String KFD_PATH = "/dev/kfd";

  private AccelDevices() {}

  /** {@code accel-0000-03-00-0}: the PCI address as a DNS label, stable across runs and reboots. */
  public static String deviceName(PciAddress address) {
    return SOURCE + "-" + Names.toLabelFragment(address.toString());
  }

  /** The pci.ids key of a GPU, when both ids are known. */
  static Optional<DeviceKey> pciIdsKey(Gpu gpu) {
    PciFunctionFacts pci = gpu.pci();
    return pci.vendorId().isPresent() && pci.deviceId().isPresent()
        ? Optional.of(new DeviceKey(pci.vendorId().get(), pci.deviceId().get()))
        : Optional.empty();
  }

  /**
   * The device of one GPU.
   *
   * @param pciIdsNames names from the host's PCI ids database; the board's own product name wins
   * @param kfd the number of {@code /dev/kfd}, when known
   */
  public static Optional<Device> device(Gpu gpu, Map<DeviceKey, String> pciIdsNames, Optional<DevNumber> kfd,
      Consumer<String> warn) {
    PciFunctionFacts pci = gpu.pci();
    Optional<AmdgpuFacts> amd = gpu.amdgpu();
    Optional<String> productName = amd.flatMap(AmdgpuFacts::productName)
        .or(() -> pciIdsKey(gpu).map(pciIdsNames::get));
    DeviceDraft draft = DeviceDraft.of(deviceName(pci.address()), SOURCE, warn)
        .attribute(TYPE, DEVICE_TYPE)
        .attribute(VENDOR, pci.vendorId().map(Vendors::shortName))
        .attribute(PRODUCT_NAME, productName)
        .capacity(MEMORY, gpu.memoryBytes());
    pci.publishTo(draft);
    draft.attribute(PciFunctionFacts.PCI_CLASS, pci.classCode())
        .attribute(PciFunctionFacts.IOMMU_GROUP, pci.iommuGroup());
    amd.ifPresent(a -> draft
        .attribute(BOARD_PART_NUMBER, a.productNumber())
        .attribute(SERIAL, a.serialNumber())
        .attribute(UNIQUE_ID, a.uniqueId())
        .attribute(VBIOS_VERSION, a.vbiosVersion())
        .attribute(VISIBLE_MEMORY_BYTES, a.visibleVramBytes()));
    return draft.containerEdits(edits(gpu, kfd)).build();
  }

  /**
   * What a container needs to use the GPU, as CDI device nodes with the numbers sysfs gave: the
   * primary node {@code /dev/dri/card<N>} (modesetting, and the node older userspace opens) and the
   * render node {@code /dev/dri/renderD<N>} (rendering, media and compute without DRM master; kernel
   * {@code Documentation/gpu/drm-uapi.rst}, "Render nodes"), and for {@code amdgpu} ROCm's
   * {@code /dev/kfd}.
   *
   * <p>Why handing out {@code /dev/kfd} does not hand out every AMD GPU: there is one {@code /dev/kfd}
   * for all of them, but amdkfd only lets a process use the GPUs whose render node its device cgroup
   * allows it to read and write. {@code kfd_devcgroup_check_permission()}
   * ({@code drivers/gpu/drm/amd/amdkfd/kfd_priv.h}, since "drm/amdkfd: Check against device cgroup",
   * commit 6b855f7b83d2) checks {@code DRM_MAJOR:<render minor>} against the device cgroup (v1
   * {@code devices} controller or the v2 BPF device program), and {@code kfd_init_apertures()}
   * ({@code kfd_flat_memory.c}) skips every GPU that fails it when the process opens {@code /dev/kfd},
   * so the process gets no state on that GPU and cannot create queues or memory on it; ioctls that
   * pick a GPU themselves (the dma-buf query) skip the same GPUs. A container runtime allows exactly the
   * device nodes of the CDI devices it injected in that cgroup, so a container given this GPU's render
   * node and {@code /dev/kfd} computes on this GPU only. (A privileged container, or one with a
   * wildcard device rule, is not restricted; that is true of any device.)
   */
  static ContainerEdits edits(Gpu gpu, Optional<DevNumber> kfd) {
    ContainerEdits.Builder edits = ContainerEdits.builder();
    for (DrmNode node : gpu.nodes()) {
      node.dev().ifPresent(dev -> edits.deviceNode(DeviceNode.charDevice(node.name().devPath(), dev.major(), dev.minor())));
    }
    if (gpu.driver().filter(GpuReader.AMDGPU::equals).isPresent()) {
      kfd.ifPresent(dev -> edits.deviceNode(DeviceNode.charDevice(KFD_PATH, dev.major(), dev.minor())));
    }
    return edits.build();
  }

  /** The PCI function of an AMD Instinct MI210, the example of the PCI attributes. */
  private static final PciFunctionFacts MI210_FUNCTION = PciFunctionFacts.example("0000:03:00.0", "pci0000:00", "1002",
      "740f", "1002", "0c34", "amdgpu", "16.0 GT/s", 16);

  /** Every attribute and capacity of an {@code accel} device. */
  public static List<AttributeDoc> catalogue() {
    String t = DEVICE_TYPE;
    List<AttributeDoc> docs = new ArrayList<>(List.of(
        AttributeDoc.attribute(t, TYPE, "string", "", "gpu", "Device type; the same for every vendor's GPUs."),
        AttributeDoc.attribute(t, VENDOR, "string", "", "amd",
            "Short lower-case vendor name from the PCI vendor id (amd, intel, nvidia, ...); the 4-digit id for vendors without one."),
        AttributeDoc.attribute(t, PRODUCT_NAME, "string", "", "AMD Instinct MI210",
            "amdgpu's product_name from the board FRU; otherwise the device's name in the host's pci.ids database. Absent when neither says."),
        AttributeDoc.attribute(t, PciFunctionFacts.PCI_CLASS, "string", "", "038000",
            "PCI class code, 6 hex digits: 030000 VGA, 030200 3D controller, 038000 display controller."),
        AttributeDoc.attribute(t, PciFunctionFacts.IOMMU_GROUP, "int", "", "17", "IOMMU group of the PCI function."),
        AttributeDoc.attribute(t, BOARD_PART_NUMBER, "string", "", "102-D67302-00", "amdgpu's product_number: the board part number from its FRU."),
        AttributeDoc.attribute(t, SERIAL, "string", "", "692231000131", "amdgpu's serial_number: the board serial number from its FRU."),
        AttributeDoc.attribute(t, UNIQUE_ID, "string", "", "0de1a7c4d3f5a2b1",
            "amdgpu's unique_id: a 64-bit id of the GPU that stays the same in any machine (GFX9 and newer)."),
        AttributeDoc.attribute(t, VBIOS_VERSION, "string", "", "113-D67301-063", "amdgpu's vbios_version."),
        AttributeDoc.attribute(t, VISIBLE_MEMORY_BYTES, "int", "bytes", "68702699520",
            "amdgpu's mem_info_vis_vram_total: the VRAM the CPU can map through the PCI BAR (all of it with resizable BAR)."),
        AttributeDoc.capacity(t, MEMORY, "bytes", "68702699520",
            "Dedicated GPU memory: amdgpu's mem_info_vram_total, or xe's physical_vram_size_bytes summed over tiles. Absent for integrated GPUs.")));
    docs.addAll(3, MI210_FUNCTION.catalogue(t, "the GPU's PCI function"));
    return List.copyOf(docs);
  }
}
