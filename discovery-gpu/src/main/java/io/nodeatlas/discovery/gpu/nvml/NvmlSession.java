package io.nodeatlas.discovery.gpu.nvml;

/**
 * The NVML calls between one {@code nvmlInit_v2} and its {@code nvmlShutdown}. Every getter maps to
 * exactly one NVML function (named in its Javadoc) and throws {@link NvmlException} with that
 * function's return code, so a caller can keep going after one failed fact. Not thread-safe.
 */
public interface NvmlSession extends AutoCloseable {

  /** {@code nvmlSystemGetDriverVersion}, e.g. {@code 550.54.15}. */
  String driverVersion() throws NvmlException;

  /** {@code nvmlSystemGetNVMLVersion}, e.g. {@code 12.550.54.15}. */
  String nvmlVersion() throws NvmlException;

  /**
   * The CUDA version the driver supports, {@code major*1000 + minor*10}: {@code
   * nvmlSystemGetCudaDriverVersion_v2}, falling back to the unversioned call, which answers from the
   * driver when {@code libcuda.so.1} is not installed (NVML API Reference, nvmlSystemGetCudaDriverVersion).
   */
  int cudaDriverVersion() throws NvmlException;

  /** {@code nvmlDeviceGetCount_v2}: every GPU, including ones we may not be allowed to open. */
  int deviceCount() throws NvmlException;

  /** {@code nvmlDeviceGetHandleByIndex_v2}. */
  NvmlDevice deviceByIndex(int index) throws NvmlException;

  /** {@code nvmlDeviceGetMinorNumber}: N of {@code /dev/nvidiaN}. */
  int minorNumber(NvmlDevice device) throws NvmlException;

  /** {@code nvmlDeviceGetUUID}: {@code GPU-…} or, for a MIG handle, {@code MIG-…}. */
  String uuid(NvmlDevice device) throws NvmlException;

  /** {@code nvmlDeviceGetName}; for a MIG handle {@code "<product> MIG <profile>"}. */
  String name(NvmlDevice device) throws NvmlException;

  /** {@code nvmlDeviceGetBrand}: an {@code nvmlBrandType_t} value. */
  int brand(NvmlDevice device) throws NvmlException;

  /** {@code nvmlDeviceGetArchitecture}: an {@code nvmlDeviceArchitecture_t} value. */
  int architecture(NvmlDevice device) throws NvmlException;

  /** {@code nvmlDeviceGetCudaComputeCapability}. */
  ComputeCapability cudaComputeCapability(NvmlDevice device) throws NvmlException;

  /** {@code nvmlDeviceGetSerial}. */
  String serial(NvmlDevice device) throws NvmlException;

  /** {@code nvmlDeviceGetBoardPartNumber}. */
  String boardPartNumber(NvmlDevice device) throws NvmlException;

  /** {@code nvmlDeviceGetVbiosVersion}. */
  String vbiosVersion(NvmlDevice device) throws NvmlException;

  /**
   * {@code nvmlDeviceGetMemoryInfo_v2} (reserved memory accounted separately), falling back to the
   * v1 call on drivers without the symbol. For a MIG handle: that instance's memory.
   */
  MemoryInfo memoryInfo(NvmlDevice device) throws NvmlException;

  /** {@code nvmlDeviceGetPciInfo_v3}. */
  PciInfo pciInfo(NvmlDevice device) throws NvmlException;

  /** {@code nvmlDeviceGetMigMode}; {@code NOT_SUPPORTED} means the GPU is not MIG-capable. */
  MigMode migMode(NvmlDevice device) throws NvmlException;

  /** {@code nvmlDeviceGetMaxMigDeviceCount}: a loop bound, 0 when MIG is off. */
  int maxMigDeviceCount(NvmlDevice device) throws NvmlException;

  /** {@code nvmlDeviceGetMigDeviceHandleByIndex}; {@code NOT_FOUND} for an empty slot. */
  NvmlDevice migDeviceByIndex(NvmlDevice gpu, int index) throws NvmlException;

  /** {@code nvmlDeviceGetGpuInstanceId} of a MIG handle. */
  int gpuInstanceId(NvmlDevice mig) throws NvmlException;

  /** {@code nvmlDeviceGetComputeInstanceId} of a MIG handle. */
  int computeInstanceId(NvmlDevice mig) throws NvmlException;

  /** {@code nvmlDeviceGetAttributes_v2} of a MIG handle. */
  MigAttributes migAttributes(NvmlDevice mig) throws NvmlException;

