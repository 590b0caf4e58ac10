package io.nodeatlas.discovery.gpu;

import io.nodeatlas.discovery.gpu.GpuDevices.SystemFacts;
import io.nodeatlas.discovery.gpu.nvml.NvmlDevice;
import io.nodeatlas.discovery.gpu.nvml.NvmlException;
import io.nodeatlas.discovery.gpu.nvml.NvmlLibrary;
import io.nodeatlas.discovery.gpu.nvml.NvmlSession;
import io.nodeatlas.discovery.host.Excerpt;
import io.nodeatlas.discovery.host.FactReader;
import io.nodeatlas.discovery.host.HostContext;
import io.nodeatlas.discovery.model.Device;
import io.nodeatlas.discovery.pci.PciFunctionReader;
import io.nodeatlas.discovery.model.AttributeDoc;
import io.nodeatlas.discovery.spi.Availability;
import io.nodeatlas.discovery.spi.DiscoveryException;
import io.nodeatlas.discovery.spi.DiscoveryResult;
import io.nodeatlas.discovery.spi.DiscoverySource;
import io.nodeatlas.discovery.host.SourceSetting;
import java.util.ArrayList;
import java.util.Comparator;
import java.util.HashSet;
import java.util.List;
import java.util.Optional;
import java.util.Set;

/**
 * The {@code gpu} source: NVIDIA GPUs and MIG devices through NVML, plus the host files that make
 * them usable in a container. Without NVML, or when {@code nvmlInit_v2} fails (no driver loaded),
 * the source is unavailable with that reason rather than failed: a node without NVIDIA GPUs is
 * normal. Each discovery is one {@code nvmlInit_v2}/{@code nvmlShutdown} pair; nothing is cached
 * between runs because NVML handles die with the session.
 */
public final class GpuDiscoverySource implements DiscoverySource {

  public static final String NAME = "gpu";

  /**
   * {@code --nvidia-driver-root}: where the NVIDIA driver is installed, as the host names it (the
   * variable name NVIDIA's container toolkit and DRA driver use). Unset means the host root.
   */
  public static final SourceSetting DRIVER_ROOT = SourceSetting.path(NAME, "driverRoot", "--nvidia-driver-root",
      "NVIDIA_DRIVER_ROOT",
      "Root of the NVIDIA driver installation as the host sees it, e.g. /run/nvidia/driver "
          + "(unset: the host root); NVML and the driver files containers get are found under it.");

  /**
   * {@code --container-driver-root}: where the driver root is mounted in this process's own file
   * system, when that is not where the host names it (a DaemonSet mounts the host's
   * {@code /run/nvidia/driver} at {@code /driver-root}). The driver's files are read there and named
   * under {@link #DRIVER_ROOT} in CDI specs, which the runtime on the host reads. The flag and variable
   * are those of NVIDIA's DRA driver ({@code k8s-dra-driver-gpu}).
   */
  public static final SourceSetting CONTAINER_DRIVER_ROOT = SourceSetting.path(NAME, "containerDriverRoot",
      "--container-driver-root", "CONTAINER_DRIVER_ROOT",
      "Where the driver root is mounted in this agent's own file system (a DaemonSet's /driver-root): the "
          + "driver's files are read there and named under --nvidia-driver-root in CDI specs (unset: the "
          + "driver root is read under the host root).");

  /** {@code --nvml-library}: load NVML from exactly this file on this machine. */
  public static final SourceSetting NVML_LIBRARY = SourceSetting.path(NAME, "nvmlLibrary", "--nvml-library",
      "NODEATLAS_NVML_LIBRARY",
      "Load NVML from this file instead of finding libnvidia-ml.so.1 under the driver root or on the "
          + "library path.").withAliases("--nvml-library-path");

  /**
   * {@code --gpu-mig-partitions}: publish MIG-capable GPUs with MIG mode on as partitionable devices
   * (KEP-4815 counters, {@link MigPartitions}); off by default, as NVIDIA's DRA driver keeps dynamic MIG
   * behind a feature gate.
   */
  public static final SourceSetting MIG_PARTITIONS = SourceSetting.bool(NAME, "migPartitions", "--gpu-mig-partitions",
      "NODEATLAS_GPU_MIG_PARTITIONS", false,
      "Publish each MIG-capable GPU with MIG mode on as shared counters and one device per MIG profile and "
          + "placement (partitionable devices, KEP-4815), created when a claim is prepared.");

