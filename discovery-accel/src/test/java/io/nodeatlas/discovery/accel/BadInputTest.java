package io.nodeatlas.discovery.accel;

import static io.nodeatlas.discovery.accel.AccelDevices.*;
import static org.assertj.core.api.Assertions.assertThat;

import io.nodeatlas.discovery.host.HostContext;
import io.nodeatlas.discovery.host.HostFs;
import io.nodeatlas.discovery.model.AttributeValue;
import io.nodeatlas.discovery.model.ContainerEdits.DeviceNode;
import io.nodeatlas.discovery.model.Device;
import io.nodeatlas.discovery.model.Quantity;
import io.nodeatlas.discovery.pci.PciFunctionFacts;
import io.nodeatlas.discovery.engine.AttributeCatalogue;
import io.nodeatlas.discovery.spi.DiscoveryResult;
import io.nodeatlas.discovery.report.DiscoveryWarning;
import io.nodeatlas.discovery.testing.FixtureTree;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.Map;
import java.util.function.Function;
import java.util.stream.Collectors;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * Broken host files, one at a time on {@link AccelNode}: each costs its fact and one warning in the
 * form {@code <host path>: <reason>}, never the run and never another device. A missing file is an
 * absent fact without a warning (drivers and kernels differ in what they create).
 */
class BadInputTest {

  static final String AMD = "accel-0000-03-00-0";
  static final String IGPU = "accel-0000-00-02-0";
  static final String XE = "accel-0000-41-00-0";

  @TempDir static Path intactRoot;
  static Map<String, Device> intact;

  @TempDir Path root;
  FixtureTree tree;

  @BeforeAll
  static void discoverIntact() {
    AccelNode.write(intactRoot);
    intact = byName(new AccelSource().discover(HostContext.of(HostFs.of(intactRoot))));
  }

  @BeforeEach
  void write() {
    tree = AccelNode.write(root);
  }

  private DiscoveryResult discover() {
    DiscoveryResult r = new AccelSource().discover(HostContext.of(HostFs.of(root)));
    assertThat(AttributeCatalogue.undocumented(new AccelSource().catalogue(), r.devices())).isEmpty();
    return r;
  }

  private static Map<String, Device> byName(DiscoveryResult r) {
    return r.devices().stream().collect(Collectors.toMap(Device::name, Function.identity()));
  }

  /** Exactly one warning, starting with {@code prefix}, from this source. */
  private static void assertOneWarning(DiscoveryResult r, String prefix) {
    assertThat(r.warnings()).extracting(DiscoveryWarning::message).singleElement().asString().startsWith(prefix);
    assertThat(r.warnings().get(0).source()).isEqualTo("accel");
  }

  /** All three GPUs are there, and every device but {@code changed} is exactly as on the intact node. */
  private static Device assertOnlyChanged(DiscoveryResult r, String changed) {
    Map<String, Device> got = byName(r);
    assertThat(got.keySet()).containsExactlyInAnyOrderElementsOf(intact.keySet());
    intact.forEach((name, device) -> {
      if (!name.equals(changed)) {
        assertThat(got.get(name)).as(name).isEqualTo(device);
      }
    });
    return got.get(changed);
  }

  private static Map<String, AttributeValue> withoutKeys(Device d, String... keys) {
    Map<String, AttributeValue> m = new java.util.TreeMap<>(d.attributes());
    for (String k : keys) {
      m.remove(k);
    }
    return m;
  }

  // --- missing files: absent facts, no warning ------------------------------------------------------

  @Test
  void missingVramFileMeansNoMemoryCapacity() {
    tree.delete(AccelNode.AMD_GPU + "/mem_info_vram_total");
    DiscoveryResult r = discover();
    assertThat(r.warnings()).isEmpty();
    Device amd = assertOnlyChanged(r, AMD);
    assertThat(amd.capacity()).isEmpty();
    assertThat(amd.attributes()).isEqualTo(intact.get(AMD).attributes());
  }

  @Test
  void missingPciIdsMeansNoNamesFromIt() {
    tree.delete(AccelNode.PCI_IDS);
    DiscoveryResult r = discover();
    assertThat(r.warnings()).isEmpty();
    assertThat(byName(r).get(IGPU).attributes()).isEqualTo(withoutKeys(intact.get(IGPU), PRODUCT_NAME));
    assertThat(byName(r).get(XE).attributes()).isEqualTo(withoutKeys(intact.get(XE), PRODUCT_NAME));
    assertThat(byName(r).get(AMD)).isEqualTo(intact.get(AMD)); // its name is its own
  }

