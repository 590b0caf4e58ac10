package io.nodeatlas.discovery.accel;

import static io.nodeatlas.discovery.accel.AccelDevices.*;
import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.entry;

import io.nodeatlas.discovery.host.HostContext;
import io.nodeatlas.discovery.host.HostFs;
import io.nodeatlas.discovery.model.AttributeValue;
import io.nodeatlas.discovery.model.ContainerEdits.DeviceNode;
import io.nodeatlas.discovery.model.Device;
import io.nodeatlas.discovery.model.Quantity;
import io.nodeatlas.discovery.pci.PciFunctionFacts;
import io.nodeatlas.discovery.engine.AttributeCatalogue;
import io.nodeatlas.discovery.spi.DiscoveryResult;
import io.nodeatlas.discovery.spi.DiscoverySource;
import io.nodeatlas.discovery.engine.DiscoverySources;
import io.nodeatlas.discovery.testing.FixtureTree;
import java.nio.file.Path;
import java.util.LinkedHashMap;
import java.util.Map;
import java.util.function.Function;
import java.util.stream.Collectors;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/** Every device of {@link AccelNode}, with every value it publishes. */
class AccelSourceTest {

  @TempDir static Path root;
  static DiscoveryResult result;
  static Map<String, Device> devices;

  @BeforeAll
  static void discover() {
    AccelNode.write(root);
    result = new AccelSource().discover(HostContext.of(HostFs.of(root)));
    devices = result.devices().stream().collect(Collectors.toMap(Device::name, Function.identity()));
  }

  private static Map<String, Object> attributes(String device) {
    Map<String, Object> out = new LinkedHashMap<>();
    devices.get(device).attributes().forEach((k, v) -> out.put(k, v.asObject()));
    return out;
  }

  @Test
  void oneDevicePerGpuOfAPciFunctionSortedByAddressWithoutWarnings() {
    assertThat(result.warnings()).isEmpty();
    // NVIDIA on the nvidia driver (the gpu source's), the BMC's VGA (no render node) and vgem (no
    // PCI parent) are left out.
    assertThat(result.devices()).extracting(Device::name)
        .containsExactly("accel-0000-00-02-0", "accel-0000-03-00-0", "accel-0000-41-00-0");
    assertThat(result.devices()).allSatisfy(d -> {
      assertThat(d.source()).isEqualTo("accel");
      assertThat(d.type()).contains("gpu");
      assertThat(d.allowMultipleAllocations()).isFalse();
      assertThat(d.requestPolicies()).isEmpty();
    });
  }

  @Test
  void discreteAmdGpuBehindAPcieSwitch() {
    String name = "accel-0000-03-00-0";
    assertThat(attributes(name)).containsExactlyInAnyOrderEntriesOf(Map.ofEntries(
        entry(TYPE, "gpu"),
        entry(VENDOR, "amd"),
        entry(PRODUCT_NAME, "AMD Instinct MI210"), // the board's own name beats pci.ids
        entry(PciFunctionFacts.PCI_BUS_ID, "0000:03:00.0"),
        entry(PciFunctionFacts.PCIE_ROOT, "pci0000:00"), // through root port, upstream and downstream port
        entry(PciFunctionFacts.PCIE_SWITCH, "0000:01:00.0"), // the switch's upstream port
        entry(PciFunctionFacts.NUMA_NODE, 0L),
        entry(PciFunctionFacts.PCI_VENDOR_ID, "1002"),
        entry(PciFunctionFacts.PCI_DEVICE_ID, "740f"),
        entry(PciFunctionFacts.PCI_SUBSYSTEM_VENDOR_ID, "1002"),
        entry(PciFunctionFacts.PCI_SUBSYSTEM_DEVICE_ID, "0c34"),
        entry(PciFunctionFacts.PCI_CLASS, "038000"),
        entry(PciFunctionFacts.KERNEL_DRIVER, "amdgpu"),
        entry(PciFunctionFacts.PCIE_LINK_SPEED, "16.0 GT/s"),
        entry(PciFunctionFacts.PCIE_LINK_WIDTH, 16L),
        entry(PciFunctionFacts.IOMMU_GROUP, 17L),
        entry(BOARD_PART_NUMBER, "102-D67302-00"),
        entry(SERIAL, "692231000131"),
        entry(UNIQUE_ID, "0de1a7c4d3f5a2b1"),
        entry(VBIOS_VERSION, "113-D67301-063"),
        entry(VISIBLE_MEMORY_BYTES, AccelNode.AMD_VISIBLE_VRAM)));
    assertThat(devices.get(name).capacity()).containsExactly(entry(MEMORY, Quantity.of(AccelNode.AMD_VRAM)));
    assertThat(devices.get(name).containerEdits().deviceNodes()).containsExactly(
        DeviceNode.charDevice("/dev/dri/card1", 226, 1),
        DeviceNode.charDevice("/dev/dri/renderD129", 226, 129),
        DeviceNode.charDevice("/dev/kfd", 235, 0));
    assertThat(devices.get(name).containerEdits().env()).isEmpty();
    assertThat(devices.get(name).containerEdits().mounts()).isEmpty();
  }

