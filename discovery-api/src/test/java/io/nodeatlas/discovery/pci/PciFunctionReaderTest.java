package io.nodeatlas.discovery.pci;

import static org.assertj.core.api.Assertions.assertThat;

import io.nodeatlas.discovery.host.FactReader;
import io.nodeatlas.discovery.host.HostFs;
import io.nodeatlas.discovery.model.Device;
import io.nodeatlas.discovery.model.DeviceDraft;
import io.nodeatlas.discovery.model.AttributeValue;
import io.nodeatlas.discovery.testing.FixtureTree;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

class PciFunctionReaderTest {

  @TempDir Path root;

  private final List<String> warnings = new ArrayList<>();

  private static final String FN = "sys/devices/pci0000:15/0000:15:01.0/0000:16:00.0";

  @Test
  void readsEveryFactOfAFunctionAsTheKernelPrintsIt() {
    FixtureTree.at(root)
        .value(FN + "/vendor", "0x15b3").value(FN + "/device", "0x101d")
        .value(FN + "/subsystem_vendor", "0x15b3").value(FN + "/subsystem_device", "0x0047")
        .value(FN + "/class", "0x020000").value(FN + "/numa_node", "1")
        .value(FN + "/current_link_speed", "16.0 GT/s PCIe").value(FN + "/current_link_width", "16")
        .symlink(FN + "/driver", "../../../../bus/pci/drivers/mlx5_core")
        .symlink(FN + "/iommu_group", "../../../../kernel/iommu_groups/42")
        .symlink("sys/bus/pci/devices/0000:16:00.0", "../../../devices/pci0000:15/0000:15:01.0/0000:16:00.0");
    PciFunctionFacts f = new PciFunctionReader(new FactReader(HostFs.of(root), warnings::add))
        .read(PciAddress.parse("0000:16:00.0"));
    assertThat(f.vendorId()).contains("15b3");
    assertThat(f.deviceId()).contains("101d");
    assertThat(f.subsystemDeviceId()).contains("0047");
    assertThat(f.classCode()).contains("020000");
    assertThat(f.kernelDriver()).contains("mlx5_core");
    assertThat(f.numaNode()).hasValue(1);
    assertThat(f.pcieRoot()).contains("pci0000:15");
    assertThat(f.linkSpeed()).contains("16.0 GT/s");
    assertThat(f.linkWidth()).hasValue(16);
    assertThat(f.iommuGroup()).hasValue(42);
    assertThat(warnings).isEmpty();

    Device d = f.publishTo(DeviceDraft.of("nic-a", "test", warnings::add)).build().orElseThrow();
    assertThat(d.attributes()).containsEntry(PciFunctionFacts.PCI_BUS_ID, AttributeValue.string("0000:16:00.0"))
        .containsEntry(PciFunctionFacts.PCIE_ROOT, AttributeValue.string("pci0000:15"))
        .containsEntry(PciFunctionFacts.NUMA_NODE, AttributeValue.of(1))
        .containsEntry(PciFunctionFacts.KERNEL_DRIVER, AttributeValue.string("mlx5_core"));
  }

  @Test
  void whatIsPublishedIsReadWithoutTheFactsPublishToLeavesOut() {
    // A class file the kernel never writes and a broken iommu_group link: unread, so no warning.
    FixtureTree.at(root)
        .value(FN + "/vendor", "0x15b3").value(FN + "/device", "0x101d")
        .value(FN + "/subsystem_vendor", "0x15b3").value(FN + "/subsystem_device", "0x0047")
        .value(FN + "/class", "ethernet").value(FN + "/numa_node", "1")
        .value(FN + "/current_link_speed", "16.0 GT/s PCIe").value(FN + "/current_link_width", "16")
        .symlink(FN + "/driver", "../../../../bus/pci/drivers/mlx5_core")
        .symlink(FN + "/iommu_group", "../../../../kernel/iommu_groups/group-x");
    PciFunctionReader reader = new PciFunctionReader(new FactReader(HostFs.of(root), warnings::add));
    PciAddress address = PciAddress.parse("0000:16:00.0");
    PciFunctionFacts published = reader.readPublishedAt(address, root.resolve(FN));
    assertThat(published.classCode()).isEmpty();
    assertThat(published.iommuGroup()).isEmpty();
    assertThat(warnings).isEmpty();

    PciFunctionFacts all = reader.readAt(address, root.resolve(FN));
    assertThat(warnings).hasSize(1).allMatch(w -> w.contains("class"));
    assertThat(published.publishTo(DeviceDraft.of("nic-a", "test", warnings::add)).build().orElseThrow())
        .isEqualTo(all.publishTo(DeviceDraft.of("nic-a", "test", warnings::add)).build().orElseThrow());
    assertThat(published.kernelDriver()).contains("mlx5_core");
    assertThat(published.linkWidth()).hasValue(16);
  }

  @Test
  void aMissingNodeIsAbsentAndAMalformedIdIsOneWarning() {
    FixtureTree.at(root).value(FN + "/numa_node", "-1").value(FN + "/vendor", "mellanox")
        .symlink("sys/bus/pci/devices/0000:16:00.0", "../../../devices/pci0000:15/0000:15:01.0/0000:16:00.0");
    PciFunctionFacts f = new PciFunctionReader(new FactReader(HostFs.of(root), warnings::add))
        .read(PciAddress.parse("0000:16:00.0"));
    assertThat(f.numaNode()).isEmpty();
    assertThat(f.vendorId()).isEmpty();
    assertThat(warnings).singleElement().asString()
        .startsWith("/sys/devices/pci0000:15/0000:15:01.0/0000:16:00.0/vendor: not understood: not a 4-digit hex id");
  }
}
