package io.nodeatlas.discovery.gpu;

import static org.assertj.core.api.Assertions.assertThat;

import io.nodeatlas.discovery.gpu.MigMinorsParser.MigMinors;
import io.nodeatlas.discovery.gpu.ProcDevicesParser.CharMajors;
import java.util.List;
import java.util.Optional;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.CsvSource;

/** The pure parsers of the GPU source, on real shapes of their inputs. */
class GpuParsersTest {

  @ParameterizedTest
  @CsvSource({
    "00000000:3B:00.0, 0000:3b:00.0",   // NVML busId
    "0000:3B:00.0,     0000:3b:00.0",   // NVML busIdLegacy
    "0000:3b:00.0,     0000:3b:00.0",   // sysfs
    "00010000:01:00.0, 10000:01:00.0",  // VMD domain keeps all its digits
    "0:1:2.3,          0000:01:02.3",
  })
  void busIdsAreNormalisedToTheSysfsForm(String in, String out) {
    assertThat(PciBusIds.normalise(in)).contains(out);
  }

  @ParameterizedTest
  @CsvSource({"0000:3b:00", "0000:3b:20.0", "0000:3b:00.8", "000000000:3b:00.0", "g000:3b:00.0", "''", "0000:3b:00.0x"})
  void whatIsNotABusIdIsRejected(String in) {
    assertThat(PciBusIds.normalise(in)).isEmpty();
  }

  @Test
  void onlyFourDigitDomainsFitTheKubernetesAttribute() {
    assertThat(PciBusIds.isStandard("0000:3b:00.0")).isTrue();
    assertThat(PciBusIds.isStandard("10000:01:00.0")).isFalse();
    assertThat(PciBusIds.format(0x10000, 1, 0, 0)).isEqualTo("10000:01:00.0");
  }

  @ParameterizedTest
  @CsvSource({
    "550.54.15,  550.54.15",
    "535.104.05, 535.104.5",
    "591.86,     591.86.0",
    "418.43,     418.43.0",
    "' 560 ',    560.0.0",
    "0.00.007,   0.0.7",
  })
  void driverVersionsBecomeStrictSemver(String in, String out) {
    assertThat(DriverVersions.semver(in)).contains(out);
  }

  @ParameterizedTest
  @CsvSource({"550.54.15.1", "550.54.15-beta", "v550", "550..1", "''", "1.2.3a"})
  void whatIsNotANumericVersionIsRejected(String in) {
    assertThat(DriverVersions.semver(in)).isEmpty();
  }

  @Test
  void cudaAndComputeCapabilityVersions() {
    assertThat(DriverVersions.cudaSemver(12040)).contains("12.4.0");
    assertThat(DriverVersions.cudaSemver(13010)).contains("13.1.0");
    assertThat(DriverVersions.cudaSemver(11080)).contains("11.8.0");
    assertThat(DriverVersions.cudaSemver(0)).isEmpty();
    assertThat(DriverVersions.computeCapabilitySemver(9, 0)).contains("9.0.0");
    assertThat(DriverVersions.computeCapabilitySemver(-1, 0)).isEmpty();
  }

  @Test
  void procDevicesGivesCharacterMajorsOnly() {
    // The container toolkit's own example (nvml.md §3.1), with a block section that reuses names.
    CharMajors majors = ProcDevicesParser.parse(List.of(
        "Character devices:", "  1 mem", "195 nvidia-frontend", "234 nvidia-nvlink", "235 nvidia-caps",
        "510 nvidia-uvm", "511 nvidia-nvswitch", "", "Block devices:", "  8 sd", "259 nvidia-uvm"));
    assertThat(majors.nvidiaMajor()).contains(195);
    assertThat(majors.major("nvidia-uvm")).contains(510);
    assertThat(majors.major("nvidia-caps")).contains(235);
    assertThat(majors.major("sd")).isEmpty();
    assertThat(majors.badLines()).isZero();
    assertThat(ProcDevicesParser.parse(List.of("Character devices:", "195 nvidia")).nvidiaMajor()).contains(195);
  }

  @Test
  void procDevicesCountsLinesItDoesNotUnderstand() {
    CharMajors majors = ProcDevicesParser.parse(List.of("Character devices:", "x nvidia", "195", "12345 big", "1 a b"));
    assertThat(majors.majors()).isEmpty();
    assertThat(majors.badLines()).isEqualTo(4);
  }

  @Test
  void migMinorsMapCapabilitiesToMinors() {
    // NVIDIA's example: GI 1 on gpu0 with CIs 0..2 is nvidia-cap12..15 (nvml.md §3.2).
    MigMinors minors = MigMinorsParser.parse(List.of(
        "config 1", "monitor 2", "gpu0/gi0/access 3", "gpu0/gi1/access 12", "gpu0/gi1/ci0/access 13",
        "gpu0/gi1/ci2/access 15", "gpu31/gi14/ci7/access 4322", "garbage", "gpu0/gi1/bogus 9"));
    assertThat(minors.gpuInstance(0, 1)).contains(12);
    assertThat(minors.computeInstance(0, 1, 0)).contains(13);
    assertThat(minors.computeInstance(0, 1, 2)).contains(15);
    assertThat(minors.computeInstance(31, 14, 7)).contains(4322);
    assertThat(minors.computeInstance(0, 1, 1)).isEmpty();
    assertThat(minors.minors()).containsEntry("config", 1).containsEntry("monitor", 2);
    assertThat(minors.badLines()).isEqualTo(2);
  }

  @Test
  void brandAndArchitectureNamesFollowNvidiasDraDriver() {
    assertThat(NvmlNames.brand(14)).contains("Nvidia");
    assertThat(NvmlNames.brand(13)).contains("NvidiaRTX");
    assertThat(NvmlNames.brand(5)).contains("GeForce");
    assertThat(NvmlNames.brand(99)).isEmpty();
    assertThat(NvmlNames.architecture(8)).contains("Ada Lovelace");
    assertThat(NvmlNames.architecture(10)).contains("Blackwell");
    assertThat(NvmlNames.architecture(11)).isEmpty();
    assertThat(NvmlNames.architecture(-1)).contains("Unknown");
  }

  @Test
  void theMigProfileComesFromTheMigDeviceName() {
    GpuInfo.MigInfo mig = new GpuInfo.MigInfo(0, Optional.empty(), Optional.of("NVIDIA H100 80GB HBM3 MIG 1g.10gb"),
        Optional.of(9), Optional.of(0), Optional.empty(), Optional.empty());
    assertThat(mig.profile()).contains("1g.10gb");
    GpuInfo.MigInfo unnamed = new GpuInfo.MigInfo(0, Optional.empty(), Optional.of("NVIDIA H100 80GB HBM3"),
        Optional.of(9), Optional.of(0), Optional.empty(), Optional.empty());
    assertThat(unnamed.profile()).isEmpty();
  }
}
