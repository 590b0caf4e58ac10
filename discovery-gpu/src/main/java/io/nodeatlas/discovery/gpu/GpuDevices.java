package io.nodeatlas.discovery.gpu;

import io.nodeatlas.discovery.gpu.GpuInfo.MigInfo;
import io.nodeatlas.discovery.gpu.nvml.NvmlSession.MigMode;
import io.nodeatlas.discovery.host.Excerpt;
import io.nodeatlas.discovery.model.ContainerEdits;
import io.nodeatlas.discovery.model.Device;
import io.nodeatlas.discovery.model.DeviceDraft;
import io.nodeatlas.discovery.model.Names;
import io.nodeatlas.discovery.pci.PciAddress;
import io.nodeatlas.discovery.pci.PciFunctionFacts;
import io.nodeatlas.discovery.pci.PciFunctionReader;
import java.util.ArrayList;
import java.util.List;
import java.util.Optional;
import java.util.function.Consumer;

/**
 * Turns {@link GpuInfo} into devices: {@code gpu-<minor>} of type {@code gpu} and
 * {@code gpu-<minor>-mig-<gi>-<ci>} of type {@code mig}. Attribute names follow those of NVIDIA's
 * DRA driver ({@code gpu.nvidia.com}) in our domain, plus the PCI attributes every PCI source
 * publishes ({@link PciFunctionFacts#publishTo}); {@link GpuCatalogue} documents each. The device
 * name uses the minor number ({@code /dev/nvidia<minor>}) because NVML's index is not stable across
 * reboots (NVML API Reference, {@code nvmlDeviceGetHandleByIndex_v2}); a GPU whose minor cannot be
 * read therefore cannot be named and is reported instead.
 *
 * <p>GPUs and MIG devices are exclusive: one claim at a time holds one ({@code allowMultipleAllocations}
 * false, no request policies), unless {@code --gpu-multiple-allocations} publishes a whole GPU for several
 * claims ({@link SharedGpus}).
 */
final class GpuDevices {

  static final String SOURCE = "gpu";

  static final String TYPE = Device.TYPE;
  static final String UUID = Names.ours("uuid");
  static final String PARENT_UUID = Names.ours("parentUUID");
  static final String PRODUCT_NAME = Names.ours("productName");
  static final String BRAND = Names.ours("brand");
  static final String ARCHITECTURE = Names.ours("architecture");
  static final String CUDA_COMPUTE_CAPABILITY = Names.ours("cudaComputeCapability");
  static final String DRIVER_VERSION = Names.ours("driverVersion");
  static final String CUDA_DRIVER_VERSION = Names.ours("cudaDriverVersion");
  static final String MINOR = Names.ours("minor");
  static final String PARENT_MINOR = Names.ours("parentMinor");
  static final String SERIAL = Names.ours("serial");
  static final String BOARD_PART_NUMBER = Names.ours("boardPartNumber");
  static final String VBIOS_VERSION = Names.ours("vbiosVersion");
  static final String MIG_ENABLED = Names.ours("migEnabled");
  static final String PROFILE = Names.ours("profile");
  static final String GPU_INSTANCE_ID = Names.ours("gpuInstanceID");
  static final String COMPUTE_INSTANCE_ID = Names.ours("computeInstanceID");

  static final String MEMORY = Names.ours("memory");
  static final String MULTIPROCESSORS = Names.ours("multiprocessors");
  static final String COPY_ENGINES = Names.ours("copyEngines");
  static final String DECODERS = Names.ours("decoders");
  static final String ENCODERS = Names.ours("encoders");
  static final String JPEG_ENGINES = Names.ours("jpegEngines");
  static final String OFA_ENGINES = Names.ours("ofaEngines");

  private static final long MIB = 1L << 20;

  /** Facts shared by every device of the node. */
  record SystemFacts(Optional<String> driverVersion, Optional<String> driverSemver, Optional<String> cudaSemver) {}