  /**
   * {@code nvmlDeviceGetGpuInstanceProfileInfoV} with {@code nvmlGpuInstanceProfileInfo_v2_t}: the GPU
   * instance profile at {@code profileIndex} ({@code NVML_GPU_INSTANCE_PROFILE_*}, 0 to
   * {@link GpuInstanceProfile#INDEX_COUNT} - 1). Readable with MIG mode off; {@code NOT_SUPPORTED} for a
   * profile this GPU lacks, {@code INVALID_ARGUMENT} past the last index.
   */
  GpuInstanceProfile gpuInstanceProfile(NvmlDevice gpu, int profileIndex) throws NvmlException;

  /**
   * {@code nvmlDeviceGetGpuInstancePossiblePlacements_v2} for a profile id: every placement, whether
   * MIG is enabled or not, in memory slices (at most {@link Placement#MAX_PLACEMENTS}).
   */
  java.util.List<Placement> gpuInstancePlacements(NvmlDevice gpu, int profileId) throws NvmlException;

  /** {@code nvmlDeviceGetGpuInstanceRemainingCapacity}: how many more instances of a profile id fit now. */
  int gpuInstanceRemainingCapacity(NvmlDevice gpu, int profileId) throws NvmlException;

  /**
   * {@code nvmlDeviceCreateGpuInstanceWithPlacement}: a GPU instance of a profile id at one of its possible
   * placements. {@code NOT_SUPPORTED}: MIG mode off; {@code INSUFFICIENT_RESOURCES}: the placement overlaps an
   * instance or the GPU's slices ran out; {@code INVALID_ARGUMENT}: not a possible placement of the profile.
   */
  GpuInstance createGpuInstance(NvmlDevice gpu, int profileId, Placement placement) throws NvmlException;

  /** {@code nvmlDeviceGetGpuInstanceById}; {@code NOT_FOUND} when the GPU has no instance of that id. */
  GpuInstance gpuInstanceById(NvmlDevice gpu, int id) throws NvmlException;

  /** {@code nvmlDeviceGetGpuInstances}: the GPU instances of a profile id, at most {@code max}. */
  java.util.List<GpuInstance> gpuInstances(NvmlDevice gpu, int profileId, int max) throws NvmlException;

  /** {@code nvmlGpuInstanceGetInfo}: the instance's id, profile id and placement. */
  GpuInstanceInfo gpuInstanceInfo(GpuInstance gi) throws NvmlException;

  /** {@code nvmlGpuInstanceDestroy}; {@code IN_USE} while it has compute instances. */
  void destroyGpuInstance(GpuInstance gi) throws NvmlException;

  /**
   * {@code nvmlGpuInstanceGetComputeInstanceProfileInfoV} with {@code nvmlComputeInstanceProfileInfo_v2_t},
   * the shared engine profile: the compute instance profile at {@code profileIndex}
   * ({@code NVML_COMPUTE_INSTANCE_PROFILE_*}); {@code NOT_SUPPORTED} when larger than the GPU instance.
   */
  ComputeInstanceProfile computeInstanceProfile(GpuInstance gi, int profileIndex) throws NvmlException;

  /** {@code nvmlGpuInstanceCreateComputeInstance}; {@code INSUFFICIENT_RESOURCES} when its slices are taken. */
  ComputeInstance createComputeInstance(GpuInstance gi, int profileId) throws NvmlException;

  /** {@code nvmlGpuInstanceGetComputeInstanceById}; {@code NOT_FOUND} when there is none of that id. */
  ComputeInstance computeInstanceById(GpuInstance gi, int id) throws NvmlException;

  /** {@code nvmlComputeInstanceGetInfo_v2}: its id, profile id and MIG device handle (0 when NVML gives none). */
  ComputeInstanceInfo computeInstanceInfo(ComputeInstance ci) throws NvmlException;

  /** {@code nvmlComputeInstanceDestroy}. */
  void destroyComputeInstance(ComputeInstance ci) throws NvmlException;

  /** {@code nvmlEventSetCreate}: an event set handle, to be freed with {@link #freeEventSet}. */
  long createEventSet() throws NvmlException;

  /** {@code nvmlDeviceGetSupportedEventTypes}: an {@code nvmlEventType*} mask. */
  long supportedEventTypes(NvmlDevice device) throws NvmlException;

  /** {@code nvmlDeviceRegisterEvents}: {@code eventTypes} of {@code device} are delivered to {@code eventSet}. */
  void registerEvents(NvmlDevice device, long eventTypes, long eventSet) throws NvmlException;

