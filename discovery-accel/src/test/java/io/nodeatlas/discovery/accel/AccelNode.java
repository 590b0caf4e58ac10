package io.nodeatlas.discovery.accel;

import io.nodeatlas.discovery.testing.FixtureTree;
import java.nio.file.Path;

/**
 * A synthetic node in the layout of the kernel's sysfs ABI (Documentation/ABI/testing/sysfs-bus-pci,
 * Documentation/gpu/drm-uapi.rst, Documentation/gpu/amdgpu/driver-misc.rst, drivers/gpu/drm/xe
 * tile attributes), with relative symlinks exactly as sysfs writes them:
 *
 * <ul>
 *   <li>{@link #INTEL_IGPU} {@code 0000:00:02.0}: an integrated Intel GPU on {@code i915} on the root
 *       bus, {@code card0}/{@code renderD128}, two connectors and a legacy {@code controlD64}; no VRAM.
 *   <li>{@link #AMD_GPU} {@code 0000:03:00.0}: a discrete AMD GPU on {@code amdgpu} behind a PCIe
 *       switch (root port {@code 0000:00:01.1}, upstream port {@code 0000:01:00.0}, downstream port
 *       {@code 0000:02:00.0}), {@code card1}/{@code renderD129}, FRU fields, VRAM files.
 *   <li>{@link #INTEL_XE} {@code 0000:41:00.0}: a two-tile Intel discrete GPU on {@code xe} on host
 *       bridge {@code pci0000:40}, NUMA node 1, {@code card2}/{@code renderD130}.
 *   <li>{@link #NVIDIA_GPU} {@code 0000:81:00.0}: an NVIDIA GPU on {@code nvidia} with nvidia-drm's
 *       {@code card3}/{@code renderD131}: the {@code gpu} source's, left out.
 *   <li>{@link #BMC_VGA} {@code 0000:06:00.0}: a server BMC's ASPEED graphics on {@code ast} behind a
 *       PCIe bridge, {@code card5} only: a display adapter without a render node, left out.
 *   <li>{@code vgem}: a virtual DRM device on the platform bus ({@code card4}/{@code renderD132}): no
 *       PCI parent, left out.
 *   <li>{@code /sys/class/kfd/kfd} ({@code 235:0}) and a small {@code /usr/share/misc/pci.ids}.
 * </ul>
 */
final class AccelNode {

  static final String INTEL_IGPU = "sys/devices/pci0000:00/0000:00:02.0";
  static final String ROOT_PORT = "sys/devices/pci0000:00/0000:00:01.1";
  static final String AMD_GPU = ROOT_PORT + "/0000:01:00.0/0000:02:00.0/0000:03:00.0";
  static final String INTEL_XE = "sys/devices/pci0000:40/0000:40:01.1/0000:41:00.0";
  static final String NVIDIA_GPU = "sys/devices/pci0000:80/0000:80:01.1/0000:81:00.0";
  static final String BMC_VGA = "sys/devices/pci0000:00/0000:00:1c.0/0000:05:00.0/0000:06:00.0";
  static final String VGEM = "sys/devices/platform/vgem";
  static final String PCI_IDS = "usr/share/misc/pci.ids";

  static final long AMD_VRAM = 68_702_699_520L;
  static final long AMD_VISIBLE_VRAM = 268_435_456L;
  static final long XE_TILE_VRAM = 68_719_476_736L;

  private AccelNode() {}

