package io.nodeatlas.discovery.gpu.nvml;

import com.sun.jna.Library;
import com.sun.jna.Pointer;
import com.sun.jna.ptr.IntByReference;
import com.sun.jna.ptr.LongByReference;
import com.sun.jna.ptr.PointerByReference;

/**
 * The raw JNA mapping of the NVML functions we call. JNA binds by literal symbol name, so the
 * versioned names the C header's macros would pick are spelled out ({@code nvmlInit_v2},
 * {@code nvmlDeviceGetCount_v2}, {@code nvmlDeviceGetPciInfo_v3}, …, as {@code nvml.h} maps the
 * unversioned names with macros); the unversioned v1 symbols have older semantics and layouts and are
 * only used where stated.
 * {@code nvmlDevice_t} is a struct holding one pointer, passed by value, so a {@link Pointer} is
 * ABI-identical on LP64 Linux. {@code unsigned int} out-parameters are read as Java ints.
 */
interface NvmlNative extends Library {

  int nvmlInit_v2();

  int nvmlShutdown();

  String nvmlErrorString(int result);

  int nvmlSystemGetDriverVersion(byte[] version, int length);

  int nvmlSystemGetNVMLVersion(byte[] version, int length);

  int nvmlSystemGetCudaDriverVersion_v2(IntByReference version);

  /**
   * v1 on purpose: it answers from the driver when libcuda is absent, where {@code _v2} fails
   * (NVML API Reference, {@code nvmlSystemGetCudaDriverVersion}).
   */
  int nvmlSystemGetCudaDriverVersion(IntByReference version);

  int nvmlDeviceGetCount_v2(IntByReference count);

  int nvmlDeviceGetHandleByIndex_v2(int index, PointerByReference device);

  int nvmlDeviceGetMinorNumber(Pointer device, IntByReference minor);

  int nvmlDeviceGetUUID(Pointer device, byte[] uuid, int length);

  int nvmlDeviceGetName(Pointer device, byte[] name, int length);

  int nvmlDeviceGetBrand(Pointer device, IntByReference brand);

  int nvmlDeviceGetArchitecture(Pointer device, IntByReference architecture);

  int nvmlDeviceGetCudaComputeCapability(Pointer device, IntByReference major, IntByReference minor);

  int nvmlDeviceGetSerial(Pointer device, byte[] serial, int length);

  int nvmlDeviceGetBoardPartNumber(Pointer device, byte[] partNumber, int length);

  int nvmlDeviceGetVbiosVersion(Pointer device, byte[] version, int length);

  int nvmlDeviceGetMemoryInfo_v2(Pointer device, Pointer memoryV2);

  /** v1 layout ({@code total, free, used}); only a fallback for drivers without {@code _v2}. */
  int nvmlDeviceGetMemoryInfo(Pointer device, Pointer memoryV1);

  int nvmlDeviceGetPciInfo_v3(Pointer device, Pointer pciInfo);

  int nvmlDeviceGetMigMode(Pointer device, IntByReference currentMode, IntByReference pendingMode);

  int nvmlDeviceGetMaxMigDeviceCount(Pointer device, IntByReference count);

  int nvmlDeviceGetMigDeviceHandleByIndex(Pointer device, int index, PointerByReference migDevice);

  int nvmlDeviceGetGpuInstanceId(Pointer device, IntByReference id);

  int nvmlDeviceGetComputeInstanceId(Pointer device, IntByReference id);

  int nvmlDeviceGetAttributes_v2(Pointer device, Pointer attributes);

  // MIG GPU instance profiles (NVML API Reference, "Multi Instance GPU Management"): read-only calls;
  // discovery never creates or destroys instances.
  int nvmlDeviceGetGpuInstanceProfileInfoV(Pointer device, int profileIndex, Pointer infoV2);

  int nvmlDeviceGetGpuInstancePossiblePlacements_v2(Pointer device, int profileId, Pointer placements,
      IntByReference count);

  int nvmlDeviceGetGpuInstanceRemainingCapacity(Pointer device, int profileId, IntByReference count);

  // MIG instance management (NVML API Reference, "Multi Instance GPU Management"): only the gpu family's
  // claim-time side calls these, for instances it creates at Prepare and destroys at Unprepare.
  // nvmlGpuInstance_t and nvmlComputeInstance_t are opaque pointers, passed by value.
  int nvmlDeviceCreateGpuInstanceWithPlacement(Pointer device, int profileId, Pointer placement,
      PointerByReference gpuInstance);

  int nvmlDeviceGetGpuInstanceById(Pointer device, int id, PointerByReference gpuInstance);

  int nvmlDeviceGetGpuInstances(Pointer device, int profileId, Pointer gpuInstances, IntByReference count);

  int nvmlGpuInstanceGetInfo(Pointer gpuInstance, Pointer info);

  int nvmlGpuInstanceDestroy(Pointer gpuInstance);

  int nvmlGpuInstanceGetComputeInstanceProfileInfoV(Pointer gpuInstance, int profile, int engProfile, Pointer infoV2);

  int nvmlGpuInstanceCreateComputeInstance(Pointer gpuInstance, int profileId, PointerByReference computeInstance);

  int nvmlGpuInstanceGetComputeInstanceById(Pointer gpuInstance, int id, PointerByReference computeInstance);

  /** {@code nvmlComputeInstanceGetInfo} is a macro for this. */
  int nvmlComputeInstanceGetInfo_v2(Pointer computeInstance, Pointer info);

  int nvmlComputeInstanceDestroy(Pointer computeInstance);

  // Events (nvml.h "Event Handling Methods"): nvmlEventSet_t is an opaque pointer, passed by value.
  int nvmlEventSetCreate(PointerByReference set);

  int nvmlDeviceGetSupportedEventTypes(Pointer device, LongByReference eventTypes);

  int nvmlDeviceRegisterEvents(Pointer device, long eventTypes, Pointer set);

  /** {@code nvmlEventSetWait} is a macro for this; the v1 symbol fills an older {@code nvmlEventData_t}. */
  int nvmlEventSetWait_v2(Pointer set, Pointer data, int timeoutms);

  int nvmlEventSetFree(Pointer set);
}
