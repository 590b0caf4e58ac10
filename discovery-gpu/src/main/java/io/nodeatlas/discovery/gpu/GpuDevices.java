package io.nodeatlas.discovery.gpu;

import io.nodeatlas.discovery.gpu.GpuInfo.MigInfo;
import io.nodeatlas.discovery.model.AttributeValue;
import io.nodeatlas.discovery.model.ContainerEdits;
import io.nodeatlas.discovery.model.Device;
import io.nodeatlas.discovery.model.Names;
import java.util.ArrayList;
import java.util.List;
import java.util.Optional;
import java.util.OptionalInt;
import java.util.function.Consumer;

/**
 * Turns {@link GpuInfo} into devices: {@code gpu-<minor>} of type {@code gpu} and
 * {@code gpu-<minor>-mig-<gi>-<ci>} of type {@code mig}. Attribute names are those of NVIDIA's DRA
 * driver (nvml.md §4) in our domain, plus the standard PCI/NUMA attributes. The device name uses
 * the minor number because NVML's index is not stable across reboots (nvml.md §1.7); a GPU whose
 * minor cannot be read therefore cannot be named and is reported instead.
 */
final class GpuDevices {

  static final String SOURCE = "gpu";

  static final String TYPE = Names.ours("type");
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
  static final String PCI_DEVICE_ID = Names.ours("pciDeviceID");
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
  private final Consumer<String> warn;

  GpuDevices(SystemFacts system, NvidiaHostFiles host, Consumer<String> warn) {
    this.system = system;
    this.host = host;
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
    Optional<String> busId = gpu.pci().flatMap(p -> PciBusIds.normalise(p.busId())
        .or(() -> Optional.of(PciBusIds.format(p.domain(), p.bus(), p.device(), 0))));

    Attributes common = new Attributes(name);
    common.string(PRODUCT_NAME, gpu.name());
    common.string(BRAND, gpu.brand().flatMap(NvmlNames::brand));
    common.string(ARCHITECTURE, gpu.architecture().flatMap(NvmlNames::architecture));
    common.version(CUDA_COMPUTE_CAPABILITY, gpu.computeCapability()
        .flatMap(cc -> DriverVersions.computeCapabilitySemver(cc.major(), cc.minor())));
    common.version(DRIVER_VERSION, system.driverSemver());
    common.version(CUDA_DRIVER_VERSION, system.cudaSemver());
    busId.ifPresent(b -> {
      if (PciBusIds.isStandard(b)) {
        common.string(Names.PCI_BUS_ID, Optional.of(b));
      }
      host.pcieRoot(b).ifPresent(root -> common.string(Names.PCIE_ROOT, Optional.of(root)));
      OptionalInt numa = host.numaNode(b);
      if (numa.isPresent()) {
        common.integer(Names.NUMA_NODE, numa.getAsInt());
      }
    });

    Attributes own = common.copy();
    own.string(TYPE, Optional.of("gpu"));
    own.string(UUID, gpu.uuid());
    own.integer(MINOR, minor);
    own.string(SERIAL, gpu.serial());
    own.string(BOARD_PART_NUMBER, gpu.boardPartNumber());
    own.string(VBIOS_VERSION, gpu.vbiosVersion());
    gpu.pci().ifPresent(p -> own.string(PCI_DEVICE_ID,
        Optional.of(String.format("0x%04x", (p.pciDeviceId() >>> 16) & 0xffff))));
    gpu.migMode().ifPresent(m -> own.bool(MIG_ENABLED, m.current()));

    ContainerEdits.Builder edits = ContainerEdits.builder();
    host.gpuNode(minor).ifPresent(edits::deviceNode);
    host.controlNodes().forEach(edits::deviceNode);
    host.driverMounts(system.driverVersion()).forEach(edits::mount);

    List<Device> out = new ArrayList<>();
    Device.Builder gpuDevice = Device.builder(name, SOURCE);
    own.applyTo(gpuDevice);
    gpu.memory().ifPresent(m -> gpuDevice.capacity(MEMORY, m.total()));
    out.add(gpuDevice.containerEdits(edits.build()).build());

    for (MigInfo mig : gpu.migDevices()) {
      migDevice(gpu, minor, common, mig).ifPresent(out::add);
    }
    return out;
  }