  /**
   * {@code --gpu-multiple-allocations}: publish each whole GPU with MIG mode off for several claims
   * ({@link SharedGpus}: {@code allowMultipleAllocations} and its memory as consumable capacity, KEP-5075), which
   * share it at Prepare only when their {@link GpuConfig} sharing agrees ({@link GpuSharePlacer}); off by
   * default, as consumable capacity is a beta API that peers keep behind a gate.
   */
  public static final SourceSetting MULTIPLE_ALLOCATIONS = SourceSetting.bool(NAME, "multipleAllocations",
      "--gpu-multiple-allocations", "NODEATLAS_GPU_MULTIPLE_ALLOCATIONS", false,
      "Publish each whole GPU (MIG mode off) with allowMultipleAllocations and its memory as consumable capacity "
          + "(KEP-5075), so several claims can share it: a claim that names no memory takes all of it, and claims "
          + "share a GPU at Prepare only when each configures the same sharing (GpuConfig TimeSlicing).");

  /**
   * {@code --nvidia-smi}: the tool that sets a GPU's compute time slice for a claim whose
   * {@link GpuConfig} asks for TimeSlicing ({@code compute-policy --set-timeslice}); unset: the driver root's
   * ({@link DriverTools}), else {@code nvidia-smi} on the agent's PATH.
   */
  public static final SourceSetting NVIDIA_SMI = SourceSetting.path(NAME, "nvidiaSmi", "--nvidia-smi",
      "NODEATLAS_NVIDIA_SMI",
      "The nvidia-smi that sets a GPU's compute time slice for claims configured for TimeSlicing "
          + "(unset: the driver root's, when one is given, else nvidia-smi on the PATH).");

  /** {@code --gpu-mps-control}: the MPS control tool started for a claim configured for MPS. */
  public static final SourceSetting MPS_CONTROL = SourceSetting.path(NAME, "mpsControl", "--gpu-mps-control",
      "NODEATLAS_GPU_MPS_CONTROL",
      "The nvidia-cuda-mps-control that runs one MPS control daemon per GPU of a claim configured for MPS "
          + "(unset: the driver root's, when one is given, else nvidia-cuda-mps-control on the PATH).");

  /**
   * {@code --gpu-mps-shm-size}: the size limit of the tmpfs each MPS control daemon shares with its clients at
   * {@code /dev/shm} ({@link MpsShm}); unset: half the node's memory, as tmpfs and NVIDIA's DRA driver default to;
   * 0: a plain directory, never a mount (as without {@code CAP_SYS_ADMIN}).
   */
  public static final SourceSetting MPS_SHM_SIZE = SourceSetting.string(NAME, "mpsShmSize", "--gpu-mps-shm-size",
      "NODEATLAS_GPU_MPS_SHM_SIZE", "",
      "The size limit of the tmpfs each MPS control daemon shares with its clients at /dev/shm (a quantity such as "
          + "1Gi; unset: half the node's memory; 0: a plain directory under the state directory, never a mount, as "
          + "when the agent lacks CAP_SYS_ADMIN).",
      value -> {
        if (!value.isBlank()) {
          MpsShm.bytes(value);
        }
        return value;
      });

  private final NvmlLoader loader;

  /** For {@link java.util.ServiceLoader}: NVML located from the host's {@code gpu.*} options. */
  public GpuDiscoverySource() {
    this(NvmlLibraryLocator::load);
  }

  public GpuDiscoverySource(NvmlLoader loader) {
    this.loader = loader;
  }

  @Override
  public String name() {
    return NAME;
  }

  @Override
  public String description() {
    return "NVIDIA GPUs and MIG devices through NVML, with their device nodes and driver files";
  }

  @Override
  public List<SourceSetting> settings() {
    return List.of(DRIVER_ROOT, CONTAINER_DRIVER_ROOT, NVML_LIBRARY, MIG_PARTITIONS, MULTIPLE_ALLOCATIONS, NVIDIA_SMI,
        MPS_CONTROL, MPS_SHM_SIZE);
  }