  @Test
  void hwdataPciIdsIsTheSecondPlaceToLook() throws Exception {
    Files.createDirectories(tree.path("usr/share/hwdata"));
    Files.move(tree.path(AccelNode.PCI_IDS), tree.path("usr/share/hwdata/pci.ids"));
    DiscoveryResult r = discover();
    assertThat(r.warnings()).isEmpty();
    assertThat(byName(r)).isEqualTo(intact);
  }

  @Test
  void missingDevFileCostsThatNodeOnly() {
    tree.delete(AccelNode.INTEL_IGPU + "/drm/renderD128/dev");
    DiscoveryResult r = discover();
    assertThat(r.warnings()).isEmpty();
    assertThat(assertOnlyChanged(r, IGPU).containerEdits().deviceNodes())
        .containsExactly(DeviceNode.charDevice("/dev/dri/card0", 226, 0));
  }

  @Test
  void missingKfdCostsKfdWithOneWarning() {
    tree.delete("sys/class/kfd/kfd");
    DiscoveryResult r = discover();
    assertOneWarning(r, "/sys/class/kfd/kfd/dev: missing, so amdgpu devices get no /dev/kfd");
    assertThat(assertOnlyChanged(r, AMD).containerEdits().deviceNodes()).containsExactly(
        DeviceNode.charDevice("/dev/dri/card1", 226, 1), DeviceNode.charDevice("/dev/dri/renderD129", 226, 129));
  }

  @Test
  void missingBusEntryStillFindsTheFunctionThroughTheMinor() {
    tree.delete("sys/bus/pci/devices/0000:03:00.0");
    DiscoveryResult r = discover();
    assertThat(r.warnings()).isEmpty();
    assertThat(byName(r)).isEqualTo(intact);
  }

  // --- garbage in each parsed file: one warning, that fact -----------------------------------------

  @Test
  void garbageDevCostsThatNode() {
    tree.value(AccelNode.AMD_GPU + "/drm/renderD129/dev", "226-129");
    DiscoveryResult r = discover();
    assertOneWarning(r, "/sys/devices/pci0000:00/0000:00:01.1/0000:01:00.0/0000:02:00.0/0000:03:00.0/drm/renderD129/dev:"
        + " not understood: not \"major:minor\"");
    Device amd = assertOnlyChanged(r, AMD);
    assertThat(amd.containerEdits().deviceNodes()).containsExactly(
        DeviceNode.charDevice("/dev/dri/card1", 226, 1), DeviceNode.charDevice("/dev/kfd", 235, 0));
    assertThat(amd.attributes()).isEqualTo(intact.get(AMD).attributes());
  }

  @Test
  void devNumberOutsideDevTCostsThatNode() {
    tree.value(AccelNode.INTEL_IGPU + "/drm/card0/dev", "226:1048576");
    DiscoveryResult r = discover();
    assertOneWarning(r, "/sys/devices/pci0000:00/0000:00:02.0/drm/card0/dev: not understood: device number 226:1048576 is outside dev_t");
    assertThat(assertOnlyChanged(r, IGPU).containerEdits().deviceNodes())
        .containsExactly(DeviceNode.charDevice("/dev/dri/renderD128", 226, 128));
  }

  @Test
  void garbageVramCostsTheMemoryCapacity() {
    tree.value(AccelNode.AMD_GPU + "/mem_info_vram_total", "64 GiB");
    DiscoveryResult r = discover();
    assertOneWarning(r, "/sys/devices/pci0000:00/0000:00:01.1/0000:01:00.0/0000:02:00.0/0000:03:00.0/mem_info_vram_total:"
        + " not understood: not a byte count");
    Device amd = assertOnlyChanged(r, AMD);
    assertThat(amd.capacity()).isEmpty();
    assertThat(amd.attributes()).isEqualTo(intact.get(AMD).attributes());
  }

