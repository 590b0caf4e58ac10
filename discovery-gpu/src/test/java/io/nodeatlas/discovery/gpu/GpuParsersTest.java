package io.nodeatlas.discovery.gpu;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import io.nodeatlas.discovery.gpu.MigMinorsParser.MigMinors;
import io.nodeatlas.discovery.gpu.ProcDevicesParser.CharMajors;
import io.nodeatlas.discovery.gpu.nvml.NvmlSession.PciInfo;
import io.nodeatlas.discovery.pci.PciAddress;
import io.nodeatlas.discovery.pci.PciFunctionFacts;
import java.util.Optional;
import java.util.OptionalInt;
import java.util.stream.Stream;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.CsvSource;
import org.junit.jupiter.params.provider.ValueSource;

/** The pure parsers of the GPU source, on real shapes of their inputs. */
class GpuParsersTest {

  private static PciInfo pci(long domain, int bus, int device, int deviceId, int subsystemId, String busId) {
    return new PciInfo(domain, bus, device, deviceId, subsystemId, busId);
  }

  @ParameterizedTest
  @CsvSource({
    "00000000:3B:00.0, 0000:3b:00.0",   // NVML busId
    "0000:3B:00.0,     0000:3b:00.0",   // NVML busIdLegacy
    "00010000:01:00.0, 10000:01:00.0",  // VMD domain keeps all its digits
  })
  void nvmlBusIdsGiveTheSysfsAddress(String in, String out) {
    assertThat(NvmlPci.address(pci(0, 0, 0, 0, 0, in))).map(PciAddress::toString).contains(out);
  }

  @Test
  void withoutAReadableBusIdTheAddressComesFromNvmlsFieldsAsFunctionZero() {
    assertThat(NvmlPci.address(pci(0x10000, 1, 2, 0, 0, "garbage"))).map(PciAddress::toString).contains("10000:01:02.0");
    assertThat(NvmlPci.address(pci(0, 0x3b, 0x20, 0, 0, ""))).as("device 0x20 is out of range").isEmpty();
  }

  @Test
  void onlyFourDigitDomainsFitTheKubernetesAttribute() {
    assertThat(NvmlPci.address(pci(0, 0, 0, 0, 0, "00000000:3B:00.0")).flatMap(PciAddress::standardBusId))
        .contains("0000:3b:00.0");
    assertThat(NvmlPci.address(pci(0, 0, 0, 0, 0, "00010000:01:00.0")).flatMap(PciAddress::standardBusId)).isEmpty();
  }

