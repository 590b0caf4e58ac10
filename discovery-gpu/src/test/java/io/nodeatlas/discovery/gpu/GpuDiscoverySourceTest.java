package io.nodeatlas.discovery.gpu;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import io.nodeatlas.discovery.host.HostContext;
import io.nodeatlas.discovery.host.HostFs;
import io.nodeatlas.discovery.host.SourceOptions;
import io.nodeatlas.discovery.model.AttributeValue;
import io.nodeatlas.discovery.model.ContainerEdits.DeviceNode;
import io.nodeatlas.discovery.model.ContainerEdits.Mount;
import io.nodeatlas.discovery.model.Device;
import io.nodeatlas.discovery.model.Quantity;
import io.nodeatlas.discovery.engine.AttributeCatalogue;
import io.nodeatlas.discovery.spi.Availability;
import io.nodeatlas.discovery.spi.DiscoveryException;
import io.nodeatlas.discovery.spi.DiscoveryResult;
import io.nodeatlas.discovery.engine.DiscoverySources;
import io.nodeatlas.discovery.report.DiscoveryWarning;
import io.nodeatlas.discovery.host.SourceSetting;
import io.nodeatlas.discovery.testing.FixtureTree;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Clock;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.Set;
import java.util.TreeMap;
import java.util.TreeSet;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * The {@code gpu} source end to end: real JNA into the fake {@code libnvidia-ml.so.1}, host files
 * from a fixture tree. Every scenario checks that nvmlInit and nvmlShutdown were paired.
 */
class GpuDiscoverySourceTest {

  @TempDir Path host;
  @TempDir Path confDir;
  @TempDir Path outside;

  private final GpuDiscoverySource source = new GpuDiscoverySource();

  @BeforeEach
  void hostTree() {
    FixtureTree.at(host)
        .symlink("sys/bus/pci/devices/0000:18:00.0", "../../../devices/pci0000:17/0000:17:01.0/0000:18:00.0")
        .value("sys/devices/pci0000:17/0000:17:01.0/0000:18:00.0/numa_node", 0)
        .value("sys/devices/pci0000:17/0000:17:01.0/0000:18:00.0/vendor", "0x10de")
        .value("sys/devices/pci0000:17/0000:17:01.0/0000:18:00.0/device", "0x2330")
        .value("sys/devices/pci0000:17/0000:17:01.0/0000:18:00.0/class", "0x030200")
        .value("sys/devices/pci0000:17/0000:17:01.0/0000:18:00.0/current_link_speed", "32.0 GT/s PCIe")
        .value("sys/devices/pci0000:17/0000:17:01.0/0000:18:00.0/current_link_width", 16)
        .symlink("sys/devices/pci0000:17/0000:17:01.0/0000:18:00.0/driver", "../../../../bus/pci/drivers/nvidia")
        .dir("sys/bus/pci/drivers/nvidia")
        .symlink("sys/bus/pci/devices/0000:68:00.0", "../../../devices/pci0000:64/0000:64:02.0/0000:68:00.0")
        .value("sys/devices/pci0000:64/0000:64:02.0/0000:68:00.0/numa_node", -1)
        .file("proc/devices", "Character devices:\n  1 mem\n195 nvidia-frontend\n235 nvidia-caps\n510 nvidia-uvm\n\n"
            + "Block devices:\n  8 sd\n")
        .file("proc/driver/nvidia-caps/mig-minors", "config 1\nmonitor 2\ngpu0/gi9/access 84\ngpu0/gi9/ci0/access 85\n"
            + "gpu3/gi1/access 417\n")
        .file("dev/nvidia0", "")
        .file("dev/nvidia3", "")
        .file("dev/nvidiactl", "")
        .file("dev/nvidia-uvm", "")
        .file("dev/nvidia-uvm-tools", "")
        .file("usr/lib/x86_64-linux-gnu/libcuda.so.550.54.15", "")
        .symlink("usr/lib/x86_64-linux-gnu/libcuda.so.1", "libcuda.so.550.54.15")
        .file("usr/lib/x86_64-linux-gnu/libnvidia-ml.so.550.54.15", "")
        .file("usr/lib/x86_64-linux-gnu/libnvidia-ptxjitcompiler.so.550.54.15", "")
        .file("usr/bin/nvidia-smi", "");
  }

  @AfterEach
  void everyInitWasShutDown() {
    assertThat(FakeNvml.initCount()).as("nvmlInit/nvmlShutdown pairs").isZero();
  }

  private HostContext context(Map<String, String> options) {
    return new HostContext(HostFs.of(host), new SourceOptions(options), Clock.systemUTC());
  }

  private HostContext withFake() {
    return context(Map.of("gpu.nvmlLibrary", FakeNvml.library().toString()));
  }

  private DiscoveryResult discover(FakeNvml.Config config) throws DiscoveryException {
    config.install(confDir);
    HostContext ctx = withFake();
    assertThat(source.availability(ctx)).isEqualTo(Availability.ok());
    return source.discover(ctx);
  }

  private static Map<String, Object> attributes(Device d) {
    Map<String, Object> out = new TreeMap<>();
    d.attributes().forEach((k, v) -> out.put(k, v.asObject()));
    return out;
  }

  /** A read-only bind mount of a host path at the same path in the container (a driver root of {@code /}). */
  private static Mount sameBind(String path) {
    return Mount.readOnlyBind(path, path);
  }

  private static Device device(DiscoveryResult r, String name) {
    return r.devices().stream().filter(d -> d.name().equals(name)).findFirst()
        .orElseThrow(() -> new AssertionError("no device " + name + " in " + r.devices()));
  }

  private static List<String> messages(DiscoveryResult r) {
    return r.warnings().stream().map(DiscoveryWarning::message).toList();
  }