  @Test
  void vramBeyondAnyMemoryCostsTheMemoryCapacity() {
    tree.value(AccelNode.AMD_GPU + "/mem_info_vram_total", "18446744073709551615");
    DiscoveryResult r = discover();
    assertOneWarning(r, "/sys/devices/pci0000:00/0000:00:01.1/0000:01:00.0/0000:02:00.0/0000:03:00.0/mem_info_vram_total:");
    assertThat(assertOnlyChanged(r, AMD).capacity()).isEmpty();
  }

  @Test
  void garbageVisibleVramCostsThatAttribute() {
    tree.value(AccelNode.AMD_GPU + "/mem_info_vis_vram_total", "-1");
    DiscoveryResult r = discover();
    assertOneWarning(r, "/sys/devices/pci0000:00/0000:00:01.1/0000:01:00.0/0000:02:00.0/0000:03:00.0/mem_info_vis_vram_total:");
    Device amd = assertOnlyChanged(r, AMD);
    assertThat(amd.attributes()).isEqualTo(withoutKeys(intact.get(AMD), VISIBLE_MEMORY_BYTES));
    assertThat(amd.capacity()).isEqualTo(intact.get(AMD).capacity());
  }

  @Test
  void garbageInOneXeTileCostsTheWholeMemoryNotHalfOfIt() {
    tree.value(AccelNode.INTEL_XE + "/tile1/physical_vram_size_bytes", "0x1000000000");
    DiscoveryResult r = discover();
    assertOneWarning(r, "/sys/devices/pci0000:40/0000:40:01.1/0000:41:00.0/tile1/physical_vram_size_bytes: not understood");
    Device xe = assertOnlyChanged(r, XE);
    assertThat(xe.capacity()).isEmpty();
    assertThat(xe.attributes()).isEqualTo(intact.get(XE).attributes());
  }

  @Test
  void oneXeTileIsNotTwo() {
    tree.delete(AccelNode.INTEL_XE + "/tile1/physical_vram_size_bytes");
    DiscoveryResult r = discover();
    assertThat(r.warnings()).isEmpty();
    assertThat(assertOnlyChanged(r, XE).capacity()).containsEntry(MEMORY, Quantity.of(AccelNode.XE_TILE_VRAM));
  }

  @Test
  void garbageUniqueIdCostsThatAttribute() {
    tree.value(AccelNode.AMD_GPU + "/unique_id", "0de1a7c4-d3f5a2b1");
    DiscoveryResult r = discover();
    assertOneWarning(r, "/sys/devices/pci0000:00/0000:00:01.1/0000:01:00.0/0000:02:00.0/0000:03:00.0/unique_id:"
        + " not understood: not a 64-bit hex id");
    assertThat(assertOnlyChanged(r, AMD).attributes()).isEqualTo(withoutKeys(intact.get(AMD), UNIQUE_ID));
  }

  @Test
  void controlCharactersInTheBoardNameFallBackToPciIds() {
    tree.value(AccelNode.AMD_GPU + "/product_name", "AMD Instinct\u001b[31m MI210");
    DiscoveryResult r = discover();
    assertOneWarning(r, "/sys/devices/pci0000:00/0000:00:01.1/0000:01:00.0/0000:02:00.0/0000:03:00.0/product_name:"
        + " not understood: contains control or invisible characters: \"AMD Instinct\\x1b[31m MI210\"");
    Device amd = assertOnlyChanged(r, AMD);
    assertThat(amd.attributes()).containsEntry(PRODUCT_NAME, AttributeValue.string("Aldebaran/MI200 [Instinct MI210]"));
    assertThat(withoutKeys(amd, PRODUCT_NAME)).isEqualTo(withoutKeys(intact.get(AMD), PRODUCT_NAME));
  }

  @Test
  void serialLongerThanAResourceSliceAllowsCostsThatAttribute() {
    tree.value(AccelNode.AMD_GPU + "/serial_number", "S".repeat(65));
    DiscoveryResult r = discover();
    assertOneWarning(r, "device accel-0000-03-00-0: nodeatlas.io/serial left out: the value is 65 bytes");
    assertThat(assertOnlyChanged(r, AMD).attributes()).isEqualTo(withoutKeys(intact.get(AMD), SERIAL));
  }