  @Override
  public List<AttributeDoc> catalogue() {
    return GpuCatalogue.DOCS;
  }

  @Override
  public Availability availability(HostContext host) {
    NvmlLibrary library;
    try {
      library = loader.load(host);
    } catch (NvmlException e) {
      return Availability.unavailable("NVML not loaded: " + e.getMessage());
    }
    try (NvmlSession session = library.init()) {
      return Availability.ok();
    } catch (NvmlException e) {
      return Availability.unavailable("NVML (" + library.description() + ") did not initialise: " + e.getMessage());
    }
  }

  /**
   * XID and lost-GPU watch through the same NVML ({@link GpuHealthCheck}); empty when NVML cannot be
   * loaded here. Each check waits at most 100 ms for a first event.
   */
  @Override
  public java.util.Optional<io.nodeatlas.discovery.health.HealthCheck> healthCheck(HostContext host) {
    try {
      return java.util.Optional.of(new GpuHealthCheck(loader.load(host), 100));
    } catch (NvmlException e) {
      return java.util.Optional.empty();
    }
  }

  /**
   * The claim-time work on GPUs held whole ({@link GpuRealiser}): a partition's MIG instance created at
   * Prepare and destroyed at Unprepare ({@link MigRealiser}, journalled under {@code stateDir}), and the
   * claim's {@link GpuConfig} sharing (time slice, MPS daemon under {@code stateDir}).
   */
  @Override
  public Optional<io.nodeatlas.discovery.share.DeviceRealiser> deviceRealiser(HostContext host, java.nio.file.Path stateDir) {
    GpuSharing sharing = new GpuSharing(new DriverTools(host), stateDir,
        MpsShm.of(host.options().get(MPS_SHM_SIZE).orElse(""), stateDir), host.clock());
    return Optional.of(new GpuRealiser(new MigRealiser(loader, host, stateDir), sharing));
  }

  /** Which claims share a GPU published for several ({@link GpuSharePlacer}), by their sharing configuration. */
  @Override
  public Optional<io.nodeatlas.discovery.share.SharePlacer> sharePlacer(io.nodeatlas.discovery.share.SharePlacer.Settings settings) {
    return Optional.of(new GpuSharePlacer());
  }

  /** The GPUs' device nodes, and a device plugin that would count the same GPUs twice. */
  @Override
  public List<io.nodeatlas.discovery.doctor.DoctorCheck> doctorChecks() {
    return List.of(new GpuDoctorCheck());
  }

  @Override
  public DiscoveryResult discover(HostContext host) throws DiscoveryException {
    NvmlLibrary library;
    try {
      library = loader.load(host);
    } catch (NvmlException e) {
      throw new DiscoveryException("NVML not loaded: " + e.getMessage(), e);
    }
    DiscoveryResult.Builder result = new DiscoveryResult.Builder(NAME);
    try (NvmlSession nvml = library.init()) {
      discover(nvml, host, result);
    } catch (NvmlException e) {
      throw new DiscoveryException("NVML (" + library.description() + "): " + e.getMessage(), e);
    }
    return result.build();
  }