  @Test
  void publishesEveryGpuAndMigDeviceWithDraAttributes() throws Exception {
    DiscoveryResult r = discover(FakeNvml.twoGpus());

    assertThat(r.warnings()).isEmpty();
    assertThat(r.devices()).extracting(Device::name).containsExactly("gpu-0", "gpu-0-mig-9-0", "gpu-3");

    Device h100 = device(r, "gpu-0");
    assertThat(h100.source()).isEqualTo("gpu");
    assertThat(attributes(h100)).isEqualTo(new TreeMap<>(Map.ofEntries(
        Map.entry("nodeatlas.io/type", "gpu"),
        Map.entry("nodeatlas.io/uuid", "GPU-6c6f1d3e-1b6e-4b5f-9c1e-5b8a4f0e2a11"),
        Map.entry("nodeatlas.io/productName", "NVIDIA H100 80GB HBM3"),
        Map.entry("nodeatlas.io/brand", "nvidia"),
        Map.entry("nodeatlas.io/architecture", "hopper"),
        Map.entry("nodeatlas.io/cudaComputeCapability", "9.0.0"),
        Map.entry("nodeatlas.io/driverVersion", "550.54.15"),
        Map.entry("nodeatlas.io/cudaDriverVersion", "12.4.0"),
        Map.entry("nodeatlas.io/minor", 0L),
        Map.entry("nodeatlas.io/serial", "1654922004211"),
        Map.entry("nodeatlas.io/boardPartNumber", "692-2G520-0200-000"),
        Map.entry("nodeatlas.io/vbiosVersion", "96.00.74.00.01"),
        Map.entry("nodeatlas.io/migEnabled", true),
        // The PCI function: address, ids and subsystem from NVML, the rest from sysfs.
        Map.entry("resource.kubernetes.io/pciBusID", "0000:18:00.0"),
        Map.entry("resource.kubernetes.io/pcieRoot", "pci0000:17"),
        Map.entry("resource.kubernetes.io/numaNode", 0L),
        Map.entry("nodeatlas.io/pciVendorID", "10de"),
        Map.entry("nodeatlas.io/pciDeviceID", "2330"),
        Map.entry("nodeatlas.io/pciSubsystemVendorID", "10de"),
        Map.entry("nodeatlas.io/pciSubsystemDeviceID", "16c1"),
        Map.entry("nodeatlas.io/kernelDriver", "nvidia"),
        Map.entry("nodeatlas.io/pcieLinkSpeed", "32.0 GT/s"),
        Map.entry("nodeatlas.io/pcieLinkWidth", 16L))));
    assertThat(h100.allowMultipleAllocations()).as("a GPU is exclusive").isFalse();
    assertThat(h100.requestPolicies()).isEmpty();
    assertThat(h100.attribute("nodeatlas.io/driverVersion")).contains(AttributeValue.version("550.54.15"));
    assertThat(h100.capacity()).containsExactly(Map.entry("nodeatlas.io/memory", Quantity.of(85520809984L)));
    assertThat(h100.containerEdits().deviceNodes()).containsExactly(
        DeviceNode.charDevice("/dev/nvidia0", 195, 0),
        DeviceNode.charDevice("/dev/nvidiactl", 195, 255),
        DeviceNode.charDevice("/dev/nvidia-uvm", 510, 0),
        DeviceNode.charDevice("/dev/nvidia-uvm-tools", 510, 1));
    assertThat(h100.containerEdits().mounts()).containsExactly(
        sameBind("/usr/lib/x86_64-linux-gnu/libcuda.so.550.54.15"),
        sameBind("/usr/lib/x86_64-linux-gnu/libcuda.so.1"),
        sameBind("/usr/lib/x86_64-linux-gnu/libnvidia-ml.so.550.54.15"),
        sameBind("/usr/lib/x86_64-linux-gnu/libnvidia-ptxjitcompiler.so.550.54.15"),
        sameBind("/usr/bin/nvidia-smi"));

    Device mig = device(r, "gpu-0-mig-9-0");
    assertThat(attributes(mig)).containsAllEntriesOf(Map.of(
        "nodeatlas.io/type", "mig",
        "nodeatlas.io/uuid", "MIG-1f3c5a7e-0d2b-5c4a-8e6f-0a1b2c3d4e5f",
        "nodeatlas.io/parentUUID", "GPU-6c6f1d3e-1b6e-4b5f-9c1e-5b8a4f0e2a11",
        "nodeatlas.io/profile", "1g.10gb",
        "nodeatlas.io/gpuInstanceID", 9L,
        "nodeatlas.io/computeInstanceID", 0L,
        "nodeatlas.io/parentMinor", 0L,
        "nodeatlas.io/productName", "NVIDIA H100 80GB HBM3",
        "resource.kubernetes.io/pciBusID", "0000:18:00.0",
        "nodeatlas.io/cudaDriverVersion", "12.4.0"));
    assertThat(attributes(mig)).containsEntry("nodeatlas.io/brand", "nvidia")
        .containsEntry("resource.kubernetes.io/numaNode", 0L)
        .containsEntry("nodeatlas.io/pciDeviceID", "2330")
        .doesNotContainKeys("nodeatlas.io/serial", "nodeatlas.io/migEnabled", "nodeatlas.io/minor");
    assertThat(mig.allowMultipleAllocations()).as("a MIG device is exclusive").isFalse();
    assertThat(mig.requestPolicies()).isEmpty();
    assertThat(mig.capacity()).isEqualTo(new TreeMap<>(Map.of(
        "nodeatlas.io/memory", Quantity.of(10468982784L),
        "nodeatlas.io/multiprocessors", Quantity.of(16),
        "nodeatlas.io/copyEngines", Quantity.of(1),
        "nodeatlas.io/decoders", Quantity.of(1),
        "nodeatlas.io/encoders", Quantity.of(0),
        "nodeatlas.io/jpegEngines", Quantity.of(1),
        "nodeatlas.io/ofaEngines", Quantity.of(0))));
    assertThat(mig.containerEdits().deviceNodes()).containsExactly(
        DeviceNode.charDevice("/dev/nvidia0", 195, 0),
        DeviceNode.charDevice("/dev/nvidia-caps/nvidia-cap84", 235, 84),
        DeviceNode.charDevice("/dev/nvidia-caps/nvidia-cap85", 235, 85),
        DeviceNode.charDevice("/dev/nvidiactl", 195, 255),
        DeviceNode.charDevice("/dev/nvidia-uvm", 510, 0),
        DeviceNode.charDevice("/dev/nvidia-uvm-tools", 510, 1));

    Device a100 = device(r, "gpu-3");
    assertThat(attributes(a100)).containsEntry("nodeatlas.io/migEnabled", false)
        .containsEntry("nodeatlas.io/architecture", "ampere")
        .containsEntry("resource.kubernetes.io/pcieRoot", "pci0000:64")
        .containsEntry("nodeatlas.io/pciDeviceID", "20b2")
        .doesNotContainKeys("resource.kubernetes.io/numaNode", // numa_node -1 means no affinity
            "nodeatlas.io/pciSubsystemVendorID", "nodeatlas.io/kernelDriver"); // NVML said 0, sysfs nothing
    assertThat(a100.containerEdits().deviceNodes()).first().isEqualTo(DeviceNode.charDevice("/dev/nvidia3", 195, 3));
  }

