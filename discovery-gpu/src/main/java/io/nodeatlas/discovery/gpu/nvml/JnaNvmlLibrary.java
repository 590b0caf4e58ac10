package io.nodeatlas.discovery.gpu.nvml;

import com.sun.jna.Memory;
import com.sun.jna.Native;
import com.sun.jna.Pointer;
import com.sun.jna.ptr.IntByReference;
import com.sun.jna.ptr.PointerByReference;
import java.nio.charset.StandardCharsets;
import java.nio.file.Path;

/**
 * {@link NvmlLibrary} over the real {@code libnvidia-ml.so.1} through JNA. Loading is explicit (a
 * file, or the SONAME through the dynamic linker's search), never done in a static initialiser, so
 * a missing library is an ordinary {@link NvmlException} with {@code NVML_ERROR_LIBRARY_NOT_FOUND}
 * and not an {@link UnsatisfiedLinkError} escaping into the agent.
 */
public final class JnaNvmlLibrary implements NvmlLibrary {

  /** The SONAME; the unversioned {@code libnvidia-ml.so} only exists with developer packages. */
  public static final String SONAME = "libnvidia-ml.so.1";

  // Buffer sizes from nvml.h (NVML_DEVICE_*_BUFFER_SIZE, NVML_SYSTEM_*_BUFFER_SIZE); the larger v2 sizes where there are two.
  private static final int NAME_BUFFER = 96;
  private static final int UUID_BUFFER = 96;
  private static final int SERIAL_BUFFER = 30;
  private static final int PART_NUMBER_BUFFER = 80;
  private static final int VBIOS_BUFFER = 32;
  private static final int SYSTEM_VERSION_BUFFER = 80;

  // Sizes and offsets of nvml.h's structs on LP64 Linux (the fake's _Static_asserts check the same
  // numbers); read with explicit offsets, not Structure reflection.
  private static final int PCI_INFO_SIZE = 68;
  private static final int MEMORY_V1_SIZE = 24;
  private static final int MEMORY_V2_SIZE = 40;
  private static final int MEMORY_V2_VERSION = MEMORY_V2_SIZE | (2 << 24);
  private static final int DEVICE_ATTRIBUTES_SIZE = 40;
  /** {@code nvmlGpuInstanceProfileInfo_v2_t}: version, id, isP2pSupported, sliceCount, instanceCount, SMs,
   * CE, DEC, ENC, JPEG, OFA (unsigned ints @0..40), memorySizeMB@48, name[96]@56. */
  private static final int GI_PROFILE_INFO_V2_SIZE = 152;
  private static final int GI_PROFILE_INFO_V2_VERSION = GI_PROFILE_INFO_V2_SIZE | (2 << 24);
  private static final int NAME_V2_BUFFER = 96;
  /** {@code nvmlGpuInstancePlacement_t}: start, size. */
  private static final int PLACEMENT_SIZE = 8;
  /** {@code nvmlGpuInstanceInfo_t}: device pointer, id@8, profileId@12, placement (start@16, size@20). */
  private static final int GI_INFO_SIZE = 24;
  /** {@code nvmlComputeInstanceInfo_t}: device pointer, gpuInstance pointer, id@16, profileId@20, placement@24. */
  private static final int CI_INFO_SIZE = 32;
  /** {@code nvmlComputeInstanceProfileInfo_v2_t}: ten unsigned ints (version, id, sliceCount, instanceCount,
   * SMs, CE, DEC, ENC, JPEG, OFA) and name[96]@40. */
  private static final int CI_PROFILE_INFO_V2_SIZE = 136;
  private static final int CI_PROFILE_INFO_V2_VERSION = CI_PROFILE_INFO_V2_SIZE | (2 << 24);
  /** {@code nvmlEventData_t}: device pointer, eventType, eventData (8 bytes each), gpuInstanceId, computeInstanceId. */
  private static final int EVENT_DATA_SIZE = 32;
  /** Longest single wait: a health poll must come back (the kubelet's and the agent's loops wait on it). */
  public static final int MAX_EVENT_WAIT_MILLIS = 5_000;

  private final NvmlNative nvml;
  private final String description;

  private JnaNvmlLibrary(NvmlNative nvml, String description) {
    this.nvml = nvml;
    this.description = description;
  }