  private Optional<Device> migDevice(GpuInfo gpu, int parentMinor, Attributes common, MigInfo mig) {
    String where = gpu.label() + " MIG device " + mig.slot();
    if (mig.gpuInstanceId().isEmpty() || mig.computeInstanceId().isEmpty()) {
      warn.accept(where + " not published: its GPU/compute instance ids are unknown");
      return Optional.empty();
    }
    int gi = mig.gpuInstanceId().get();
    int ci = mig.computeInstanceId().get();
    String name = "gpu-" + parentMinor + "-mig-" + gi + "-" + ci;

    Attributes a = common.copy();
    a.string(TYPE, Optional.of("mig"));
    a.string(UUID, mig.uuid());
    a.string(PARENT_UUID, gpu.uuid());
    a.integer(PARENT_MINOR, parentMinor);
    a.string(PROFILE, mig.profile());
    a.integer(GPU_INSTANCE_ID, gi);
    a.integer(COMPUTE_INSTANCE_ID, ci);

    Device.Builder d = Device.builder(name, SOURCE);
    a.applyTo(d);
    Optional<Long> memory = mig.memory().map(m -> m.total())
        .or(() -> mig.attributes().map(at -> at.memorySizeMiB() * MIB));
    memory.ifPresent(m -> d.capacity(MEMORY, m));
    mig.attributes().ifPresent(at -> {
      d.capacity(MULTIPROCESSORS, Integer.toUnsignedLong(at.multiprocessorCount()));
      d.capacity(COPY_ENGINES, Integer.toUnsignedLong(at.sharedCopyEngineCount()));
      d.capacity(DECODERS, Integer.toUnsignedLong(at.sharedDecoderCount()));
      d.capacity(ENCODERS, Integer.toUnsignedLong(at.sharedEncoderCount()));
      d.capacity(JPEG_ENGINES, Integer.toUnsignedLong(at.sharedJpegCount()));
      d.capacity(OFA_ENGINES, Integer.toUnsignedLong(at.sharedOfaCount()));
    });

    // A MIG container needs its parent's node, the GI and CI capability nodes and the control nodes (nvml.md §3.2).
    ContainerEdits.Builder edits = ContainerEdits.builder();
    host.gpuNode(parentMinor).ifPresent(edits::deviceNode);
    var minors = host.migMinors();
    minors.gpuInstance(parentMinor, gi)
        .flatMap(capMinor -> host.capNode(capMinor, name))
        .ifPresentOrElse(edits::deviceNode, () -> missingCap(name, "gpu" + parentMinor + "/gi" + gi + "/access"));
    minors.computeInstance(parentMinor, gi, ci)
        .flatMap(capMinor -> host.capNode(capMinor, name))
        .ifPresentOrElse(edits::deviceNode,
            () -> missingCap(name, "gpu" + parentMinor + "/gi" + gi + "/ci" + ci + "/access"));
    host.controlNodes().forEach(edits::deviceNode);
    host.driverMounts(system.driverVersion()).forEach(edits::mount);
    return Optional.of(d.containerEdits(edits.build()).build());
  }

  private void missingCap(String device, String capability) {
    if (!host.migMinors().minors().isEmpty()) {
      warn.accept(device + ": no " + capability + " in mig-minors, capability device node left out");
    }
  }

  /** Attributes being collected; a value the API would reject costs that attribute and a warning. */
  private final class Attributes {
    private final String device;
    private final java.util.Map<String, AttributeValue> values = new java.util.TreeMap<>();

    Attributes(String device) {
      this.device = device;
    }

    Attributes copy() {
      Attributes a = new Attributes(device);
      a.values.putAll(values);
      return a;
    }

    void string(String key, Optional<String> value) {
      value.filter(v -> !v.isEmpty()).ifPresent(v -> put(key, () -> AttributeValue.string(v)));
    }

    void version(String key, Optional<String> value) {
      value.ifPresent(v -> put(key, () -> AttributeValue.version(v)));
    }

    void integer(String key, long value) {
      values.put(key, AttributeValue.of(value));
    }

    void bool(String key, boolean value) {
      values.put(key, AttributeValue.of(value));
    }

    private void put(String key, java.util.function.Supplier<AttributeValue> value) {
      try {
        values.put(key, value.get());
      } catch (IllegalArgumentException e) {
        warn.accept(device + ": attribute " + key + " left out: " + e.getMessage());
      }
    }

    void applyTo(Device.Builder b) {
      values.forEach(b::attribute);
    }
  }
}