  /**
   * The layout of a real H100 host (seen on a lent GPU machine): the driver under
   * {@code /usr/local/nvidia/lib64}, SONAME links in {@code /usr/lib} too, {@code /lib} and
   * {@code /bin} links into {@code /usr}, and the loader's cache naming both library directories.
   */
  @Test
  void librariesAreMountedFromTheDirectoriesTheLoadersCacheNamesAndEachDirectoryOnce() throws Exception {
    FixtureTree.at(host)
        .file("usr/local/nvidia/lib64/libcuda.so.550.54.15", "")
        .symlink("usr/local/nvidia/lib64/libcuda.so.1", "libcuda.so.550.54.15")
        .file("usr/local/nvidia/lib64/libnvidia-ml.so.550.54.15", "")
        .symlink("usr/local/nvidia/lib64/libnvidia-ml.so.1", "libnvidia-ml.so.550.54.15")
        .file("usr/local/nvidia/lib64/libnvidia-nvvm.so.550.54.15", "")
        .symlink("usr/local/nvidia/lib64/libnvidia-nvvm.so.4", "libnvidia-nvvm.so.550.54.15")
        .file("usr/local/nvidia/lib64/libnvidia-gpucomp.so.550.54.15", "")
        .symlink("usr/lib/libcuda.so.1", "../local/nvidia/lib64/libcuda.so.550.54.15")
        .symlink("lib", "usr/lib")
        .symlink("bin", "usr/bin")
        .bytes("etc/ld.so.cache", new LdSoCacheFile()
            .lib("libcuda.so.1", "/usr/local/nvidia/lib64/libcuda.so.1", LdSoCacheFile.X86_64)
            .lib("libcuda.so.1", "/usr/lib32/libcuda.so.1", LdSoCacheFile.I386)
            .lib("libcuda.so.1", "/lib/libcuda.so.1", LdSoCacheFile.X86_64)
            .lib("libnvidia-ml.so.1", "/usr/local/nvidia/lib64/libnvidia-ml.so.1", LdSoCacheFile.X86_64)
            // SONAMEs that are not .so.1: the NVVM ABI version, and the whole driver version.
            .lib("libnvidia-nvvm.so.4", "/usr/local/nvidia/lib64/libnvidia-nvvm.so.4", LdSoCacheFile.X86_64)
            .lib("libnvidia-gpucomp.so.550.54.15", "/usr/local/nvidia/lib64/libnvidia-gpucomp.so.550.54.15",
                LdSoCacheFile.X86_64)
            .bytes());
    DiscoveryResult r = discover(FakeNvml.twoGpus());

    assertThat(r.warnings()).isEmpty();
    assertThat(device(r, "gpu-0").containerEdits().mounts()).containsExactly(
        sameBind("/usr/local/nvidia/lib64/libcuda.so.550.54.15"),
        sameBind("/usr/local/nvidia/lib64/libcuda.so.1"),
        sameBind("/lib/libcuda.so.1"),
        sameBind("/usr/local/nvidia/lib64/libnvidia-gpucomp.so.550.54.15"),
        sameBind("/usr/local/nvidia/lib64/libnvidia-ml.so.550.54.15"),
        sameBind("/usr/local/nvidia/lib64/libnvidia-ml.so.1"),
        sameBind("/usr/local/nvidia/lib64/libnvidia-nvvm.so.550.54.15"),
        sameBind("/usr/local/nvidia/lib64/libnvidia-nvvm.so.4"),
        // Not in the cache: found in the fixed directories.
        sameBind("/usr/lib/x86_64-linux-gnu/libnvidia-ptxjitcompiler.so.550.54.15"),
        // Once, though /bin/nvidia-smi is the same file.
        sameBind("/usr/bin/nvidia-smi"));
  }

  @Test
  void aCacheNamingOnlyWhatIsGoneIsPassedOverForTheUsualDirectories() throws Exception {
    // The driver was reinstalled elsewhere and ldconfig not run since.
    FixtureTree.at(host).bytes("etc/ld.so.cache", new LdSoCacheFile()
        .lib("libcuda.so.1", "/opt/nvidia-old/lib64/libcuda.so.1", LdSoCacheFile.X86_64)
        .bytes());
    DiscoveryResult r = discover(FakeNvml.twoGpus());

    assertThat(r.warnings()).isEmpty();
    assertThat(device(r, "gpu-0").containerEdits().mounts()).startsWith(
        sameBind("/usr/lib/x86_64-linux-gnu/libcuda.so.550.54.15"),
        sameBind("/usr/lib/x86_64-linux-gnu/libcuda.so.1"));
  }

  @Test
  void aLibraryDirectoryLeadingOutOfTheRootsIsSkippedWithOneWarningForAllLibraries() throws Exception {
    FixtureTree.at(host).symlink("lib", outside.toString());
    DiscoveryResult r = discover(FakeNvml.twoGpus());

    assertThat(messages(r)).containsExactly("/lib: resolves outside the host root (to " + outside.toRealPath()
        + "); symlink not followed");
    assertThat(device(r, "gpu-0").containerEdits().mounts()).extracting(Mount::hostPath)
        .noneMatch(p -> p.startsWith("/lib/")).contains("/usr/lib/x86_64-linux-gnu/libcuda.so.1");
  }

  @Test
  void aCacheThatIsNotUnderstoodCostsOneWarningAndTheFixedDirectoriesAreSearchedEachOnce() throws Exception {
    FixtureTree.at(host)
        .file("etc/ld.so.cache", "ld.so.cache written by something else")
        .file("usr/lib/libnvidia-ml.so.550.54.15", "")
        .symlink("lib", "usr/lib")
        .symlink("lib64", "usr/lib/x86_64-linux-gnu")
        .symlink("bin", "usr/bin");
    DiscoveryResult r = discover(FakeNvml.twoGpus());

    assertThat(messages(r)).containsExactly(
        "/etc/ld.so.cache: not understood: not a glibc ld.so.cache (no glibc-ld.so.cache1.1 header)");
    assertThat(device(r, "gpu-3").containerEdits().mounts()).containsExactly(
        sameBind("/usr/lib/x86_64-linux-gnu/libcuda.so.550.54.15"),
        sameBind("/usr/lib/x86_64-linux-gnu/libcuda.so.1"),
        sameBind("/usr/lib/x86_64-linux-gnu/libnvidia-ml.so.550.54.15"),
        sameBind("/usr/lib/libnvidia-ml.so.550.54.15"),
        sameBind("/usr/lib/x86_64-linux-gnu/libnvidia-ptxjitcompiler.so.550.54.15"),
        sameBind("/usr/bin/nvidia-smi"));
  }

  @Test
  void outputIsTheSameOnEveryRun() throws Exception {
    assertThat(discover(FakeNvml.twoGpus())).isEqualTo(discover(FakeNvml.twoGpus()));
  }

  @Test
  void aFailingCallCostsOneFactAndOneWarning() throws Exception {
    DiscoveryResult r = discover(FakeNvml.twoGpus().set("device.0.error.nvmlDeviceGetSerial", "3"));

    assertThat(messages(r)).containsExactly(
        "GPU 0000:18:00.0: serial number not read: nvmlDeviceGetSerial: Not Supported (NVML_ERROR_NOT_SUPPORTED)");
    assertThat(device(r, "gpu-0").attributes()).doesNotContainKey("nodeatlas.io/serial")
        .containsKey("nodeatlas.io/uuid").containsKey("nodeatlas.io/vbiosVersion");
    assertThat(device(r, "gpu-3").attributes()).containsKey("nodeatlas.io/serial");
    assertThat(r.warnings()).allSatisfy(w -> assertThat(w.source()).isEqualTo("gpu"));
  }

  @Test
  void everyPerDeviceCallMayFailWithoutLosingTheGpu() throws Exception {
    String[] calls = {"nvmlDeviceGetPciInfo_v3", "nvmlDeviceGetUUID", "nvmlDeviceGetName", "nvmlDeviceGetBrand",
        "nvmlDeviceGetArchitecture", "nvmlDeviceGetCudaComputeCapability", "nvmlDeviceGetBoardPartNumber",
        "nvmlDeviceGetVbiosVersion", "nvmlDeviceGetMemoryInfo_v2", "nvmlDeviceGetMigMode"};
    for (String call : calls) {
      DiscoveryResult r = discover(FakeNvml.twoGpus().set("device.1.error." + call, "999"));
      assertThat(r.devices()).as(call).extracting(Device::name).containsExactly("gpu-0", "gpu-0-mig-9-0", "gpu-3");
      assertThat(messages(r)).as(call).singleElement().asString().contains(call + ": Unknown Error (NVML_ERROR_UNKNOWN)");
    }
  }