  private final SystemFacts system;
  private final NvidiaHostFiles host;
  private final PciFunctionReader pciReader;
  private final Consumer<String> warn;

  GpuDevices(SystemFacts system, NvidiaHostFiles host, PciFunctionReader pciReader, Consumer<String> warn) {
    this.system = system;
    this.host = host;
    this.pciReader = pciReader;
    this.warn = warn;
  }

  /** The GPU's device and its MIG devices; empty when the GPU cannot be named. */
  List<Device> devices(GpuInfo gpu) {
    if (gpu.minor().isEmpty()) {
      warn.accept(gpu.label() + gpu.uuid().map(u -> " (" + u + ")").orElse("")
          + " not published: its minor number (/dev/nvidiaN) is unknown");
      return List.of();
    }
    int minor = gpu.minor().get();
    String name = "gpu-" + minor;
    Optional<PciFunctionFacts> pci = pciFacts(gpu);

    DeviceDraft d = DeviceDraft.of(name, SOURCE, warn)
        .attribute(TYPE, "gpu")
        .attribute(UUID, nonEmpty(gpu.uuid()));
    identity(d, gpu);
    d.attribute(MINOR, minor)
        .attribute(SERIAL, nonEmpty(gpu.serial()))
        .attribute(BOARD_PART_NUMBER, nonEmpty(gpu.boardPartNumber()))
        .attribute(VBIOS_VERSION, nonEmpty(gpu.vbiosVersion()))
        // Absent only when nvmlDeviceGetMigMode failed (with a warning): then MIG may be on, and a
        // selector asking for a whole GPU without MIG must not match.
        .boolAttribute(MIG_ENABLED, gpu.migMode().map(MigMode::current));
    gpu.memory().ifPresent(m -> d.capacity(MEMORY, m.total()));
    pci.ifPresent(f -> f.publishTo(d));

    ContainerEdits.Builder edits = ContainerEdits.builder();
    host.gpuNode(minor).ifPresent(edits::deviceNode);
    host.controlNodes().forEach(edits::deviceNode);
    host.driverMounts(system.driverVersion()).forEach(edits::mount);

    List<Device> out = new ArrayList<>();
    d.allowMultipleAllocations(false).containerEdits(edits.build()).build().ifPresent(out::add);
    for (MigInfo mig : gpu.migDevices()) {
      migDevice(gpu, minor, pci, mig).ifPresent(out::add);
    }
    return out;
  }

  /** The GPU's PCI function: NVML's address and ids, the rest from sysfs. */
  private Optional<PciFunctionFacts> pciFacts(GpuInfo gpu) {
    if (gpu.pci().isEmpty()) {
      return Optional.empty();
    }
    Optional<PciAddress> address = NvmlPci.address(gpu.pci().get());
    if (address.isEmpty()) {
      warn.accept(gpu.label() + ": NVML's PCI bus id " + Excerpt.of(gpu.pci().get().busId())
          + " is not a PCI address; PCI attributes left out");
      return Optional.empty();
    }
    return Optional.of(NvmlPci.withNvmlIds(pciReader.read(address.get()), gpu.pci().get()));
  }

  /** What a GPU and its MIG devices share: the product, the driver and the CUDA versions. */
  private void identity(DeviceDraft d, GpuInfo gpu) {
    d.attribute(PRODUCT_NAME, nonEmpty(gpu.name()))
        .attribute(BRAND, gpu.brand().flatMap(NvmlNames::brand))
        .attribute(ARCHITECTURE, gpu.architecture().flatMap(NvmlNames::architecture))
        .version(CUDA_COMPUTE_CAPABILITY, gpu.computeCapability()
            .flatMap(cc -> DriverVersions.computeCapabilitySemver(cc.major(), cc.minor())))
        .version(DRIVER_VERSION, system.driverSemver())
        .version(CUDA_DRIVER_VERSION, system.cudaSemver());
  }