  static FixtureTree write(Path root) {
    FixtureTree t = FixtureTree.at(root);

    // Integrated Intel GPU on the root bus: .../0000:00:02.0 is 3 levels below sys/.
    pciFunction(t, INTEL_IGPU, "0x8086", "0x4680", "0x1043", "0x8882", "0x030000", "-1", "i915", 0, null, null);
    minor(t, INTEL_IGPU, "card0", "226:0");
    minor(t, INTEL_IGPU, "renderD128", "226:128");
    minor(t, INTEL_IGPU, "controlD64", "226:64");
    // Connectors are children of the primary node; their device link points at it, not at PCI.
    t.value(INTEL_IGPU + "/drm/card0/card0-DP-1/status", "disconnected")
        .symlink(INTEL_IGPU + "/drm/card0/card0-DP-1/device", "../../card0")
        .symlink("sys/class/drm/card0-DP-1", "../../devices/pci0000:00/0000:00:02.0/drm/card0/card0-DP-1")
        .value(INTEL_IGPU + "/drm/card0/card0-HDMI-A-1/status", "connected")
        .symlink(INTEL_IGPU + "/drm/card0/card0-HDMI-A-1/device", "../../card0")
        .symlink("sys/class/drm/card0-HDMI-A-1", "../../devices/pci0000:00/0000:00:02.0/drm/card0/card0-HDMI-A-1")
        .value("sys/class/drm/version", "drm 1.1.0 20060810");

    // The PCIe switch above the AMD GPU: root port, upstream port, downstream port (bridges).
    pciFunction(t, ROOT_PORT, "0x1022", "0x1483", "0x1022", "0x1453", "0x060400", "0", "pcieport", 16, "16.0 GT/s PCIe", "16");
    pciFunction(t, ROOT_PORT + "/0000:01:00.0", "0x1002", "0x14a0", "0x0000", "0x0000", "0x060400", "0", "pcieport", 17,
        "16.0 GT/s PCIe", "16");
    pciFunction(t, ROOT_PORT + "/0000:01:00.0/0000:02:00.0", "0x1002", "0x14a1", "0x0000", "0x0000", "0x060400", "0",
        "pcieport", 17, "16.0 GT/s PCIe", "16");
    pciFunction(t, AMD_GPU, "0x1002", "0x740f", "0x1002", "0x0c34", "0x038000", "0", "amdgpu", 17, "16.0 GT/s PCIe", "16");
    t.value(AMD_GPU + "/product_name", "AMD Instinct MI210")
        .value(AMD_GPU + "/product_number", "102-D67302-00")
        .value(AMD_GPU + "/serial_number", "692231000131")
        .value(AMD_GPU + "/unique_id", "0de1a7c4d3f5a2b1")
        .value(AMD_GPU + "/vbios_version", "113-D67301-063")
        .value(AMD_GPU + "/mem_info_vram_total", AMD_VRAM)
        .value(AMD_GPU + "/mem_info_vis_vram_total", AMD_VISIBLE_VRAM)
        .value(AMD_GPU + "/mem_info_vram_used", 12_582_912)
        .value(AMD_GPU + "/mem_info_gtt_total", 270_348_697_600L);
    minor(t, AMD_GPU, "card1", "226:1");
    minor(t, AMD_GPU, "renderD129", "226:129");
    t.symlink("sys/class/kfd/kfd", "../../devices/virtual/kfd/kfd")
        .value("sys/devices/virtual/kfd/kfd/dev", "235:0");

    // Two-tile Intel discrete GPU on xe; tile0 also has the gt directory the driver creates.
    pciFunction(t, INTEL_XE, "0x8086", "0x0bd5", "0x8086", "0x0000", "0x038000", "1", "xe", 30, "32.0 GT/s PCIe", "16");
    t.value(INTEL_XE + "/tile0/physical_vram_size_bytes", XE_TILE_VRAM)
        .value(INTEL_XE + "/tile0/gt0/freq0/max_freq", 1600)
        .value(INTEL_XE + "/tile1/physical_vram_size_bytes", XE_TILE_VRAM);
    minor(t, INTEL_XE, "card2", "226:2");
    minor(t, INTEL_XE, "renderD130", "226:130");

    // NVIDIA on the proprietary driver, with nvidia-drm's minors: the gpu source's.
    pciFunction(t, NVIDIA_GPU, "0x10de", "0x2330", "0x10de", "0x16c1", "0x030200", "1", "nvidia", 40, "32.0 GT/s PCIe", "16");
    minor(t, NVIDIA_GPU, "card3", "226:3");
    minor(t, NVIDIA_GPU, "renderD131", "226:131");

    // The BMC's VGA (ast registers no render node): a display adapter, not a GPU to hand out.
    pciFunction(t, BMC_VGA, "0x1a03", "0x2000", "0x1a03", "0x2000", "0x030000", "-1", "ast", 8, "2.5 GT/s PCIe", "1");
    minor(t, BMC_VGA, "card5", "226:5");

    // vgem: a virtual DRM device on the platform bus, no PCI function behind it.
    t.value(VGEM + "/uevent", "DRIVER=vgem");
    for (String[] m : new String[][] {{"card4", "226:4"}, {"renderD132", "226:132"}}) {
      t.value(VGEM + "/drm/" + m[0] + "/dev", m[1])
          .symlink(VGEM + "/drm/" + m[0] + "/device", "../../../vgem")
          .symlink("sys/class/drm/" + m[0], "../../devices/platform/vgem/drm/" + m[0]);
    }

    t.file(PCI_IDS, """
        #
        #\tList of PCI ID's (a few lines, in the format of The PCI ID Repository's pci.ids)
        #
        # Syntax:
        # vendor  vendor_name
        #\tdevice  device_name\t\t\t\t<-- single tab
        #\t\tsubvendor subdevice  subsystem_name\t<-- two tabs

        1002  Advanced Micro Devices, Inc. [AMD/ATI]
        \t740f  Aldebaran/MI200 [Instinct MI210]
        \t\t1002 0c34  Instinct MI210
        \t744c  Navi 31 [Radeon RX 7900 XT/7900 XTX]
        10de  NVIDIA Corporation
        \t2330  GH100 [H100 SXM5 80GB]
        8086  Intel Corporation
        \t0bd5  Ponte Vecchio XT (2 Tile) [Data Center GPU Max 1550]
        \t4680  AlderLake-S GT1
        ffff  Illegal Vendor ID

        # List of known device classes, subclasses and programming interfaces
        C 03  Display controller
        \t00  VGA compatible controller
        """);
    return t;
  }