  @Test
  void aGpuWeMayNotOpenDoesNotHideTheOthers() throws Exception {
    DiscoveryResult r = discover(FakeNvml.twoGpus().set("device.0.error.nvmlDeviceGetHandleByIndex_v2", "4"));

    assertThat(r.devices()).extracting(Device::name).containsExactly("gpu-3");
    assertThat(messages(r)).containsExactly("GPU at NVML index 0 not published: "
        + "nvmlDeviceGetHandleByIndex_v2: Insufficient Permissions (NVML_ERROR_NO_PERMISSION)");
  }

  @Test
  void aLostGpuIsReportedAndTheOthersArePublished() throws Exception {
    DiscoveryResult r = discover(FakeNvml.twoGpus().set("device.0.lost", "1"));

    assertThat(r.devices()).extracting(Device::name).containsExactly("gpu-3");
    assertThat(messages(r)).containsExactly("GPU at NVML index 0 is lost (NVML_ERROR_GPU_IS_LOST) and not published; "
        + "the GPU needs a reset or the node a reboot");
  }

  @Test
  void aGpuLostHalfwayIsReportedWithWhatWasRead() throws Exception {
    DiscoveryResult r = discover(FakeNvml.twoGpus().set("device.1.error.nvmlDeviceGetSerial", "15"));

    assertThat(r.devices()).extracting(Device::name).containsExactly("gpu-0", "gpu-0-mig-9-0");
    assertThat(messages(r)).containsExactly("GPU 0000:68:00.0 (GPU-31515c3d-1414-7c2c-004a-f86a898946ac) minor 3 "
        + "is lost (NVML_ERROR_GPU_IS_LOST) and not published; the GPU needs a reset or the node a reboot");
  }

  @Test
  void aGpuWithoutMinorNumberCannotBeNamedAndIsReported() throws Exception {
    DiscoveryResult r = discover(FakeNvml.twoGpus().remove("device.1.minor"));

    assertThat(r.devices()).extracting(Device::name).containsExactly("gpu-0", "gpu-0-mig-9-0");
    assertThat(messages(r)).containsExactly(
        "GPU 0000:68:00.0: minor number not read: nvmlDeviceGetMinorNumber: Not Supported (NVML_ERROR_NOT_SUPPORTED)",
        "GPU 0000:68:00.0 (GPU-31515c3d-1414-7c2c-004a-f86a898946ac) not published: its minor number (/dev/nvidiaN) is unknown");
  }

  @Test
  void migOffPublishesOnlyTheGpu() throws Exception {
    DiscoveryResult r = discover(FakeNvml.twoGpus().set("device.0.mig.mode", "0"));

    assertThat(r.warnings()).isEmpty();
    assertThat(r.devices()).extracting(Device::name).containsExactly("gpu-0", "gpu-3");
    assertThat(device(r, "gpu-0").attributes()).containsEntry("nodeatlas.io/migEnabled", AttributeValue.of(false));
  }

  @Test
  void aGpuThatIsNotMigCapableHasMigDisabledAndNoWarning() throws Exception {
    DiscoveryResult r = discover(FakeNvml.twoGpus().remove("device.1.mig.mode"));

    assertThat(r.warnings()).isEmpty();
    assertThat(device(r, "gpu-3").attributes()).containsEntry("nodeatlas.io/migEnabled", AttributeValue.of(false));
  }

  @Test
  void aFailedMigModeReadLeavesMigEnabledOutRatherThanGuessing() throws Exception {
    DiscoveryResult r = discover(FakeNvml.twoGpus().set("device.1.error.nvmlDeviceGetMigMode", "999"));

    assertThat(messages(r)).containsExactly(
        "GPU 0000:68:00.0: MIG mode not read: nvmlDeviceGetMigMode: Unknown Error (NVML_ERROR_UNKNOWN)");
    assertThat(device(r, "gpu-3").attributes()).doesNotContainKey("nodeatlas.io/migEnabled");
  }

  @Test
  void migSlotsWithHolesAreWalkedAndFailingMigDevicesAreReported() throws Exception {
    DiscoveryResult r = discover(FakeNvml.twoGpus()
        .set("device.0.mig.count", "3")
        .set("device.0.mig.0.index", "2")
        .set("device.0.mig.1.index", "5")
        .set("device.0.mig.1.uuid", "MIG-00000001-0000-0000-0000-000000000001")
        .set("device.0.mig.1.gi", "3")
        .set("device.0.mig.1.ci", "0")
        .set("device.0.mig.1.profile", "2g.20gb")
        .set("device.0.mig.1.memory.total", "21072183296")
        .set("device.0.mig.2.index", "6")
        .set("device.0.mig.2.error.nvmlDeviceGetMigDeviceHandleByIndex", "4"));

    assertThat(r.devices()).extracting(Device::name)
        .containsExactly("gpu-0", "gpu-0-mig-3-0", "gpu-0-mig-9-0", "gpu-3");
    assertThat(messages(r)).containsExactly(
        "GPU 0000:18:00.0 MIG device 6 not read: nvmlDeviceGetMigDeviceHandleByIndex: Insufficient Permissions "
            + "(NVML_ERROR_NO_PERMISSION)",
        "/proc/driver/nvidia-caps/mig-minors: no gpu0/gi3/access; gpu-0-mig-3-0 gets no capability device node",
        "/proc/driver/nvidia-caps/mig-minors: no gpu0/gi3/ci0/access; gpu-0-mig-3-0 gets no capability device node");
    assertThat(device(r, "gpu-0-mig-3-0").attributes())
        .containsEntry("nodeatlas.io/profile", AttributeValue.string("2g.20gb"));
  }

  @Test
  void aMigDeviceWithoutInstanceIdsIsReported() throws Exception {
    DiscoveryResult r = discover(FakeNvml.twoGpus().set("device.0.mig.0.error.nvmlDeviceGetGpuInstanceId", "3"));

    assertThat(r.devices()).extracting(Device::name).containsExactly("gpu-0", "gpu-3");
    assertThat(messages(r)).containsExactly(
        "GPU 0000:18:00.0 MIG device 0: GPU instance id not read: nvmlDeviceGetGpuInstanceId: Not Supported "
            + "(NVML_ERROR_NOT_SUPPORTED)",
        "GPU 0000:18:00.0 MIG device 0 not published: its GPU/compute instance ids are unknown");
  }