  @Test
  void garbageVendorIdCostsTheIdsAndWhatDependsOnThem() {
    tree.value(AccelNode.INTEL_IGPU + "/vendor", "intel");
    DiscoveryResult r = discover();
    assertOneWarning(r, "/sys/devices/pci0000:00/0000:00:02.0/vendor: not understood: not a 4-digit hex id");
    Device igpu = assertOnlyChanged(r, IGPU);
    assertThat(igpu.attributes()).isEqualTo(withoutKeys(intact.get(IGPU), VENDOR, PciFunctionFacts.PCI_VENDOR_ID, PRODUCT_NAME));
    assertThat(igpu.containerEdits()).isEqualTo(intact.get(IGPU).containerEdits());
  }

  @Test
  void garbageKfdDevCostsKfd() {
    tree.value("sys/devices/virtual/kfd/kfd/dev", "kfd");
    DiscoveryResult r = discover();
    assertOneWarning(r, "/sys/class/kfd/kfd/dev: not understood: not \"major:minor\"");
    assertThat(assertOnlyChanged(r, AMD).containerEdits().deviceNodes()).extracting(DeviceNode::path)
        .containsExactly("/dev/dri/card1", "/dev/dri/renderD129");
  }

  @Test
  void garbagePciIdsCostsItsNames() {
    tree.bytes(AccelNode.PCI_IDS, new byte[] {0x7f, 'E', 'L', 'F', 2, 1, 1, 0, '\n', (byte) 0xff, (byte) 0xfe});
    DiscoveryResult r = discover();
    assertOneWarning(r, "/usr/share/misc/pci.ids: not understood: not a pci.ids database: no vendor line");
    assertThat(byName(r).get(IGPU).attributes()).isEqualTo(withoutKeys(intact.get(IGPU), PRODUCT_NAME));
    assertThat(byName(r).get(XE).attributes()).isEqualTo(withoutKeys(intact.get(XE), PRODUCT_NAME));
  }

  @Test
  void aMalformedPciIdsLineCostsThatLine() throws Exception {
    String text = Files.readString(tree.path(AccelNode.PCI_IDS));
    tree.file(AccelNode.PCI_IDS, text.replace("\t4680  AlderLake-S GT1", "\t4680 AlderLake-S GT1")
        .replace("10de  NVIDIA", "10de NVIDIA"));
    DiscoveryResult r = discover();
    assertOneWarning(r, "/usr/share/misc/pci.ids: 2 malformed line(s) passed over, the first is line 13");
    assertThat(assertOnlyChanged(r, IGPU).attributes()).isEqualTo(withoutKeys(intact.get(IGPU), PRODUCT_NAME));
  }

  @Test
  void directoryWhereAValueBelongs() {
    tree.delete(AccelNode.AMD_GPU + "/mem_info_vram_total").dir(AccelNode.AMD_GPU + "/mem_info_vram_total");
    DiscoveryResult r = discover();
    assertOneWarning(r, "/sys/devices/pci0000:00/0000:00:01.1/0000:01:00.0/0000:02:00.0/0000:03:00.0/mem_info_vram_total:"
        + " is a directory");
    assertThat(assertOnlyChanged(r, AMD).capacity()).isEmpty();
  }

  @Test
  void fifoWhereAValueBelongsIsNeverOpened() throws Exception {
    Path fifo = tree.path(AccelNode.INTEL_XE + "/drm/card2/dev");
    Files.delete(fifo);
    assertThat(new ProcessBuilder("mkfifo", fifo.toString()).start().waitFor()).isZero();
    DiscoveryResult r = discover();
    assertOneWarning(r, "/sys/devices/pci0000:40/0000:40:01.1/0000:41:00.0/drm/card2/dev: not a regular file");
    assertThat(assertOnlyChanged(r, XE).containerEdits().deviceNodes())
        .containsExactly(DeviceNode.charDevice("/dev/dri/renderD130", 226, 130));
  }

  // --- links: loops, dangling, escaping the host root ----------------------------------------------

  @Test
  void classEntryThatLoopsCostsThatMinor() {
    tree.symlink("sys/class/drm/card9", "card9");
    DiscoveryResult r = discover();
    assertOneWarning(r, "/sys/class/drm/card9: leads to no directory (to \"/sys/class/drm/card9\"");
    assertThat(byName(r)).isEqualTo(intact);
  }