  /** Loads NVML from exactly this file. */
  public static JnaNvmlLibrary load(Path file) throws NvmlException {
    return load(file.toAbsolutePath().toString(), file.toAbsolutePath().toString());
  }

  /**
   * Loads {@value #SONAME} the way the platform finds libraries: JNA's {@code jna.library.path}
   * first, then the dynamic linker's search path.
   */
  public static JnaNvmlLibrary loadFromLibraryPath() throws NvmlException {
    return load(SONAME, SONAME + " from the library path");
  }

  private static JnaNvmlLibrary load(String name, String description) throws NvmlException {
    try {
      return new JnaNvmlLibrary(Native.load(name, NvmlNative.class), description);
    } catch (UnsatisfiedLinkError e) {
      throw new NvmlException("dlopen(" + name + ")", NvmlReturn.ERROR_LIBRARY_NOT_FOUND.code(),
          firstLine(e.getMessage()));
    }
  }

  @Override
  public String description() {
    return description;
  }

  @Override
  public NvmlSession init() throws NvmlException {
    check("nvmlInit_v2", call(() -> nvml.nvmlInit_v2()));
    return new Session();
  }

  @Override
  public String toString() {
    return "NVML " + description;
  }

  /** Runs one native call; a symbol the loaded library lacks becomes FUNCTION_NOT_FOUND. */
  private static int call(NativeCall c) {
    try {
      return c.invoke();
    } catch (UnsatisfiedLinkError e) {
      return NvmlReturn.ERROR_FUNCTION_NOT_FOUND.code();
    }
  }

  private void check(String function, int rc) throws NvmlException {
    if (rc != NvmlReturn.SUCCESS.code()) {
      throw new NvmlException(function, rc, describe(rc));
    }
  }

  private String describe(int rc) {
    try {
      String text = nvml.nvmlErrorString(rc);
      if (text != null && !text.isBlank()) {
        return text;
      }
    } catch (UnsatisfiedLinkError e) {
      // Fall through to the enum name, as go-nvml does before the library is usable.
    }
    return NvmlReturn.of(rc).name();
  }

  private static String firstLine(String message) {
    if (message == null) {
      return "cannot be loaded";
    }
    int nl = message.indexOf('\n');
    return nl < 0 ? message : message.substring(0, nl);
  }

  @FunctionalInterface
  private interface NativeCall {
    int invoke();
  }

  @FunctionalInterface
  private interface StringCall {
    int invoke(byte[] buffer, int length);
  }

  private final class Session implements NvmlSession {
    private boolean closed;

    private String string(String function, int size, StringCall c) throws NvmlException {
      byte[] buffer = new byte[size];
      check(function, call(() -> c.invoke(buffer, size)));
      int end = 0;
      while (end < buffer.length && buffer[end] != 0) {
        end++;
      }
      return new String(buffer, 0, end, StandardCharsets.UTF_8);
    }

    private int integer(String function, java.util.function.ToIntFunction<IntByReference> c) throws NvmlException {
      IntByReference out = new IntByReference();
      check(function, call(() -> c.applyAsInt(out)));
      return out.getValue();
    }

    private Pointer handle(NvmlDevice device) {
      return new Pointer(device.handle());
    }

    @Override
    public String driverVersion() throws NvmlException {
      return string("nvmlSystemGetDriverVersion", SYSTEM_VERSION_BUFFER, nvml::nvmlSystemGetDriverVersion);
    }

    @Override
    public String nvmlVersion() throws NvmlException {
      return string("nvmlSystemGetNVMLVersion", SYSTEM_VERSION_BUFFER, nvml::nvmlSystemGetNVMLVersion);
    }

    @Override
    public int cudaDriverVersion() throws NvmlException {
      try {
        return integer("nvmlSystemGetCudaDriverVersion_v2", nvml::nvmlSystemGetCudaDriverVersion_v2);
      } catch (NvmlException e) {
        return integer("nvmlSystemGetCudaDriverVersion", nvml::nvmlSystemGetCudaDriverVersion);
      }
    }

    @Override
    public int deviceCount() throws NvmlException {
      return integer("nvmlDeviceGetCount_v2", nvml::nvmlDeviceGetCount_v2);
    }

    @Override
    public NvmlDevice deviceByIndex(int index) throws NvmlException {
      PointerByReference out = new PointerByReference();
      check("nvmlDeviceGetHandleByIndex_v2", call(() -> nvml.nvmlDeviceGetHandleByIndex_v2(index, out)));
      return new NvmlDevice(Pointer.nativeValue(out.getValue()));
    }