  @Test
  void missingHostFilesCostTheirFactsOnly() throws Exception {
    FixtureTree.at(host).delete("proc/devices").delete("proc/driver/nvidia-caps/mig-minors").delete("dev/nvidia3");
    DiscoveryResult r = discover(FakeNvml.twoGpus());

    assertThat(r.devices()).extracting(Device::name).containsExactly("gpu-0", "gpu-0-mig-9-0", "gpu-3");
    assertThat(messages(r)).containsExactly(
        "/proc/driver/nvidia-caps/mig-minors: missing or without capabilities; MIG devices get no capability device nodes",
        "/dev/nvidia3: does not exist; containers of gpu-3 get no GPU device node");
    // Without /proc/devices the runtime is left to stat the host nodes.
    assertThat(device(r, "gpu-0").containerEdits().deviceNodes()).first()
        .isEqualTo(new DeviceNode("/dev/nvidia0", null, null, null, null, null, null, null, null));
    assertThat(device(r, "gpu-3").containerEdits().deviceNodes()).extracting(DeviceNode::path)
        .containsExactly("/dev/nvidiactl", "/dev/nvidia-uvm", "/dev/nvidia-uvm-tools");
  }

  @Test
  void brokenHostFilesCostOneFactEachAndSayWhichHostFile() throws Exception {
    FixtureTree.at(host)
        .value("sys/devices/pci0000:17/0000:17:01.0/0000:18:00.0/numa_node", "x")
        .file("proc/devices", "Character devices:\n  1 mem\ngarbage here\n195 nvidia-frontend\n510 nvidia-uvm\n")
        .file("proc/driver/nvidia-caps/mig-minors", "config 1\ngpu0/gi9\ngpu0/gi9/access 84\ngpu0/gi9/ci0/access 85\n");
    DiscoveryResult r = discover(FakeNvml.twoGpus());

    assertThat(r.devices()).extracting(Device::name).containsExactly("gpu-0", "gpu-0-mig-9-0", "gpu-3");
    assertThat(messages(r)).containsExactly(
        "/sys/devices/pci0000:17/0000:17:01.0/0000:18:00.0/numa_node: not understood: not a NUMA node id: \"x\" (1 chars)",
        "/proc/devices: line 3 left out: not \"<major> <name>\" or \"<section>:\": \"garbage here\" (12 chars)",
        "/proc/driver/nvidia-caps/mig-minors: line 2 left out: not \"<capability> <minor>\": \"gpu0/gi9\" (8 chars)",
        "/proc/devices: no nvidia-caps major; gpu-0-mig-9-0 gets no /dev/nvidia-caps/nvidia-cap84",
        "/proc/devices: no nvidia-caps major; gpu-0-mig-9-0 gets no /dev/nvidia-caps/nvidia-cap85");
    assertThat(device(r, "gpu-0").attributes()).doesNotContainKey("resource.kubernetes.io/numaNode")
        .containsKey("resource.kubernetes.io/pcieRoot");
    // The good lines still count: the nvidia and uvm majors are known.
    assertThat(device(r, "gpu-0").containerEdits().deviceNodes()).first()
        .isEqualTo(DeviceNode.charDevice("/dev/nvidia0", 195, 0));
  }

  /**
   * Moves GPU 0 ({@code 0000:18:00.0}) behind a PCIe switch, as on HGX boards: root port
   * {@code 0000:15:01.0}, switch upstream port {@code 0000:16:00.0}, downstream port {@code 0000:17:00.0}.
   */
  private void gpu0BehindAPcieSwitch() {
    String sw = "sys/devices/pci0000:15/0000:15:01.0/0000:16:00.0";
    String gpu = sw + "/0000:17:00.0/0000:18:00.0";
    FixtureTree.at(host)
        .value("sys/devices/pci0000:15/0000:15:01.0/class", "0x060400")
        .value(sw + "/class", "0x060400")
        .value(sw + "/0000:17:00.0/class", "0x060400")
        .value(sw + "/0000:17:01.0/class", "0x060400")
        .value(gpu + "/numa_node", 0)
        .value(gpu + "/vendor", "0x10de")
        .value(gpu + "/device", "0x2330")
        .value(gpu + "/class", "0x030200")
        .symlink("sys/bus/pci/devices/0000:18:00.0", "../../../devices/pci0000:15/0000:15:01.0/0000:16:00.0/0000:17:00.0/0000:18:00.0");
  }

  @Test
  void aGpuBehindAPcieSwitchAndItsMigDevicesCarryTheSwitch() throws Exception {
    gpu0BehindAPcieSwitch();
    DiscoveryResult r = discover(FakeNvml.twoGpus());
    assertThat(r.warnings()).isEmpty();
    assertThat(attributes(device(r, "gpu-0"))).containsEntry("nodeatlas.io/pcieSwitch", "0000:16:00.0")
        .containsEntry("resource.kubernetes.io/pcieRoot", "pci0000:15");
    assertThat(attributes(device(r, "gpu-0-mig-9-0"))).containsEntry("nodeatlas.io/pcieSwitch", "0000:16:00.0");
    assertThat(attributes(device(r, "gpu-3"))).as("on a root port").doesNotContainKey("nodeatlas.io/pcieSwitch");
    assertThat(AttributeCatalogue.undocumented(source.catalogue(), r.devices())).isEmpty();
  }

  @Test
  void everyPublishedAttributeIsCataloguedAndEveryCataloguedOneIsPublished() throws Exception {
    List<FakeNvml.Config> configurations = List.of(
        FakeNvml.twoGpus(),
        FakeNvml.twoGpus().set("device.0.mig.mode", "0"),
        FakeNvml.twoGpus().remove("device.1.mig.mode"),
        FakeNvml.twoGpus().set("device.0.error.nvmlDeviceGetSerial", "3"),
        FakeNvml.twoGpus().set("device.0.mig.count", "2").set("device.0.mig.1.index", "5")
            .set("device.0.mig.1.uuid", "MIG-00000001-0000-0000-0000-000000000001").set("device.0.mig.1.gi", "3")
            .set("device.0.mig.1.ci", "0").set("device.0.mig.1.profile", "2g.20gb")
            .set("device.0.mig.0.error.nvmlDeviceGetMemoryInfo_v2", "3"));
    Set<String> published = new TreeSet<>();
    for (FakeNvml.Config configuration : configurations) {
      List<Device> devices = discover(configuration).devices();
      if (configuration == configurations.get(0)) {
        gpu0BehindAPcieSwitch();
        devices = new java.util.ArrayList<>(devices);
        devices.addAll(discover(configuration).devices());
      }
      assertThat(AttributeCatalogue.undocumented(source.catalogue(), devices)).as(configuration.text()).isEmpty();
      devices.forEach(d -> {
        d.attributes().keySet().forEach(k -> published.add(d.type().orElseThrow() + " " + k));
        d.capacity().keySet().forEach(k -> published.add(d.type().orElseThrow() + " " + k));
      });
    }
    // MIG partitions (--gpu-mig-partitions) on the recorded H200 with MIG mode on.
    FakeNvml.h200().set("device.0.mig.mode", "1").install(confDir);
    List<Device> partitions = source.discover(context(Map.of("gpu.nvmlLibrary", FakeNvml.library().toString(),
        "gpu.migPartitions", "true"))).devices();
    assertThat(partitions).hasSizeGreaterThan(1);
    assertThat(AttributeCatalogue.undocumented(source.catalogue(), partitions)).isEmpty();
    partitions.forEach(d -> {
      d.attributes().keySet().forEach(k -> published.add(d.type().orElseThrow() + " " + k));
      d.capacity().keySet().forEach(k -> published.add(d.type().orElseThrow() + " " + k));
    });
    assertThat(source.catalogue()).extracting(doc -> doc.deviceType() + " " + doc.name())
        .doesNotHaveDuplicates()
        .containsExactlyInAnyOrderElementsOf(published);
  }