  /**
   * A PCI function's attribute files, its {@code driver} and {@code iommu_group} links and its
   * {@code /sys/bus/pci/devices} entry, all relative as sysfs writes them.
   */
  static void pciFunction(FixtureTree t, String dir, String vendor, String device, String subVendor, String subDevice,
      String pciClass, String numaNode, String driver, int iommuGroup, String linkSpeed, String linkWidth) {
    String up = "../".repeat(depthBelowSys(dir));
    String bdf = dir.substring(dir.lastIndexOf('/') + 1);
    t.value(dir + "/vendor", vendor).value(dir + "/device", device)
        .value(dir + "/subsystem_vendor", subVendor).value(dir + "/subsystem_device", subDevice)
        .value(dir + "/class", pciClass).value(dir + "/numa_node", numaNode)
        .symlink(dir + "/driver", up + "bus/pci/drivers/" + driver)
        .dir("sys/bus/pci/drivers/" + driver)
        .symlink(dir + "/iommu_group", up + "kernel/iommu_groups/" + iommuGroup)
        .dir("sys/kernel/iommu_groups/" + iommuGroup)
        .symlink("sys/bus/pci/devices/" + bdf, "../../../" + dir.substring("sys/".length()));
    if (linkSpeed != null) {
      t.value(dir + "/current_link_speed", linkSpeed).value(dir + "/current_link_width", linkWidth);
    }
  }

  /** A DRM minor under a PCI function: its {@code dev}, its {@code device} link, its class entry. */
  static void minor(FixtureTree t, String pciDir, String name, String dev) {
    String bdf = pciDir.substring(pciDir.lastIndexOf('/') + 1);
    t.value(pciDir + "/drm/" + name + "/dev", dev)
        .value(pciDir + "/drm/" + name + "/uevent", "MAJOR=" + dev.split(":")[0] + "\nMINOR=" + dev.split(":")[1]
            + "\nDEVNAME=dri/" + name)
        .symlink(pciDir + "/drm/" + name + "/device", "../../../" + bdf)
        .symlink("sys/class/drm/" + name, "../../" + pciDir.substring("sys/".length()) + "/drm/" + name);
  }

  /** How many directories {@code dir} is below {@code sys/}. */
  private static int depthBelowSys(String dir) {
    return dir.split("/").length - 1;
  }
}