    @Override
    public int minorNumber(NvmlDevice device) throws NvmlException {
      return integer("nvmlDeviceGetMinorNumber", out -> nvml.nvmlDeviceGetMinorNumber(handle(device), out));
    }

    @Override
    public String uuid(NvmlDevice device) throws NvmlException {
      return string("nvmlDeviceGetUUID", UUID_BUFFER, (b, n) -> nvml.nvmlDeviceGetUUID(handle(device), b, n));
    }

    @Override
    public String name(NvmlDevice device) throws NvmlException {
      return string("nvmlDeviceGetName", NAME_BUFFER, (b, n) -> nvml.nvmlDeviceGetName(handle(device), b, n));
    }

    @Override
    public int brand(NvmlDevice device) throws NvmlException {
      return integer("nvmlDeviceGetBrand", out -> nvml.nvmlDeviceGetBrand(handle(device), out));
    }

    @Override
    public int architecture(NvmlDevice device) throws NvmlException {
      return integer("nvmlDeviceGetArchitecture", out -> nvml.nvmlDeviceGetArchitecture(handle(device), out));
    }

    @Override
    public ComputeCapability cudaComputeCapability(NvmlDevice device) throws NvmlException {
      IntByReference major = new IntByReference();
      IntByReference minor = new IntByReference();
      check("nvmlDeviceGetCudaComputeCapability",
          call(() -> nvml.nvmlDeviceGetCudaComputeCapability(handle(device), major, minor)));
      return new ComputeCapability(major.getValue(), minor.getValue());
    }

    @Override
    public String serial(NvmlDevice device) throws NvmlException {
      return string("nvmlDeviceGetSerial", SERIAL_BUFFER, (b, n) -> nvml.nvmlDeviceGetSerial(handle(device), b, n));
    }

    @Override
    public String boardPartNumber(NvmlDevice device) throws NvmlException {
      return string("nvmlDeviceGetBoardPartNumber", PART_NUMBER_BUFFER,
          (b, n) -> nvml.nvmlDeviceGetBoardPartNumber(handle(device), b, n));
    }

    @Override
    public String vbiosVersion(NvmlDevice device) throws NvmlException {
      return string("nvmlDeviceGetVbiosVersion", VBIOS_BUFFER,
          (b, n) -> nvml.nvmlDeviceGetVbiosVersion(handle(device), b, n));
    }

    @Override
    public MemoryInfo memoryInfo(NvmlDevice device) throws NvmlException {
      try (Memory m = new Memory(MEMORY_V2_SIZE)) {
        m.clear();
        m.setInt(0, MEMORY_V2_VERSION);
        int rc = call(() -> nvml.nvmlDeviceGetMemoryInfo_v2(handle(device), m));
        if (rc == NvmlReturn.SUCCESS.code()) {
          // nvmlMemory_v2_t: version@0, 4 bytes padding, total@8, reserved@16, free@24, used@32.
          return new MemoryInfo(m.getLong(8), m.getLong(16), m.getLong(24), m.getLong(32));
        }
        if (rc != NvmlReturn.ERROR_FUNCTION_NOT_FOUND.code()
            && rc != NvmlReturn.ERROR_ARGUMENT_VERSION_MISMATCH.code()) {
          check("nvmlDeviceGetMemoryInfo_v2", rc);
        }
      }
      try (Memory m = new Memory(MEMORY_V1_SIZE)) {
        m.clear();
        check("nvmlDeviceGetMemoryInfo", call(() -> nvml.nvmlDeviceGetMemoryInfo(handle(device), m)));
        // nvmlMemory_t: total@0, free@8, used@16.
        return new MemoryInfo(m.getLong(0), 0, m.getLong(8), m.getLong(16));
      }
    }

    @Override
    public PciInfo pciInfo(NvmlDevice device) throws NvmlException {
      try (Memory m = new Memory(PCI_INFO_SIZE)) {
        m.clear();
        check("nvmlDeviceGetPciInfo_v3", call(() -> nvml.nvmlDeviceGetPciInfo_v3(handle(device), m)));
        // nvmlPciInfo_t: busIdLegacy[16]@0, domain@16, bus@20, device@24, pciDeviceId@28,
        // pciSubSystemId@32, busId[32]@36.
        byte[] busId = m.getByteArray(36, 32);
        int end = 0;
        while (end < busId.length && busId[end] != 0) {
          end++;
        }
        return new PciInfo(
            Integer.toUnsignedLong(m.getInt(16)),
            m.getInt(20),
            m.getInt(24),
            m.getInt(28),
            m.getInt(32),
            new String(busId, 0, end, StandardCharsets.US_ASCII));
      }
    }