  @Test
  void integratedIntelGpuHasNoMemoryCapacity() {
    String name = "accel-0000-00-02-0";
    assertThat(attributes(name)).containsExactlyInAnyOrderEntriesOf(Map.ofEntries(
        entry(TYPE, "gpu"),
        entry(VENDOR, "intel"),
        entry(PRODUCT_NAME, "AlderLake-S GT1"), // from pci.ids
        entry(PciFunctionFacts.PCI_BUS_ID, "0000:00:02.0"),
        entry(PciFunctionFacts.PCIE_ROOT, "pci0000:00"),
        // numa_node -1: the platform does not say, so no numaNode
        entry(PciFunctionFacts.PCI_VENDOR_ID, "8086"),
        entry(PciFunctionFacts.PCI_DEVICE_ID, "4680"),
        entry(PciFunctionFacts.PCI_SUBSYSTEM_VENDOR_ID, "1043"),
        entry(PciFunctionFacts.PCI_SUBSYSTEM_DEVICE_ID, "8882"),
        entry(PciFunctionFacts.PCI_CLASS, "030000"),
        entry(PciFunctionFacts.KERNEL_DRIVER, "i915"),
        entry(PciFunctionFacts.IOMMU_GROUP, 0L)));
    assertThat(devices.get(name).capacity()).isEmpty();
    // Primary and render node; not the legacy controlD64, and no /dev/kfd for a non-AMD GPU.
    assertThat(devices.get(name).containerEdits().deviceNodes()).containsExactly(
        DeviceNode.charDevice("/dev/dri/card0", 226, 0),
        DeviceNode.charDevice("/dev/dri/renderD128", 226, 128));
  }

  @Test
  void intelDiscreteGpuOnXeSumsItsTwoTiles() {
    String name = "accel-0000-41-00-0";
    assertThat(attributes(name)).containsExactlyInAnyOrderEntriesOf(Map.ofEntries(
        entry(TYPE, "gpu"),
        entry(VENDOR, "intel"),
        entry(PRODUCT_NAME, "Ponte Vecchio XT (2 Tile) [Data Center GPU Max 1550]"),
        entry(PciFunctionFacts.PCI_BUS_ID, "0000:41:00.0"),
        entry(PciFunctionFacts.PCIE_ROOT, "pci0000:40"),
        entry(PciFunctionFacts.NUMA_NODE, 1L),
        entry(PciFunctionFacts.PCI_VENDOR_ID, "8086"),
        entry(PciFunctionFacts.PCI_DEVICE_ID, "0bd5"),
        entry(PciFunctionFacts.PCI_SUBSYSTEM_VENDOR_ID, "8086"),
        entry(PciFunctionFacts.PCI_SUBSYSTEM_DEVICE_ID, "0000"),
        entry(PciFunctionFacts.PCI_CLASS, "038000"),
        entry(PciFunctionFacts.KERNEL_DRIVER, "xe"),
        entry(PciFunctionFacts.PCIE_LINK_SPEED, "32.0 GT/s"),
        entry(PciFunctionFacts.PCIE_LINK_WIDTH, 16L),
        entry(PciFunctionFacts.IOMMU_GROUP, 30L)));
    assertThat(devices.get(name).capacity()).containsExactly(entry(MEMORY, Quantity.of(2 * AccelNode.XE_TILE_VRAM)));
    assertThat(devices.get(name).containerEdits().deviceNodes()).containsExactly(
        DeviceNode.charDevice("/dev/dri/card2", 226, 2),
        DeviceNode.charDevice("/dev/dri/renderD130", 226, 130));
  }

