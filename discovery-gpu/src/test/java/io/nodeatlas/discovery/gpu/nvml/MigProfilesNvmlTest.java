package io.nodeatlas.discovery.gpu.nvml;

import static org.assertj.core.api.Assertions.assertThat;

import com.sun.jna.Library;
import com.sun.jna.Memory;
import com.sun.jna.Native;
import com.sun.jna.Pointer;
import com.sun.jna.ptr.PointerByReference;
import io.nodeatlas.discovery.gpu.FakeNvml;
import io.nodeatlas.discovery.gpu.nvml.NvmlSession.GpuInstanceProfile;
import io.nodeatlas.discovery.gpu.nvml.NvmlSession.Placement;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.TreeMap;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * MIG GPU instance profiles, placements and instances through the real JNA path against the fake,
 * whose H200 answers as the real one did (docs/design/gpu-mig-profiles-h200.md). The create/destroy
 * calls are bound here by the test only: discovery reads, it never creates.
 */
class MigProfilesNvmlTest {

  @TempDir Path dir;

  @AfterEach
  void everyInitWasShutDown() {
    assertThat(FakeNvml.initCount()).as("nvmlInit/nvmlShutdown pairs").isZero();
  }

  private NvmlSession open(FakeNvml.Config config) throws NvmlException {
    config.install(dir);
    return JnaNvmlLibrary.load(FakeNvml.library()).init();
  }

  /** The NVML instance calls a Prepare would make (NVML API Reference, Multi Instance GPU Management). */
  interface InstanceCalls extends Library {
    int nvmlInit_v2();

    int nvmlShutdown();

    int nvmlDeviceGetHandleByIndex_v2(int index, PointerByReference device);

    int nvmlDeviceCreateGpuInstanceWithPlacement(Pointer device, int profileId, Pointer placement,
        PointerByReference gpuInstance);

    int nvmlGpuInstanceDestroy(Pointer gpuInstance);

    int nvmlGpuInstanceCreateComputeInstance(Pointer gpuInstance, int profileIndex, PointerByReference ci);

    int nvmlComputeInstanceDestroy(Pointer ci);

    int nvmlDeviceGetGpuInstanceRemainingCapacity(Pointer device, int profileId, com.sun.jna.ptr.IntByReference n);
  }

  private static final int SUCCESS = 0;
  private static final int INVALID_ARGUMENT = 2;
  private static final int NOT_SUPPORTED = 3;
  private static final int IN_USE = 19;
  private static final int INSUFFICIENT_RESOURCES = 23;

  @Test
  void theH200sProfilesReadWithMigOffAndTheUnsupportedIndexesFailAsOnTheRealGpu() throws Exception {
    try (NvmlSession nvml = open(FakeNvml.h200())) {
      NvmlDevice gpu = nvml.deviceByIndex(0);
      assertThat(nvml.migMode(gpu).current()).isFalse();
      Map<Integer, Integer> codes = new TreeMap<>();
      List<GpuInstanceProfile> profiles = new ArrayList<>();
      for (int index = 0; index <= GpuInstanceProfile.INDEX_COUNT; index++) {
        try {
          profiles.add(nvml.gpuInstanceProfile(gpu, index));
          codes.put(index, SUCCESS);
        } catch (NvmlException e) {
          codes.put(index, e.code());
        }
      }
      assertThat(codes).containsEntry(5, NOT_SUPPORTED).containsEntry(6, NOT_SUPPORTED)
          .containsEntry(8, NOT_SUPPORTED).containsEntry(16, NOT_SUPPORTED).containsEntry(17, INVALID_ARGUMENT);
      assertThat(profiles).extracting(GpuInstanceProfile::index).containsExactly(0, 1, 2, 3, 4, 7, 9);

      GpuInstanceProfile threeG = profiles.stream().filter(p -> p.index() == 2).findFirst().orElseThrow();
      assertThat(threeG).isEqualTo(new GpuInstanceProfile(2, 9, 3, 2, 60, 3, 3, 0, 3, 0, 71424, "MIG 3g.71gb"));
      // Placements count memory slices: 3g.71gb has 3 compute slices but takes 4 of 8 memory slices.
      assertThat(nvml.gpuInstancePlacements(gpu, 9)).containsExactly(new Placement(0, 4), new Placement(4, 4));
      assertThat(nvml.gpuInstancePlacements(gpu, 19)).hasSize(7);
      assertThat(nvml.gpuInstancePlacements(gpu, 0)).containsExactly(new Placement(0, 8));
      assertThat(nvml.gpuInstanceRemainingCapacity(gpu, 19)).isEqualTo(7);
      assertThat(nvml.gpuInstanceRemainingCapacity(gpu, 9)).isEqualTo(2);
      assertThat(nvml.gpuInstanceRemainingCapacity(gpu, 20)).isEqualTo(1);
    }
  }