    @Override
    public MigMode migMode(NvmlDevice device) throws NvmlException {
      IntByReference current = new IntByReference();
      IntByReference pending = new IntByReference();
      check("nvmlDeviceGetMigMode", call(() -> nvml.nvmlDeviceGetMigMode(handle(device), current, pending)));
      return new MigMode(current.getValue() == 1, pending.getValue() == 1);
    }

    @Override
    public int maxMigDeviceCount(NvmlDevice device) throws NvmlException {
      return integer("nvmlDeviceGetMaxMigDeviceCount", out -> nvml.nvmlDeviceGetMaxMigDeviceCount(handle(device), out));
    }

    @Override
    public NvmlDevice migDeviceByIndex(NvmlDevice gpu, int index) throws NvmlException {
      PointerByReference out = new PointerByReference();
      check("nvmlDeviceGetMigDeviceHandleByIndex",
          call(() -> nvml.nvmlDeviceGetMigDeviceHandleByIndex(handle(gpu), index, out)));
      return new NvmlDevice(Pointer.nativeValue(out.getValue()));
    }

    @Override
    public int gpuInstanceId(NvmlDevice mig) throws NvmlException {
      return integer("nvmlDeviceGetGpuInstanceId", out -> nvml.nvmlDeviceGetGpuInstanceId(handle(mig), out));
    }

    @Override
    public int computeInstanceId(NvmlDevice mig) throws NvmlException {
      return integer("nvmlDeviceGetComputeInstanceId", out -> nvml.nvmlDeviceGetComputeInstanceId(handle(mig), out));
    }

    @Override
    public MigAttributes migAttributes(NvmlDevice mig) throws NvmlException {
      try (Memory m = new Memory(DEVICE_ATTRIBUTES_SIZE)) {
        m.clear();
        check("nvmlDeviceGetAttributes_v2", call(() -> nvml.nvmlDeviceGetAttributes_v2(handle(mig), m)));
        // nvmlDeviceAttributes_t: eight unsigned ints @0..28, then memorySizeMB@32 (MiB).
        return new MigAttributes(
            m.getInt(0), m.getInt(4), m.getInt(8), m.getInt(12), m.getInt(16), m.getInt(20),
            m.getInt(24), m.getInt(28), m.getLong(32));
      }
    }

    @Override
    public GpuInstanceProfile gpuInstanceProfile(NvmlDevice gpu, int profileIndex) throws NvmlException {
      try (Memory m = new Memory(GI_PROFILE_INFO_V2_SIZE)) {
        m.clear();
        m.setInt(0, GI_PROFILE_INFO_V2_VERSION);
        check("nvmlDeviceGetGpuInstanceProfileInfoV",
            call(() -> nvml.nvmlDeviceGetGpuInstanceProfileInfoV(handle(gpu), profileIndex, m)));
        byte[] name = m.getByteArray(56, NAME_V2_BUFFER);
        int end = 0;
        while (end < name.length && name[end] != 0) {
          end++;
        }
        return new GpuInstanceProfile(profileIndex, m.getInt(4), m.getInt(12), m.getInt(16), m.getInt(20),
            m.getInt(24), m.getInt(28), m.getInt(32), m.getInt(36), m.getInt(40), m.getLong(48),
            new String(name, 0, end, StandardCharsets.UTF_8));
      }
    }