  private Optional<Device> migDevice(GpuInfo gpu, int parentMinor, Optional<PciFunctionFacts> pci, MigInfo mig) {
    String where = gpu.label() + " MIG device " + mig.slot();
    if (mig.gpuInstanceId().isEmpty() || mig.computeInstanceId().isEmpty()) {
      warn.accept(where + " not published: its GPU/compute instance ids are unknown");
      return Optional.empty();
    }
    int gi = mig.gpuInstanceId().get();
    int ci = mig.computeInstanceId().get();
    String name = "gpu-" + parentMinor + "-mig-" + gi + "-" + ci;

    DeviceDraft d = DeviceDraft.of(name, SOURCE, warn)
        .attribute(TYPE, "mig")
        .attribute(UUID, nonEmpty(mig.uuid()))
        .attribute(PARENT_UUID, nonEmpty(gpu.uuid()))
        .attribute(PARENT_MINOR, parentMinor)
        .attribute(PROFILE, mig.profile())
        .attribute(GPU_INSTANCE_ID, gi)
        .attribute(COMPUTE_INSTANCE_ID, ci);
    identity(d, gpu);
    // nvmlDeviceGetMemoryInfo on a MIG handle is the instance's memory; nvmlDeviceAttributes_t's
    // memorySizeMB (MiB) is the fallback.
    Optional<Long> memory = mig.memory().map(m -> m.total())
        .or(() -> mig.attributes().map(at -> at.memorySizeMiB() * MIB));
    memory.ifPresent(m -> d.capacity(MEMORY, m));
    mig.attributes().ifPresent(at -> d
        .capacity(MULTIPROCESSORS, Integer.toUnsignedLong(at.multiprocessorCount()))
        .capacity(COPY_ENGINES, Integer.toUnsignedLong(at.sharedCopyEngineCount()))
        .capacity(DECODERS, Integer.toUnsignedLong(at.sharedDecoderCount()))
        .capacity(ENCODERS, Integer.toUnsignedLong(at.sharedEncoderCount()))
        .capacity(JPEG_ENGINES, Integer.toUnsignedLong(at.sharedJpegCount()))
        .capacity(OFA_ENGINES, Integer.toUnsignedLong(at.sharedOfaCount())));
    // A MIG device lives on its parent's PCI function: the parent's bus id, root and NUMA node.
    pci.ifPresent(f -> f.publishTo(d));

    // A MIG container needs its parent's node, the GI and CI capability nodes and the control nodes
    // (NVIDIA MIG User Guide, "Device Nodes and Capabilities").
    ContainerEdits.Builder edits = ContainerEdits.builder();
    host.gpuNode(parentMinor).ifPresent(edits::deviceNode);
    var minors = host.migMinors();
    // A capability missing from mig-minors and a node that cannot be described are two different
    // problems, each with its own warning.
    minors.gpuInstance(parentMinor, gi).ifPresentOrElse(
        capMinor -> host.capNode(capMinor, name).ifPresent(edits::deviceNode),
        () -> missingCap(name, "gpu" + parentMinor + "/gi" + gi + "/access"));
    minors.computeInstance(parentMinor, gi, ci).ifPresentOrElse(
        capMinor -> host.capNode(capMinor, name).ifPresent(edits::deviceNode),
        () -> missingCap(name, "gpu" + parentMinor + "/gi" + gi + "/ci" + ci + "/access"));
    host.controlNodes().forEach(edits::deviceNode);
    host.driverMounts(system.driverVersion()).forEach(edits::mount);
    return d.allowMultipleAllocations(false).containerEdits(edits.build()).build();
  }

  private void missingCap(String device, String capability) {
    if (!host.migMinors().minors().isEmpty()) {
      host.warnMigMinors("no " + capability + "; " + device + " gets no capability device node");
    }
  }

  private static Optional<String> nonEmpty(Optional<String> value) {
    return value.filter(v -> !v.isEmpty());
  }
}