  @Test
  void deviceLinkThatLoopsCostsThatMinor() {
    tree.symlink(AccelNode.AMD_GPU + "/drm/card1/device", "device");
    DiscoveryResult r = discover();
    assertOneWarning(r, "/sys/devices/pci0000:00/0000:00:01.1/0000:01:00.0/0000:02:00.0/0000:03:00.0/drm/card1/device:"
        + " leads to no directory");
    Device amd = assertOnlyChanged(r, AMD);
    assertThat(amd.containerEdits().deviceNodes()).extracting(DeviceNode::path)
        .containsExactly("/dev/dri/renderD129", "/dev/kfd");
    assertThat(amd.attributes()).isEqualTo(intact.get(AMD).attributes());
  }

  @Test
  void danglingDeviceLinkCostsThatMinor() {
    tree.symlink(AccelNode.INTEL_XE + "/drm/card2/device", "../../../0000:42:00.0");
    DiscoveryResult r = discover();
    assertOneWarning(r, "/sys/devices/pci0000:40/0000:40:01.1/0000:41:00.0/drm/card2/device: leads to no directory");
    assertThat(assertOnlyChanged(r, XE).containerEdits().deviceNodes()).extracting(DeviceNode::path)
        .containsExactly("/dev/dri/renderD130");
  }

  @Test
  void aGpuWhoseRenderNodeCannotBeTracedLooksLikeADisplayAdapter() {
    // The render minor is the evidence that the function renders; without it the GPU is left out,
    // and the one warning says why.
    tree.symlink(AccelNode.INTEL_XE + "/drm/renderD130/device", "../../../0000:42:00.0");
    DiscoveryResult r = discover();
    assertOneWarning(r, "/sys/devices/pci0000:40/0000:40:01.1/0000:41:00.0/drm/renderD130/device: leads to no directory");
    assertThat(byName(r)).doesNotContainKey(XE).containsOnlyKeys(AMD, IGPU);
    assertThat(byName(r).get(AMD)).isEqualTo(intact.get(AMD));
    assertThat(byName(r).get(IGPU)).isEqualTo(intact.get(IGPU));
  }

  @Test
  void classEntryEscapingTheHostRootIsNotFollowed(@TempDir Path outside) {
    FixtureTree.at(outside).value("drm/card9/dev", "226:9").symlink("drm/card9/device", "../../gpu/0000:09:00.0")
        .value("gpu/0000:09:00.0/vendor", "0x1002");
    Path classDir = tree.path("sys/class/drm");
    tree.symlink("sys/class/drm/card9", classDir.relativize(outside.resolve("drm/card9")).toString());
    DiscoveryResult r = discover();
    assertOneWarning(r, "/sys/class/drm/card9: points outside the host root");
    assertThat(byName(r)).isEqualTo(intact);
  }

  @Test
  void absoluteLinkEscapingTheHostRootIsNotRead() {
    tree.symlink(AccelNode.AMD_GPU + "/product_name", "/etc/passwd");
    DiscoveryResult r = discover();
    assertOneWarning(r, "/sys/devices/pci0000:00/0000:00:01.1/0000:01:00.0/0000:02:00.0/0000:03:00.0/product_name:"
        + " resolves outside the host root");
    assertThat(assertOnlyChanged(r, AMD).attributes())
        .containsEntry(PRODUCT_NAME, AttributeValue.string("Aldebaran/MI200 [Instinct MI210]"));
  }

  @Test
  void absoluteClassLinkIntoSysIsTheHostsSys() {
    tree.symlink("sys/class/drm/card0", "/sys/devices/pci0000:00/0000:00:02.0/drm/card0");
    DiscoveryResult r = discover();
    assertThat(r.warnings()).isEmpty();
    assertThat(byName(r)).isEqualTo(intact);
  }

  @Test
  void classDirectoryThatIsAFileIsOneWarningAndNoDevices() throws Exception {
    try (var paths = Files.walk(tree.path("sys/class/drm"))) {
      paths.sorted(java.util.Comparator.reverseOrder()).forEach(p -> p.toFile().delete());
    }
    tree.file("sys/class/drm", "not a directory\n");
    DiscoveryResult r = discover();
    assertOneWarning(r, "/sys/class/drm: not a directory");
    assertThat(r.devices()).isEmpty();
  }
}