    @Override
    public java.util.List<Placement> gpuInstancePlacements(NvmlDevice gpu, int profileId) throws NvmlException {
      IntByReference count = new IntByReference();
      check("nvmlDeviceGetGpuInstancePossiblePlacements_v2",
          call(() -> nvml.nvmlDeviceGetGpuInstancePossiblePlacements_v2(handle(gpu), profileId, null, count)));
      int n = count.getValue();
      if (n < 0 || n > Placement.MAX_PLACEMENTS) {
        throw new NvmlException("nvmlDeviceGetGpuInstancePossiblePlacements_v2", NvmlReturn.ERROR_UNKNOWN.code(),
            n + " placements, more than the " + Placement.MAX_PLACEMENTS + " we accept");
      }
      if (n == 0) {
        return java.util.List.of();
      }
      try (Memory m = new Memory((long) n * PLACEMENT_SIZE)) {
        m.clear();
        IntByReference filled = new IntByReference(n);
        check("nvmlDeviceGetGpuInstancePossiblePlacements_v2",
            call(() -> nvml.nvmlDeviceGetGpuInstancePossiblePlacements_v2(handle(gpu), profileId, m, filled)));
        int got = Math.min(n, Math.max(0, filled.getValue()));
        java.util.List<Placement> placements = new java.util.ArrayList<>(got);
        for (int i = 0; i < got; i++) {
          placements.add(new Placement(m.getInt((long) i * PLACEMENT_SIZE), m.getInt((long) i * PLACEMENT_SIZE + 4)));
        }
        return java.util.List.copyOf(placements);
      }
    }

    @Override
    public int gpuInstanceRemainingCapacity(NvmlDevice gpu, int profileId) throws NvmlException {
      return integer("nvmlDeviceGetGpuInstanceRemainingCapacity",
          out -> nvml.nvmlDeviceGetGpuInstanceRemainingCapacity(handle(gpu), profileId, out));
    }

    @Override
    public GpuInstance createGpuInstance(NvmlDevice gpu, int profileId, Placement placement) throws NvmlException {
      try (Memory m = new Memory(PLACEMENT_SIZE)) {
        m.setInt(0, placement.start());
        m.setInt(4, placement.size());
        PointerByReference out = new PointerByReference();
        check("nvmlDeviceCreateGpuInstanceWithPlacement",
            call(() -> nvml.nvmlDeviceCreateGpuInstanceWithPlacement(handle(gpu), profileId, m, out)));
        return new GpuInstance(Pointer.nativeValue(out.getValue()));
      }
    }

    @Override
    public GpuInstance gpuInstanceById(NvmlDevice gpu, int id) throws NvmlException {
      PointerByReference out = new PointerByReference();
      check("nvmlDeviceGetGpuInstanceById", call(() -> nvml.nvmlDeviceGetGpuInstanceById(handle(gpu), id, out)));
      return new GpuInstance(Pointer.nativeValue(out.getValue()));
    }

    @Override
    public java.util.List<GpuInstance> gpuInstances(NvmlDevice gpu, int profileId, int max) throws NvmlException {
      int size = Math.max(1, Math.min(max, Placement.MAX_PLACEMENTS));
      try (Memory m = new Memory((long) size * Native.POINTER_SIZE)) {
        m.clear();
        IntByReference count = new IntByReference(size);
        check("nvmlDeviceGetGpuInstances", call(() -> nvml.nvmlDeviceGetGpuInstances(handle(gpu), profileId, m, count)));
        int got = Math.min(size, Math.max(0, count.getValue()));
        java.util.List<GpuInstance> out = new java.util.ArrayList<>(got);
        for (int i = 0; i < got; i++) {
          out.add(new GpuInstance(Pointer.nativeValue(m.getPointer((long) i * Native.POINTER_SIZE))));
        }
        return java.util.List.copyOf(out);
      }
    }

    @Override
    public GpuInstanceInfo gpuInstanceInfo(GpuInstance gi) throws NvmlException {
      try (Memory m = new Memory(GI_INFO_SIZE)) {
        m.clear();
        check("nvmlGpuInstanceGetInfo", call(() -> nvml.nvmlGpuInstanceGetInfo(new Pointer(gi.handle()), m)));
        return new GpuInstanceInfo(m.getInt(8), m.getInt(12), new Placement(m.getInt(16), m.getInt(20)));
      }
    }

    @Override
    public void destroyGpuInstance(GpuInstance gi) throws NvmlException {
      check("nvmlGpuInstanceDestroy", call(() -> nvml.nvmlGpuInstanceDestroy(new Pointer(gi.handle()))));
    }

