package io.nodeatlas.discovery.gpu.nvml;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import io.nodeatlas.discovery.gpu.FakeNvml;
import io.nodeatlas.discovery.gpu.nvml.NvmlSession.MigAttributes;
import java.nio.file.Path;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/** The binding against the gcc-built fake through the real JNA path: symbols, struct offsets, codes. */
class JnaNvmlLibraryTest {

  @TempDir Path dir;

  @AfterEach
  void everyInitWasShutDown() {
    assertThat(FakeNvml.initCount()).as("nvmlInit/nvmlShutdown pairs").isZero();
  }

  private NvmlSession open(FakeNvml.Config config) throws NvmlException {
    config.install(dir);
    return JnaNvmlLibrary.load(FakeNvml.library()).init();
  }

  @Test
  void readsSystemAndDeviceFactsWithTheRightLayouts() throws Exception {
    try (NvmlSession nvml = open(FakeNvml.twoGpus())) {
      assertThat(nvml.driverVersion()).isEqualTo("550.54.15");
      assertThat(nvml.nvmlVersion()).isEqualTo("12.550.54.15");
      assertThat(nvml.cudaDriverVersion()).isEqualTo(12040);
      assertThat(nvml.deviceCount()).isEqualTo(2);

      NvmlDevice h100 = nvml.deviceByIndex(0);
      assertThat(nvml.name(h100)).isEqualTo("NVIDIA H100 80GB HBM3");
      assertThat(nvml.uuid(h100)).isEqualTo("GPU-6c6f1d3e-1b6e-4b5f-9c1e-5b8a4f0e2a11");
      assertThat(nvml.minorNumber(h100)).isZero();
      assertThat(nvml.brand(h100)).isEqualTo(14);
      assertThat(nvml.architecture(h100)).isEqualTo(9);
      assertThat(nvml.cudaComputeCapability(h100)).isEqualTo(new NvmlSession.ComputeCapability(9, 0));
      assertThat(nvml.serial(h100)).isEqualTo("1654922004211");
      assertThat(nvml.boardPartNumber(h100)).isEqualTo("692-2G520-0200-000");
      assertThat(nvml.vbiosVersion(h100)).isEqualTo("96.00.74.00.01");
      assertThat(nvml.memoryInfo(h100))
          .isEqualTo(new NvmlSession.MemoryInfo(85520809984L, 502267904L, 85520809984L - 502267904L, 0));
      assertThat(nvml.pciInfo(h100))
          .isEqualTo(new NvmlSession.PciInfo(0, 0x18, 0, 0x233010DE, 0x16C110DE, "00000000:18:00.0"));
      assertThat(nvml.migMode(h100)).isEqualTo(new NvmlSession.MigMode(true, true));
      assertThat(nvml.maxMigDeviceCount(h100)).isEqualTo(7);

      NvmlDevice mig = nvml.migDeviceByIndex(h100, 0);
      assertThat(mig).isNotEqualTo(h100);
      assertThat(nvml.uuid(mig)).isEqualTo("MIG-1f3c5a7e-0d2b-5c4a-8e6f-0a1b2c3d4e5f");
      assertThat(nvml.name(mig)).isEqualTo("NVIDIA H100 80GB HBM3 MIG 1g.10gb");
      assertThat(nvml.gpuInstanceId(mig)).isEqualTo(9);
      assertThat(nvml.computeInstanceId(mig)).isZero();
      assertThat(nvml.memoryInfo(mig).total()).isEqualTo(10468982784L);
      assertThat(nvml.migAttributes(mig)).isEqualTo(new MigAttributes(16, 1, 1, 0, 1, 0, 0, 0, 9984));
      assertThatThrownBy(() -> nvml.migDeviceByIndex(h100, 1))
          .isInstanceOfSatisfying(NvmlException.class, e -> assertThat(e.status()).isEqualTo(NvmlReturn.ERROR_NOT_FOUND));

      NvmlDevice a100 = nvml.deviceByIndex(1);
      assertThat(nvml.minorNumber(a100)).isEqualTo(3);
      assertThat(nvml.migMode(a100)).isEqualTo(new NvmlSession.MigMode(false, false));
      assertThat(nvml.maxMigDeviceCount(a100)).isZero();
    }
  }