  @Test
  void declaresItsSettingsAndReadsThemUnderTheirKeys() throws Exception {
    assertThat(source.settings()).containsExactly(GpuDiscoverySource.DRIVER_ROOT,
        GpuDiscoverySource.CONTAINER_DRIVER_ROOT, GpuDiscoverySource.NVML_LIBRARY, GpuDiscoverySource.MIG_PARTITIONS,
        GpuDiscoverySource.MULTIPLE_ALLOCATIONS, GpuDiscoverySource.NVIDIA_SMI, GpuDiscoverySource.MPS_CONTROL,
        GpuDiscoverySource.MPS_SHM_SIZE);
    SourceSetting shm = GpuDiscoverySource.MPS_SHM_SIZE;
    assertThat(List.of(shm.key(), shm.flag(), shm.env(), shm.type(), shm.defaultValue())).containsExactly(
        "gpu.mpsShmSize", "--gpu-mps-shm-size", "NODEATLAS_GPU_MPS_SHM_SIZE", SourceSetting.Type.STRING, "");
    assertThat(shm.check().check("512Mi")).isEqualTo("512Mi");
    assertThatThrownBy(() -> shm.check().check("a lot")).hasMessageContaining("such as 1Gi");
    SourceSetting shared = GpuDiscoverySource.MULTIPLE_ALLOCATIONS;
    assertThat(List.of(shared.key(), shared.flag(), shared.env(), shared.type())).containsExactly("gpu.multipleAllocations",
        "--gpu-multiple-allocations", "NODEATLAS_GPU_MULTIPLE_ALLOCATIONS", SourceSetting.Type.BOOLEAN);
    SourceSetting mps = GpuDiscoverySource.MPS_CONTROL;
    assertThat(List.of(mps.key(), mps.flag(), mps.env(), mps.type()))
        .containsExactly("gpu.mpsControl", "--gpu-mps-control", "NODEATLAS_GPU_MPS_CONTROL", SourceSetting.Type.PATH);
    SourceSetting smi = GpuDiscoverySource.NVIDIA_SMI;
    assertThat(List.of(smi.key(), smi.flag(), smi.env(), smi.type()))
        .containsExactly("gpu.nvidiaSmi", "--nvidia-smi", "NODEATLAS_NVIDIA_SMI", SourceSetting.Type.PATH);
    SourceSetting partitions = GpuDiscoverySource.MIG_PARTITIONS;
    assertThat(List.of(partitions.key(), partitions.flag(), partitions.env(), partitions.type(), partitions.defaultValue()))
        .containsExactly("gpu.migPartitions", "--gpu-mig-partitions", "NODEATLAS_GPU_MIG_PARTITIONS",
            SourceSetting.Type.BOOLEAN, "false");
    SourceSetting root = GpuDiscoverySource.DRIVER_ROOT;
    assertThat(List.of(root.key(), root.flag(), root.env(), root.type(), root.defaultValue(), root.aliases()))
        .containsExactly("gpu.driverRoot", "--nvidia-driver-root", "NVIDIA_DRIVER_ROOT", SourceSetting.Type.PATH, "",
            List.of());
    SourceSetting mounted = GpuDiscoverySource.CONTAINER_DRIVER_ROOT;
    assertThat(List.of(mounted.key(), mounted.flag(), mounted.env(), mounted.type(), mounted.defaultValue()))
        .containsExactly("gpu.containerDriverRoot", "--container-driver-root", "CONTAINER_DRIVER_ROOT",
            SourceSetting.Type.PATH, "");
    SourceSetting nvml = GpuDiscoverySource.NVML_LIBRARY;
    assertThat(List.of(nvml.key(), nvml.flag(), nvml.env(), nvml.type(), nvml.defaultValue(), nvml.aliases()))
        .containsExactly("gpu.nvmlLibrary", "--nvml-library", "NODEATLAS_NVML_LIBRARY", SourceSetting.Type.PATH, "",
            List.of("--nvml-library-path"));
    assertThat(source.settings()).allSatisfy(s -> assertThat(s.description()).isNotBlank());

    FakeNvml.twoGpus().install(confDir);
    HostContext ctx = new HostContext(HostFs.of(host),
        SourceOptions.NONE.with(nvml, FakeNvml.library().toString()).with(root, "/run/../run/nvidia/driver/"),
        Clock.systemUTC());
    assertThat(NvmlLibraryLocator.driverRoot(ctx)).isEqualTo("/run/nvidia/driver");
    assertThat(source.discover(ctx).devices()).hasSize(3);
  }

  @Test
  void aVersionNvmlPrintsOddlyIsLeftOutWithAWarning() throws Exception {
    DiscoveryResult r = discover(FakeNvml.twoGpus().set("driver.version", "550.54.15-custom")
        .set("device.0.name", "N".repeat(65)));

    assertThat(messages(r)).contains(
        "driver version \"550.54.15-custom\" (16 chars) is not a version number; driverVersion left out",
        "device gpu-0: nodeatlas.io/productName left out: the value is 65 bytes, a ResourceSlice allows at most 64",
        "device gpu-0-mig-9-0: nodeatlas.io/productName left out: the value is 65 bytes, a ResourceSlice allows at most 64");
    assertThat(device(r, "gpu-0").attributes()).doesNotContainKeys("nodeatlas.io/driverVersion", "nodeatlas.io/productName");
  }

  @Test
  void aDriverVersionThatIsNoPlainFileNamePartNamesNoFile() throws Exception {
    // NVML's answer is host input: it never becomes a path of its own. Without the check this one
    // would climb from a directory named like a library to a file that is no driver's.
    FixtureTree.at(host).dir("usr/lib/x86_64-linux-gnu/libnvidia-cfg.so.9").file("etc/secret", "");
    DiscoveryResult r = discover(FakeNvml.twoGpus().set("driver.version", "9/../../../../etc/secret"));

    assertThat(device(r, "gpu-0").containerEdits().mounts()).containsExactly(
        sameBind("/usr/lib/x86_64-linux-gnu/libcuda.so.1"), sameBind("/usr/bin/nvidia-smi"));
    assertThat(messages(r)).anySatisfy(m -> assertThat(m).startsWith("driver version \"9/../../../../etc/secret\"")
        .endsWith("cannot be part of a file name; the driver's libraries are mounted by their SONAME links only"));
  }