    @Override
    public ComputeInstanceProfile computeInstanceProfile(GpuInstance gi, int profileIndex) throws NvmlException {
      try (Memory m = new Memory(CI_PROFILE_INFO_V2_SIZE)) {
        m.clear();
        m.setInt(0, CI_PROFILE_INFO_V2_VERSION);
        check("nvmlGpuInstanceGetComputeInstanceProfileInfoV",
            call(() -> nvml.nvmlGpuInstanceGetComputeInstanceProfileInfoV(new Pointer(gi.handle()), profileIndex, 0, m)));
        byte[] name = m.getByteArray(40, NAME_V2_BUFFER);
        int end = 0;
        while (end < name.length && name[end] != 0) {
          end++;
        }
        return new ComputeInstanceProfile(profileIndex, m.getInt(4), m.getInt(8), m.getInt(12), m.getInt(16),
            new String(name, 0, end, StandardCharsets.UTF_8));
      }
    }

    @Override
    public ComputeInstance createComputeInstance(GpuInstance gi, int profileId) throws NvmlException {
      PointerByReference out = new PointerByReference();
      check("nvmlGpuInstanceCreateComputeInstance",
          call(() -> nvml.nvmlGpuInstanceCreateComputeInstance(new Pointer(gi.handle()), profileId, out)));
      return new ComputeInstance(Pointer.nativeValue(out.getValue()));
    }

    @Override
    public ComputeInstance computeInstanceById(GpuInstance gi, int id) throws NvmlException {
      PointerByReference out = new PointerByReference();
      check("nvmlGpuInstanceGetComputeInstanceById",
          call(() -> nvml.nvmlGpuInstanceGetComputeInstanceById(new Pointer(gi.handle()), id, out)));
      return new ComputeInstance(Pointer.nativeValue(out.getValue()));
    }

    @Override
    public ComputeInstanceInfo computeInstanceInfo(ComputeInstance ci) throws NvmlException {
      try (Memory m = new Memory(CI_INFO_SIZE)) {
        m.clear();
        check("nvmlComputeInstanceGetInfo_v2",
            call(() -> nvml.nvmlComputeInstanceGetInfo_v2(new Pointer(ci.handle()), m)));
        return new ComputeInstanceInfo(m.getLong(0), m.getInt(16), m.getInt(20));
      }
    }

    @Override
    public void destroyComputeInstance(ComputeInstance ci) throws NvmlException {
      check("nvmlComputeInstanceDestroy", call(() -> nvml.nvmlComputeInstanceDestroy(new Pointer(ci.handle()))));
    }

    @Override
    public long createEventSet() throws NvmlException {
      PointerByReference out = new PointerByReference();
      check("nvmlEventSetCreate", call(() -> nvml.nvmlEventSetCreate(out)));
      return Pointer.nativeValue(out.getValue());
    }

    @Override
    public long supportedEventTypes(NvmlDevice device) throws NvmlException {
      com.sun.jna.ptr.LongByReference out = new com.sun.jna.ptr.LongByReference();
      check("nvmlDeviceGetSupportedEventTypes", call(() -> nvml.nvmlDeviceGetSupportedEventTypes(handle(device), out)));
      return out.getValue();
    }

    @Override
    public void registerEvents(NvmlDevice device, long eventTypes, long eventSet) throws NvmlException {
      check("nvmlDeviceRegisterEvents",
          call(() -> nvml.nvmlDeviceRegisterEvents(handle(device), eventTypes, new Pointer(eventSet))));
    }

    @Override
    public java.util.Optional<NvmlEvent> waitEvent(long eventSet, int timeoutMillis) throws NvmlException {
      int timeout = Math.max(0, Math.min(timeoutMillis, MAX_EVENT_WAIT_MILLIS));
      try (Memory m = new Memory(EVENT_DATA_SIZE)) {
        m.clear();
        int rc = call(() -> nvml.nvmlEventSetWait_v2(new Pointer(eventSet), m, timeout));
        if (rc == NvmlReturn.ERROR_TIMEOUT.code()) {
          return java.util.Optional.empty();
        }
        check("nvmlEventSetWait_v2", rc);
        return java.util.Optional.of(new NvmlEvent(new NvmlDevice(m.getLong(0)), m.getLong(8), m.getLong(16),
            m.getInt(24), m.getInt(28)));
      }
    }

    @Override
    public void freeEventSet(long eventSet) {
      call(() -> nvml.nvmlEventSetFree(new Pointer(eventSet)));
    }

    @Override
    public void close() {
      if (!closed) {
        closed = true;
        call(() -> nvml.nvmlShutdown());
      }
    }
  }
}