  @Test
  void errorCodesCarryTheFunctionTheLibraryTextAndTheCName() throws Exception {
    try (NvmlSession nvml = open(FakeNvml.twoGpus().set("device.0.error.nvmlDeviceGetSerial", "3"))) {
      NvmlDevice gpu = nvml.deviceByIndex(0);
      assertThatThrownBy(() -> nvml.serial(gpu))
          .isInstanceOf(NvmlException.class)
          .hasMessage("nvmlDeviceGetSerial: Not Supported (NVML_ERROR_NOT_SUPPORTED)");
      assertThatThrownBy(() -> nvml.deviceByIndex(2))
          .isInstanceOfSatisfying(NvmlException.class,
              e -> assertThat(e.status()).isEqualTo(NvmlReturn.ERROR_INVALID_ARGUMENT));
      assertThat(nvml.serial(nvml.deviceByIndex(1))).isEqualTo("1320222043305");
    }
  }

  @Test
  void aValueLongerThanNvmlsBufferIsInsufficientSize() throws Exception {
    try (NvmlSession nvml = open(FakeNvml.twoGpus().set("device.0.serial", "X".repeat(30)))) {
      assertThatThrownBy(() -> nvml.serial(nvml.deviceByIndex(0)))
          .isInstanceOfSatisfying(NvmlException.class,
              e -> assertThat(e.status()).isEqualTo(NvmlReturn.ERROR_INSUFFICIENT_SIZE));
    }
  }

  @Test
  void memoryFallsBackToTheV1CallWhenV2IsMissing() throws Exception {
    try (NvmlSession nvml = open(FakeNvml.twoGpus().set("error.nvmlDeviceGetMemoryInfo_v2", "13"))) {
      assertThat(nvml.memoryInfo(nvml.deviceByIndex(0)))
          .isEqualTo(new NvmlSession.MemoryInfo(85520809984L, 0, 85520809984L - 502267904L, 502267904L));
    }
  }

  @Test
  void cudaVersionFallsBackToTheUnversionedCallWithoutLibcuda() throws Exception {
    try (NvmlSession nvml = open(FakeNvml.twoGpus().set("error.nvmlSystemGetCudaDriverVersion_v2", "12"))) {
      assertThat(nvml.cudaDriverVersion()).isEqualTo(12040);
    }
  }

  @Test
  void initFailureIsAnExceptionAndLeavesNothingInitialised() {
    FakeNvml.twoGpus().set("init.error", "9").install(dir);
    assertThatThrownBy(() -> JnaNvmlLibrary.load(FakeNvml.library()).init())
        .isInstanceOf(NvmlException.class)
        .hasMessage("nvmlInit_v2: Driver Not Loaded (NVML_ERROR_DRIVER_NOT_LOADED)");
  }

  @Test
  void initIsReferenceCountedAndEverySessionShutsDownOnce() throws Exception {
    FakeNvml.twoGpus().install(dir);
    NvmlLibrary nvml = JnaNvmlLibrary.load(FakeNvml.library());
    try (NvmlSession outer = nvml.init()) {
      try (NvmlSession inner = nvml.init()) {
        assertThat(FakeNvml.initCount()).isEqualTo(2);
      }
      assertThat(FakeNvml.initCount()).isEqualTo(1);
      outer.close();
      outer.close();
      assertThat(FakeNvml.initCount()).isZero();
    }
  }

  @Test
  void callsAfterShutdownAreUninitialised() throws Exception {
    NvmlSession nvml = open(FakeNvml.twoGpus());
    nvml.close();
    assertThatThrownBy(nvml::deviceCount)
        .isInstanceOfSatisfying(NvmlException.class,
            e -> assertThat(e.status()).isEqualTo(NvmlReturn.ERROR_UNINITIALIZED));
  }

  @Test
  void aMissingLibraryIsLibraryNotFound() {
    assertThatThrownBy(() -> JnaNvmlLibrary.load(dir.resolve("libnvidia-ml.so.1")))
        .isInstanceOfSatisfying(NvmlException.class,
            e -> assertThat(e.status()).isEqualTo(NvmlReturn.ERROR_LIBRARY_NOT_FOUND));
  }

  @Test
  void theSonameIsFoundOnTheLibraryPath() throws Exception {
    FakeNvml.twoGpus().install(dir);
    NvmlLibrary nvml = JnaNvmlLibrary.loadFromLibraryPath();
    try (NvmlSession session = nvml.init()) {
      assertThat(session.deviceCount()).isEqualTo(2);
    }
  }

  @Test
  void returnCodesMapBothWays() {
    for (NvmlReturn r : NvmlReturn.values()) {
      if (r != NvmlReturn.UNKNOWN_CODE) {
        assertThat(NvmlReturn.of(r.code())).isEqualTo(r);
      }
    }
    assertThat(NvmlReturn.of(31)).isEqualTo(NvmlReturn.UNKNOWN_CODE);
    assertThat(new NvmlException("f", 31, "x").getMessage()).isEqualTo("f: x (NVML_ERROR_UNKNOWN_CODE 31)");
  }
}