  @Test
  void nvidiaOnTheNvidiaDriverPlatformDevicesAndDisplayOnlyAdaptersAreLeftOut() {
    assertThat(result.devices()).noneSatisfy(d -> assertThat(d.attributes().get(PciFunctionFacts.KERNEL_DRIVER))
        .isEqualTo(AttributeValue.string("nvidia")));
    assertThat(result.devices()).flatExtracting(d -> d.containerEdits().deviceNodes())
        .extracting(DeviceNode::path)
        .doesNotContain("/dev/dri/card3", "/dev/dri/renderD131", "/dev/dri/card4", "/dev/dri/renderD132",
            "/dev/dri/card5", "/dev/dri/controlD64");
    assertThat(result.devices()).extracting(Device::name).doesNotContain("accel-0000-06-00-0", "accel-0000-81-00-0");
  }

  @Test
  void nouveauOnAnNvidiaGpuIsOurs(@TempDir Path other) {
    FixtureTree t = FixtureTree.at(other);
    AccelNode.pciFunction(t, AccelNode.NVIDIA_GPU, "0x10de", "0x1eb8", "0x10de", "0x12a2", "0x030200", "0", "nouveau",
        40, "8.0 GT/s PCIe", "16");
    AccelNode.minor(t, AccelNode.NVIDIA_GPU, "card0", "226:0");
    AccelNode.minor(t, AccelNode.NVIDIA_GPU, "renderD128", "226:128");
    DiscoveryResult r = new AccelSource().discover(HostContext.of(HostFs.of(other)));
    assertThat(r.warnings()).isEmpty();
    assertThat(r.devices()).singleElement().satisfies(d -> {
      assertThat(d.name()).isEqualTo("accel-0000-81-00-0");
      assertThat(d.attributes()).containsEntry(VENDOR, AttributeValue.string("nvidia"))
          .containsEntry(PciFunctionFacts.KERNEL_DRIVER, AttributeValue.string("nouveau"))
          .doesNotContainKey(PRODUCT_NAME); // this host has no pci.ids
      assertThat(d.capacity()).isEmpty();
    });
  }

  @Test
  void sameHostSameOutput() {
    DiscoveryResult again = new AccelSource().discover(HostContext.of(HostFs.of(root)));
    assertThat(again.devices()).isEqualTo(result.devices());
  }

  @Test
  void everyPublishedNameIsInTheCatalogue() {
    assertThat(AttributeCatalogue.undocumented(new AccelSource().catalogue(), result.devices())).isEmpty();
    assertThat(new AccelSource().catalogue()).allSatisfy(d -> assertThat(d.deviceType()).isEqualTo("gpu"));
  }

  @Test
  void foundThroughServiceLoaderWithNoSettings() {
    DiscoverySources installed = DiscoverySources.load(AccelSourceTest.class.getClassLoader());
    assertThat(installed.names()).contains("accel");
    DiscoverySource accel = installed.select("accel").get(0);
    assertThat(accel).isInstanceOf(AccelSource.class);
    assertThat(accel.settings()).isEmpty();
    assertThat(accel.availability(HostContext.of(HostFs.of(root))).available()).isTrue();
  }

  @Test
  void unavailableWithoutDrmClass(@TempDir Path empty) {
    var availability = new AccelSource().availability(HostContext.of(HostFs.of(empty)));
    assertThat(availability.available()).isFalse();
    assertThat(availability.reason()).startsWith("/sys/class/drm does not exist");
  }
}