  @Test
  void nvmlInitFailureMakesTheSourceUnavailableNotFailed() {
    FakeNvml.twoGpus().set("init.error", "9").install(confDir);

    Availability a = source.availability(withFake());
    assertThat(a.available()).isFalse();
    assertThat(a.reason()).isEqualTo("NVML (" + FakeNvml.library() + ") did not initialise: "
        + "nvmlInit_v2: Driver Not Loaded (NVML_ERROR_DRIVER_NOT_LOADED)");
    assertThatThrownBy(() -> source.discover(withFake())).isInstanceOf(DiscoveryException.class);
  }

  @Test
  void aMissingLibraryMakesTheSourceUnavailable() {
    Availability explicit = source.availability(context(Map.of("gpu.nvmlLibrary", host.resolve("nope.so").toString())));
    assertThat(explicit.available()).isFalse();
    assertThat(explicit.reason()).isEqualTo("NVML not loaded: load NVML: --nvml-library " + host.resolve("nope.so")
        + ": no such file (NVML_ERROR_LIBRARY_NOT_FOUND)");

    Availability noDriver = source.availability(context(Map.of("gpu.driverRoot", "/run/nvidia/driver")));
    assertThat(noDriver.available()).isFalse();
    assertThat(noDriver.reason()).startsWith("NVML not loaded: load NVML: no libnvidia-ml.so.1 under driver root "
        + "/run/nvidia/driver (searched /run/nvidia/driver/libnvidia-ml.so.1, /run/nvidia/driver/usr/lib64/libnvidia-ml.so.1");
  }

  @Test
  void aHostWithoutTheNvidiaKernelDriverIsToldSoWithoutTryingTheLibraryPath() throws Exception {
    // No libnvidia-ml.so.1 under the host root (only the versioned file) and no nvidia module: the
    // library path (where the fake NVML is) is not tried.
    FakeNvml.twoGpus().install(confDir);
    Availability a = source.availability(context(Map.of()));
    assertThat(a.available()).isFalse();
    assertThat(a.reason()).isEqualTo("NVML not loaded: load NVML: no NVIDIA kernel driver loaded (no "
        + "/sys/module/nvidia, /proc/driver/nvidia or /dev/dxg) and no libnvidia-ml.so.1 under /; on a GPU node, "
        + "load the driver, or give --nvidia-driver-root or --nvml-library (NVML_ERROR_DRIVER_NOT_LOADED)");
    assertThatThrownBy(() -> source.discover(context(Map.of()))).isInstanceOf(DiscoveryException.class)
        .hasMessageContaining("no NVIDIA kernel driver loaded");
  }

  @Test
  void nvmlIsFoundUnderTheDriverRoot() throws Exception {
    // The SONAME a relative link to the versioned file, as driver installs have them.
    FixtureTree.at(host)
        .bytes("run/nvidia/driver/usr/lib64/libnvidia-ml.so.550.54.15", Files.readAllBytes(FakeNvml.library()))
        .symlink("run/nvidia/driver/usr/lib64/libnvidia-ml.so.1", "libnvidia-ml.so.550.54.15")
        .file("run/nvidia/driver/usr/lib64/libcuda.so.550.54.15", "")
        .file("run/nvidia/driver/usr/bin/nvidia-smi", "");
    FakeNvml.twoGpus().install(confDir);
    HostContext ctx = context(Map.of("gpu.driverRoot", "/run/nvidia/driver"));

    assertThat(source.availability(ctx)).isEqualTo(Availability.ok());
    DiscoveryResult r = source.discover(ctx);
    assertThat(r.devices()).hasSize(3);
    // Mounts name the host path under the driver root and the path inside the driver root in the container.
    assertThat(device(r, "gpu-3").containerEdits().mounts()).containsExactly(
        Mount.readOnlyBind("/run/nvidia/driver/usr/lib64/libcuda.so.550.54.15", "/usr/lib64/libcuda.so.550.54.15"),
        Mount.readOnlyBind("/run/nvidia/driver/usr/lib64/libnvidia-ml.so.550.54.15",
            "/usr/lib64/libnvidia-ml.so.550.54.15"),
        Mount.readOnlyBind("/run/nvidia/driver/usr/lib64/libnvidia-ml.so.1", "/usr/lib64/libnvidia-ml.so.1"),
        Mount.readOnlyBind("/run/nvidia/driver/usr/bin/nvidia-smi", "/usr/bin/nvidia-smi"));
    assertThat(r.warnings()).isEmpty();
  }

  @Test
  void nvmlIsFoundWhereTheDriverRootsLoaderCacheSaysWhenNoUsualDirectoryHasIt() throws Exception {
    FixtureTree.at(host)
        .bytes("run/nvidia/driver/usr/local/nvidia/lib64/libnvidia-ml.so.550.54.15", Files.readAllBytes(FakeNvml.library()))
        .symlink("run/nvidia/driver/usr/local/nvidia/lib64/libnvidia-ml.so.1", "libnvidia-ml.so.550.54.15")
        .bytes("run/nvidia/driver/etc/ld.so.cache", new LdSoCacheFile()
            .lib("libnvidia-ml.so.1", "/usr/local/nvidia/lib64/libnvidia-ml.so.1", LdSoCacheFile.X86_64).bytes());
    FakeNvml.twoGpus().install(confDir);
    HostContext ctx = context(Map.of("gpu.driverRoot", "/run/nvidia/driver"));

    assertThat(source.availability(ctx)).isEqualTo(Availability.ok());
    DiscoveryResult r = source.discover(ctx);
    assertThat(r.warnings()).isEmpty();
    assertThat(device(r, "gpu-3").containerEdits().mounts()).extracting(Mount::hostPath).containsExactly(
        "/run/nvidia/driver/usr/local/nvidia/lib64/libnvidia-ml.so.550.54.15",
        "/run/nvidia/driver/usr/local/nvidia/lib64/libnvidia-ml.so.1");
  }

  @Test
  void aDriverRootThatLeadsOutOfTheHostRootIsReadThere() throws Exception {
    // A driver container's root file system, linked from where the host names the driver root.
    FixtureTree.at(outside)
        .bytes("usr/lib64/libnvidia-ml.so.550.54.15", Files.readAllBytes(FakeNvml.library()))
        .symlink("usr/lib64/libnvidia-ml.so.1", "libnvidia-ml.so.550.54.15")
        .file("usr/bin/nvidia-smi", "");
    FixtureTree.at(host).symlink("run/nvidia/driver", outside.toString());
    FakeNvml.twoGpus().install(confDir);
    HostContext ctx = context(Map.of("gpu.driverRoot", "/run/nvidia/driver"));

    assertThat(source.availability(ctx)).isEqualTo(Availability.ok());
    DiscoveryResult r = source.discover(ctx);
    assertThat(r.warnings()).isEmpty();
    assertThat(device(r, "gpu-3").containerEdits().mounts()).containsExactly(
        Mount.readOnlyBind("/run/nvidia/driver/usr/lib64/libnvidia-ml.so.550.54.15",
            "/usr/lib64/libnvidia-ml.so.550.54.15"),
        Mount.readOnlyBind("/run/nvidia/driver/usr/lib64/libnvidia-ml.so.1", "/usr/lib64/libnvidia-ml.so.1"),
        Mount.readOnlyBind("/run/nvidia/driver/usr/bin/nvidia-smi", "/usr/bin/nvidia-smi"));
  }