  private static void discover(NvmlSession nvml, HostContext host, DiscoveryResult.Builder result)
      throws NvmlException {
    FactReader facts = new FactReader(host.fs(), result::warn);
    SystemFacts system = systemFacts(nvml, facts);
    int count = nvml.deviceCount();
    NvidiaHostFiles files = new NvidiaHostFiles(facts, new FactReader(NvmlLibraryLocator.driverFs(host), result::warn),
        NvmlLibraryLocator.driverRoot(host), NvmlLibraryLocator.readRoot(host), LdSoCacheParser.THIS_JVM);
    GpuDevices devices = new GpuDevices(system, files, new PciFunctionReader(facts), facts::warn);
    NvmlGpuReader reader = new NvmlGpuReader(nvml, facts::warn);

    List<Device> found = new ArrayList<>();
    Set<String> names = new HashSet<>();
    // The MIG instances the agent's family made for claims (its journal).
    List<MigJournal.Entry> ours = host.options().flag(MIG_PARTITIONS) ? journalled(host, facts::warn) : List.of();
    for (int index = 0; index < count; index++) {
      NvmlDevice handle;
      try {
        handle = nvml.deviceByIndex(index);
      } catch (NvmlException e) {
        // nvmlDeviceGetCount_v2 counts GPUs we may not open (NO_PERMISSION) or that fell off the bus.
        facts.warn("GPU at NVML index " + index + " not published: " + e.getMessage());
        continue;
      }
      GpuInfo gpu = reader.read(index, handle);
      if (gpu.lost()) {
        facts.warn(gpu.label() + gpu.uuid().map(u -> " (" + u + ")").orElse("")
            + gpu.minor().map(m -> " minor " + m).orElse("")
            + " is lost (NVML_ERROR_GPU_IS_LOST) and not published; the GPU needs a reset or the node a reboot");
        continue;
      }
      List<Device> gpuDevices = devices.devices(gpu);
      if (host.options().flag(MIG_PARTITIONS) && !gpuDevices.isEmpty()) {
        gpuDevices = withPartitions(nvml, handle, gpu, gpuDevices, ours, facts::warn);
      }
      // A GPU in MIG mode is used through its instances, and one whose counters partitions consume is whole
      // only for one claim.
      if (host.options().flag(MULTIPLE_ALLOCATIONS) && host.sharedDevicesSupported() && !gpuDevices.isEmpty()
          && !gpu.migMode().map(m -> m.current()).orElse(false) && gpuDevices.get(0).consumesCounters().isEmpty()) {
        Optional<Device> shared = SharedGpus.shared(gpuDevices.get(0));
        if (shared.isPresent()) {
          gpuDevices = new ArrayList<>(gpuDevices);
          gpuDevices.set(0, shared.get());
        }
      }
      for (Device d : gpuDevices) {
        if (names.add(d.name())) {
          found.add(d);
        } else {
          facts.warn(gpu.label() + ": a second device named " + d.name() + " left out (duplicate minor number)");
        }
      }
    }
    // A plain lambda, not Comparator.comparing (see Order for why the discover path avoids the JDK's
    // combinators).
    found.sort((a, b) -> naturalOrder(a.name(), b.name()));
    found.forEach(result::device);
  }

  /**
   * The GPU's devices with its MIG partitions (KEP-4815): the whole GPU (the first device) gains the
   * counter set and consumes all of it. Only with MIG mode on, since instances can be created only then.
   */
  private static List<Device> withPartitions(NvmlSession nvml, NvmlDevice handle, GpuInfo gpu, List<Device> devices,
      List<MigJournal.Entry> ours, java.util.function.Consumer<String> warn) {
    if (gpu.migMode().isEmpty() || gpu.minor().isEmpty()) {
      return devices;
    }
    if (!gpu.migMode().get().current()) {
      warn.accept(gpu.label() + ": MIG partitions not published: MIG mode is off (the operator turns it on: "
          + "nvidia-smi -i <gpu> -mig 1 and a GPU reset)");
      return devices;
    }
    List<MigPartitions.Profile> profiles = MigPartitions.read(nvml, handle, gpu.label(), warn);
    List<MigPartitions.Existing> existing = new ArrayList<>();
    Set<Integer> madeForClaims = new java.util.TreeSet<>();
    for (MigPartitions.Profile p : profiles) {
      try {
        for (NvmlSession.GpuInstance gi : nvml.gpuInstances(handle, p.info().id(), NvmlSession.Placement.MAX_PLACEMENTS)) {
          NvmlSession.GpuInstanceInfo info = nvml.gpuInstanceInfo(gi);
          MigPartitions.Existing e = new MigPartitions.Existing(info.id(), info.profileId(), info.placement());
          if (madeForClaim(ours, gpu.uuid().orElse(""), e)) {
            madeForClaims.add(info.id());
          } else {
            existing.add(e);
          }
        }
      } catch (NvmlException e) {
        warn.accept(gpu.label() + ": MIG partitions not published: the GPU instances of profile " + p.info().name()
            + " that exist cannot be read (" + e.getMessage() + "), and a partition over one would fail at Prepare");
        return devices;
      }
    }
    Device whole = devices.get(0);
    // An instance made for a claim is that claim's: not published again as a MIG device of its own.
    List<Device> others = devices.subList(1, devices.size()).stream()
        .filter(d -> d.attribute(GpuDevices.GPU_INSTANCE_ID)
            .filter(v -> v instanceof io.nodeatlas.discovery.model.AttributeValue.IntValue i
                && madeForClaims.contains((int) i.value())).isEmpty())
        .toList();
    return MigPartitions.build(gpu.minor().get(), whole, profiles, existing, warn).map(p -> {
      List<Device> out = new ArrayList<>();
      out.add(whole.withCounters(List.of(p.counters()), List.of(p.whole())));
      out.addAll(others);
      out.addAll(p.partitions());
      return out;
    }).orElse(devices);
  }