  @Test
  void aGpuWithoutMigAnswersNotSupported() throws Exception {
    try (NvmlSession nvml = open(FakeNvml.h200().remove("device.0.mig.mode"))) {
      NvmlDevice gpu = nvml.deviceByIndex(0);
      assertThat(code(() -> nvml.gpuInstanceProfile(gpu, 0))).isEqualTo(NOT_SUPPORTED);
      assertThat(code(() -> nvml.gpuInstancePlacements(gpu, 19))).isEqualTo(NOT_SUPPORTED);
    }
  }

  @Test
  void instancesNeedMigOnAndNeverOverlapAndAnInstanceInUseStays() {
    FakeNvml.h200().install(dir);
    InstanceCalls nvml = Native.load(FakeNvml.library().toString(), InstanceCalls.class);
    assertThat(nvml.nvmlInit_v2()).isZero();
    try {
      PointerByReference gpu = new PointerByReference();
      assertThat(nvml.nvmlDeviceGetHandleByIndex_v2(0, gpu)).isZero();
      PointerByReference gi = new PointerByReference();
      assertThat(nvml.nvmlDeviceCreateGpuInstanceWithPlacement(gpu.getValue(), 9, placement(0, 4), gi))
          .as("MIG mode off").isEqualTo(NOT_SUPPORTED);
    } finally {
      nvml.nvmlShutdown();
    }

    FakeNvml.h200().set("device.0.mig.mode", "1").install(dir);
    assertThat(nvml.nvmlInit_v2()).isZero();
    try {
      PointerByReference gpu = new PointerByReference();
      nvml.nvmlDeviceGetHandleByIndex_v2(0, gpu);
      Pointer d = gpu.getValue();
      PointerByReference threeG = new PointerByReference();
      assertThat(nvml.nvmlDeviceCreateGpuInstanceWithPlacement(d, 9, placement(0, 4), threeG)).isZero();
      PointerByReference other = new PointerByReference();
      assertThat(nvml.nvmlDeviceCreateGpuInstanceWithPlacement(d, 9, placement(1, 4), other))
          .as("not a possible placement").isEqualTo(INVALID_ARGUMENT);
      assertThat(nvml.nvmlDeviceCreateGpuInstanceWithPlacement(d, 19, placement(3, 1), other))
          .as("memory slice 3 belongs to the 3g instance").isEqualTo(INSUFFICIENT_RESOURCES);
      assertThat(nvml.nvmlDeviceCreateGpuInstanceWithPlacement(d, 0, placement(0, 8), other))
          .isEqualTo(INSUFFICIENT_RESOURCES);
      com.sun.jna.ptr.IntByReference left = new com.sun.jna.ptr.IntByReference();
      nvml.nvmlDeviceGetGpuInstanceRemainingCapacity(d, 19, left);
      assertThat(left.getValue()).as("1g.18gb at 4..6; 7 is no 1g placement").isEqualTo(3);

      PointerByReference ci = new PointerByReference();
      assertThat(nvml.nvmlGpuInstanceCreateComputeInstance(threeG.getValue(), 2, ci)).isZero();
      PointerByReference ci2 = new PointerByReference();
      assertThat(nvml.nvmlGpuInstanceCreateComputeInstance(threeG.getValue(), 0, ci2))
          .as("all 3 compute slices taken").isEqualTo(INSUFFICIENT_RESOURCES);
      assertThat(nvml.nvmlGpuInstanceDestroy(threeG.getValue())).isEqualTo(IN_USE);
      assertThat(nvml.nvmlComputeInstanceDestroy(ci.getValue())).isZero();
      assertThat(nvml.nvmlGpuInstanceDestroy(threeG.getValue())).isZero();
      assertThat(nvml.nvmlGpuInstanceDestroy(threeG.getValue())).as("already gone").isEqualTo(INVALID_ARGUMENT);
      assertThat(nvml.nvmlDeviceCreateGpuInstanceWithPlacement(d, 0, placement(0, 8), other)).isZero();
      assertThat(nvml.nvmlGpuInstanceDestroy(other.getValue())).isZero();
    } finally {
      nvml.nvmlShutdown();
    }
  }

  private static Memory placement(int start, int size) {
    Memory m = new Memory(8);
    m.setInt(0, start);
    m.setInt(4, size);
    return m;
  }

  private interface Call {
    Object run() throws NvmlException;
  }

  private static int code(Call c) {
    try {
      c.run();
      return SUCCESS;
    } catch (NvmlException e) {
      return e.code();
    }
  }
}