  /**
   * The DaemonSet's case: the host's {@code /run/nvidia/driver} mounted at {@code /driver-root} in the
   * agent's container ({@code outside} plays it, outside the host root). Files are read there; the
   * spec names them where the runtime on the host finds them.
   */
  @Test
  void aContainerDriverRootIsReadWhereItIsMountedAndNamedWhereTheHostHasIt() throws Exception {
    FixtureTree.at(outside)
        .bytes("usr/lib64/libnvidia-ml.so.550.54.15", Files.readAllBytes(FakeNvml.library()))
        .symlink("usr/lib64/libnvidia-ml.so.1", "libnvidia-ml.so.550.54.15")
        .file("usr/local/nvidia/lib64/libcuda.so.550.54.15", "")
        .symlink("usr/local/nvidia/lib64/libcuda.so.1", "libcuda.so.550.54.15")
        .bytes("etc/ld.so.cache", new LdSoCacheFile()
            .lib("libcuda.so.1", "/usr/local/nvidia/lib64/libcuda.so.1", LdSoCacheFile.X86_64).bytes())
        .file("usr/bin/nvidia-smi", "");
    FakeNvml.twoGpus().install(confDir);
    HostContext ctx = context(Map.of("gpu.driverRoot", "/run/nvidia/driver", "gpu.containerDriverRoot",
        outside.toString()));

    assertThat(source.availability(ctx)).isEqualTo(Availability.ok());
    DiscoveryResult r = source.discover(ctx);
    assertThat(r.warnings()).isEmpty();
    // Nothing of the host root's own /usr/lib/x86_64-linux-gnu: the driver is the mounted one.
    assertThat(device(r, "gpu-0").containerEdits().mounts()).containsExactly(
        Mount.readOnlyBind("/run/nvidia/driver/usr/local/nvidia/lib64/libcuda.so.550.54.15",
            "/usr/local/nvidia/lib64/libcuda.so.550.54.15"),
        Mount.readOnlyBind("/run/nvidia/driver/usr/local/nvidia/lib64/libcuda.so.1", "/usr/local/nvidia/lib64/libcuda.so.1"),
        Mount.readOnlyBind("/run/nvidia/driver/usr/lib64/libnvidia-ml.so.550.54.15",
            "/usr/lib64/libnvidia-ml.so.550.54.15"),
        Mount.readOnlyBind("/run/nvidia/driver/usr/lib64/libnvidia-ml.so.1", "/usr/lib64/libnvidia-ml.so.1"),
        Mount.readOnlyBind("/run/nvidia/driver/usr/bin/nvidia-smi", "/usr/bin/nvidia-smi"));
  }

  @Test
  void aContainerDriverRootWithoutNvmlSaysWhereItWasLookedFor() {
    Availability a = source.availability(context(Map.of("gpu.driverRoot", "/run/nvidia/driver",
        "gpu.containerDriverRoot", outside.toString())));
    assertThat(a.available()).isFalse();
    assertThat(a.reason()).startsWith("NVML not loaded: load NVML: no libnvidia-ml.so.1 under driver root "
        + "/run/nvidia/driver (mounted at " + outside + ") (searched " + outside + "/libnvidia-ml.so.1, " + outside
        + "/usr/lib64/libnvidia-ml.so.1");
  }

  @Test
  void driverFilesThatLinkOutOfTheRootsAreNeitherLoadedNorMounted() throws Exception {
    Path linkDir = host.resolve("run/nvidia/driver/usr/lib64");
    FixtureTree.at(host)
        .symlink("run/nvidia/driver/usr/lib64/libnvidia-ml.so.1", linkDir.relativize(FakeNvml.library()).toString())
        .symlink("run/nvidia/driver/usr/bin/nvidia-smi", outside.resolve("nvidia-smi").toString());
    FixtureTree.at(outside).file("nvidia-smi", "");
    FakeNvml.twoGpus().install(confDir);

    Availability refused = source.availability(context(Map.of("gpu.driverRoot", "/run/nvidia/driver")));
    assertThat(refused.available()).isFalse();
    assertThat(refused.reason()).contains("; refused /run/nvidia/driver/usr/lib64/libnvidia-ml.so.1: resolves outside "
        + "the host root (to " + FakeNvml.library().toRealPath() + "); symlink not followed");

    DiscoveryResult r = source.discover(context(Map.of(
        "gpu.driverRoot", "/run/nvidia/driver", "gpu.nvmlLibrary", FakeNvml.library().toString())));
    assertThat(device(r, "gpu-3").containerEdits().mounts()).isEmpty();
    assertThat(messages(r)).containsExactly(
        "/run/nvidia/driver/usr/lib64/libnvidia-ml.so.1: resolves outside the host root (to "
            + FakeNvml.library().toRealPath() + "); symlink not followed",
        "/run/nvidia/driver/usr/bin/nvidia-smi: resolves outside the host root (to "
            + outside.resolve("nvidia-smi").toRealPath() + "); symlink not followed");
  }

  @Test
  void withoutOptionsNvmlComesFromTheLibraryPathWhereTheKernelDriverIsLoaded() throws Exception {
    FakeNvml.twoGpus().install(confDir);
    // Any sign of a driver will do: the nvidia module's two, or WSL2's paravirtual GPU device.
    for (String driver : new String[] {"sys/module/nvidia", "proc/driver/nvidia", "dev/dxg"}) {
      if (driver.startsWith("dev/")) {
        FixtureTree.at(host).file(driver, ""); // a character device on a real host
      } else {
        FixtureTree.at(host).dir(driver);
      }
      HostContext ctx = context(Map.of());

      assertThat(source.availability(ctx)).as(driver).isEqualTo(Availability.ok());
      assertThat(source.discover(ctx).devices()).as(driver).hasSize(3);
      FixtureTree.at(host).delete(driver);
    }
  }

  @Test
  void aFailedDeviceCountFailsTheSource() {
    FakeNvml.twoGpus().set("error.nvmlDeviceGetCount_v2", "999").install(confDir);

    assertThatThrownBy(() -> source.discover(withFake()))
        .isInstanceOf(DiscoveryException.class)
        .hasMessageEndingWith("nvmlDeviceGetCount_v2: Unknown Error (NVML_ERROR_UNKNOWN)");
  }

  @Test
  void isRegisteredAsTheGpuSource() {
    DiscoverySources sources = DiscoverySources.load(getClass().getClassLoader());
    assertThat(sources.names()).contains("gpu");
    assertThat(sources.select("gpu")).singleElement().isInstanceOf(GpuDiscoverySource.class);
  }

  @Test
  void devicesSortNumerically() {
    assertThat(List.of("gpu-10", "gpu-2", "gpu-2-mig-9-0", "gpu-2-mig-10-0", "gpu-1").stream()
        .sorted(GpuDiscoverySource::naturalOrder).toList())
        .containsExactly("gpu-1", "gpu-2", "gpu-2-mig-9-0", "gpu-2-mig-10-0", "gpu-10");
    assertThat(Optional.of(GpuDiscoverySource.naturalOrder("gpu-02", "gpu-2"))).contains(0);
  }
}