  /**
   * {@code nvmlEventSetWait_v2}, waiting at most {@code timeoutMillis}: the next event, or empty when
   * none came ({@code NVML_ERROR_TIMEOUT}). {@code NVML_ERROR_GPU_IS_LOST} is thrown as any other error.
   */
  java.util.Optional<NvmlEvent> waitEvent(long eventSet, int timeoutMillis) throws NvmlException;

  /** {@code nvmlEventSetFree}; never throws. */
  void freeEventSet(long eventSet);

  /** {@code nvmlShutdown}; never throws, since there is nothing a caller could do about it. */
  @Override
  void close();

  /** {@code nvmlDeviceGetCudaComputeCapability}'s two out-parameters. */
  record ComputeCapability(int major, int minor) {}

  /** {@code nvmlMemory_v2_t} in bytes; {@code reserved} is 0 when only the v1 call exists. */
  record MemoryInfo(long total, long reserved, long free, long used) {}

  /**
   * {@code nvmlPciInfo_t}: {@code busId} as NVML prints it ({@code 00000000:3B:00.0}); the ids are
   * packed {@code device << 16 | vendor}.
   */
  record PciInfo(long domain, int bus, int device, int pciDeviceId, int pciSubSystemId, String busId) {}

  /**
   * {@code nvmlEventData_t}: the device handle the event is about, its {@code nvmlEventType*} bit, the
   * data (the XID for {@code nvmlEventTypeXidCriticalError}) and the MIG instance ids (all ones: the GPU).
   */
  record NvmlEvent(NvmlDevice device, long eventType, long eventData, int gpuInstanceId, int computeInstanceId) {
    /** {@code nvmlEventTypeXidCriticalError} (nvml.h). */
    public static final long XID_CRITICAL_ERROR = 0x8L;
  }

  /**
   * {@code nvmlGpuInstanceProfileInfo_v2_t}: a GPU instance profile by its index (what the info call
   * takes) and id (what placements and creation take), its compute slices, how many instances fit, its
   * engines and memory, and the name NVML gives it ({@code MIG 1g.18gb}).
   */
  record GpuInstanceProfile(int index, int id, int sliceCount, int instanceCount, int multiprocessorCount,
      int copyEngineCount, int decoderCount, int encoderCount, int jpegCount, int ofaCount, long memoryMiB,
      String name) {
    /** {@code NVML_GPU_INSTANCE_PROFILE_COUNT}: profile indexes are 0 to 16 (nvml.h, NVML 12.x). */
    public static final int INDEX_COUNT = 17;
  }

  /** {@code nvmlGpuInstancePlacement_t}: the first memory slice and how many a GPU instance occupies. */
  record Placement(int start, int size) {
    /** More placements than any GPU has memory slices is an answer we do not trust. */
    public static final int MAX_PLACEMENTS = 64;
  }

  /** An opaque {@code nvmlGpuInstance_t}, valid inside its session. */
  record GpuInstance(long handle) {}

  /** An opaque {@code nvmlComputeInstance_t}, valid inside its session. */
  record ComputeInstance(long handle) {}

  /** {@code nvmlGpuInstanceInfo_t}: id, profile id and placement. */
  record GpuInstanceInfo(int id, int profileId, Placement placement) {}

  /** {@code nvmlComputeInstanceInfo_t}: the MIG device handle (0: none given), id and profile id. */
  record ComputeInstanceInfo(long migDevice, int id, int profileId) {}

  /** {@code nvmlComputeInstanceProfileInfo_v2_t}: index asked, id (what creation takes), slices, SMs, name. */
  record ComputeInstanceProfile(int index, int id, int sliceCount, int instanceCount, int multiprocessorCount,
      String name) {
    /** {@code NVML_COMPUTE_INSTANCE_PROFILE_COUNT} (nvml.h, NVML 12.x): indexes 0 to 7. */
    public static final int INDEX_COUNT = 8;
  }

  /** {@code nvmlDeviceGetMigMode}'s current and pending mode. */
  record MigMode(boolean current, boolean pending) {}

  /** {@code nvmlDeviceAttributes_t}: a MIG device's share of engines and its memory in MiB. */
  record MigAttributes(
      int multiprocessorCount,
      int sharedCopyEngineCount,
      int sharedDecoderCount,
      int sharedEncoderCount,
      int sharedJpegCount,
      int sharedOfaCount,
      int gpuInstanceSliceCount,
      int computeInstanceSliceCount,
      long memorySizeMiB) {}
}