  /**
   * Whether the family journalled {@code e} for a claim: the same GPU instance id, or, for an intent journalled
   * before NVML gave the id, the same profile and placement.
   */
  private static boolean madeForClaim(List<MigJournal.Entry> ours, String gpuUuid, MigPartitions.Existing e) {
    return ours.stream().anyMatch(j -> j.gpuUuid().equals(gpuUuid) && (j.gi() >= 0 ? j.gi() == e.id()
        : j.profileId() == e.profileId() && j.start() == e.placement().start() && j.size() == e.placement().size()));
  }

  /** The family's journal of MIG instances made for claims; none outside the agent, or (with a warning) when unreadable. */
  private static List<MigJournal.Entry> journalled(HostContext host, java.util.function.Consumer<String> warn) {
    if (host.familyStateDir().isEmpty()) {
      return List.of();
    }
    MigJournal journal = new MigJournal(host.familyStateDir().get());
    try {
      return journal.read();
    } catch (java.io.IOException e) {
      warn.accept("MIG instances made for claims not known (" + e.getMessage() + "): every GPU instance counts as "
          + "an operator's");
      return List.of();
    }
  }

  private static SystemFacts systemFacts(NvmlSession nvml, FactReader result) {
    Optional<String> driver = Optional.empty();
    Optional<String> driverSemver = Optional.empty();
    Optional<String> cudaSemver = Optional.empty();
    try {
      driver = Optional.of(nvml.driverVersion());
      driverSemver = DriverVersions.semver(driver.get());
      if (driverSemver.isEmpty()) {
        result.warn("driver version " + Excerpt.of(driver.get()) + " is not a version number; driverVersion left out");
      }
    } catch (NvmlException e) {
      result.warn("driver version not read: " + e.getMessage());
    }
    try {
      int cuda = nvml.cudaDriverVersion();
      cudaSemver = DriverVersions.cudaSemver(cuda);
      if (cudaSemver.isEmpty()) {
        result.warn("CUDA driver version " + cuda + " is not valid; cudaDriverVersion left out");
      }
    } catch (NvmlException e) {
      result.warn("CUDA driver version not read: " + e.getMessage());
    }
    return new SystemFacts(driver, driverSemver, cudaSemver);
  }

  /** {@code gpu-2} before {@code gpu-10}: runs of digits compare as numbers. */
  static int naturalOrder(String a, String b) {
    int i = 0;
    int j = 0;
    while (i < a.length() && j < b.length()) {
      char ca = a.charAt(i);
      char cb = b.charAt(j);
      if (Character.isDigit(ca) && Character.isDigit(cb)) {
        int si = i;
        int sj = j;
        while (i < a.length() && Character.isDigit(a.charAt(i))) {
          i++;
        }
        while (j < b.length() && Character.isDigit(b.charAt(j))) {
          j++;
        }
        String na = a.substring(si, i).replaceFirst("^0+(?=.)", "");
        String nb = b.substring(sj, j).replaceFirst("^0+(?=.)", "");
        int c = na.length() != nb.length() ? Integer.compare(na.length(), nb.length()) : na.compareTo(nb);
        if (c != 0) {
          return c;
        }
      } else {
        if (ca != cb) {
          return Character.compare(ca, cb);
        }
        i++;
        j++;
      }
    }
    return Integer.compare(a.length() - i, b.length() - j);
  }
}