  @Test
  void nvmlsPackedIdsReplaceSysfsIdsAndKeepTheOtherFacts() {
    PciAddress address = PciAddress.parse("0000:18:00.0");
    PciFunctionFacts sysfs = new PciFunctionFacts(address, Optional.of("10de"), Optional.of("ffff"), Optional.empty(),
        Optional.empty(), Optional.of("030200"), Optional.of("nvidia"), OptionalInt.of(1), Optional.of("pci0000:17"),
        Optional.of("32.0 GT/s"), OptionalInt.of(16), OptionalInt.of(7));
    PciFunctionFacts merged = NvmlPci.withNvmlIds(sysfs, pci(0, 0x18, 0, 0x233010DE, 0x16C110DE, "00000000:18:00.0"));
    assertThat(merged).isEqualTo(new PciFunctionFacts(address, Optional.of("10de"), Optional.of("2330"),
        Optional.of("10de"), Optional.of("16c1"), Optional.of("030200"), Optional.of("nvidia"), OptionalInt.of(1),
        Optional.of("pci0000:17"), Optional.of("32.0 GT/s"), OptionalInt.of(16), OptionalInt.of(7)));
    // 0 means NVML did not say: sysfs's ids stay.
    assertThat(NvmlPci.withNvmlIds(sysfs, pci(0, 0x18, 0, 0, 0, ""))).isEqualTo(sysfs);
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

  private static CharMajors procDevices(String... lines) {
    return ProcDevicesParser.of(Stream.of(lines).filter(l -> !l.isBlank()).map(ProcDevicesParser::line).toList());
  }

  @Test
  void procDevicesGivesCharacterMajorsOnly() {
    // The container toolkit's own test example, with a block section that reuses names.
    CharMajors majors = procDevices(
        "Character devices:", "  1 mem", "195 nvidia-frontend", "234 nvidia-nvlink", "235 nvidia-caps",
        "510 nvidia-uvm", "511 nvidia-nvswitch", "", "Block devices:", "  8 sd", "259 nvidia-uvm");
    assertThat(majors.nvidiaMajor()).contains(195);
    assertThat(majors.major("nvidia-uvm")).contains(510);
    assertThat(majors.major("nvidia-caps")).contains(235);
    assertThat(majors.major("sd")).isEmpty();
    assertThat(procDevices("Character devices:", "195 nvidia").nvidiaMajor()).contains(195);
    assertThat(procDevices("195 nvidia").majors()).as("no section header yet").isEmpty();
  }

  @ParameterizedTest
  @ValueSource(strings = {"x nvidia", "195", "12345 big", "1 a b", ":", "-1 nvidia"})
  void aProcDevicesLineThatIsNeitherHeaderNorEntryIsRejected(String line) {
    assertThatThrownBy(() -> ProcDevicesParser.line(line)).isInstanceOf(IllegalArgumentException.class)
        .hasMessageStartingWith("not \"<major> <name>\" or \"<section>:\": \"");
  }

  @Test
  void migMinorsMapCapabilitiesToMinors() {
    // NVIDIA's example (MIG User Guide): GI 1 on gpu0 with CIs 0..2 is nvidia-cap12..15.
    MigMinors minors = MigMinorsParser.of(Stream.of(
        "config 1", "monitor 2", "gpu0/gi0/access 3", "gpu0/gi1/access 12", "gpu0/gi1/ci0/access 13",
        "gpu0/gi1/ci2/access 15", "gpu31/gi14/ci7/access 4322", "gpu0/gi1/access 99")
        .map(MigMinorsParser::line).toList());
    assertThat(minors.gpuInstance(0, 1)).as("the first line of a capability wins").contains(12);
    assertThat(minors.computeInstance(0, 1, 0)).contains(13);
    assertThat(minors.computeInstance(0, 1, 2)).contains(15);
    assertThat(minors.computeInstance(31, 14, 7)).contains(4322);
    assertThat(minors.computeInstance(0, 1, 1)).isEmpty();
    assertThat(minors.minors()).containsEntry("config", 1).containsEntry("monitor", 2);
  }

  @ParameterizedTest
  @ValueSource(strings = {"garbage", "gpu0/gi1/bogus 9", "gpu0/gi1/access", "gpu0/gi1/access 1234567890", "config -1"})
  void aMigMinorsLineThatIsNotACapabilityIsRejected(String line) {
    assertThatThrownBy(() -> MigMinorsParser.line(line)).isInstanceOf(IllegalArgumentException.class)
        .hasMessageStartingWith("not \"<capability> <minor>\": \"");
  }

  @Test
  void brandAndArchitectureAreNvidiasNamesInLowerCase() {
    assertThat(NvmlNames.brand(14)).contains("nvidia");
    assertThat(NvmlNames.brand(13)).contains("nvidiartx");
    assertThat(NvmlNames.brand(5)).contains("geforce");
    assertThat(NvmlNames.brand(99)).isEmpty();
    assertThat(NvmlNames.architecture(8)).contains("ada lovelace");
    assertThat(NvmlNames.architecture(10)).contains("blackwell");
    assertThat(NvmlNames.architecture(11)).isEmpty();
    assertThat(NvmlNames.architecture(-1)).contains("unknown");
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
