package io.nodeatlas.discovery.gpu;

import static org.assertj.core.api.Assertions.assertThat;

import com.code_intelligence.jazzer.api.FuzzedDataProvider;
import com.code_intelligence.jazzer.junit.FuzzTest;
import io.nodeatlas.discovery.gpu.nvml.NvmlSession.PciInfo;
import io.nodeatlas.discovery.model.AttributeValue;
import io.nodeatlas.discovery.pci.PciAddress;
import io.nodeatlas.discovery.pci.PciFunctionFacts;
import java.util.ArrayList;
import java.util.List;
import java.util.Optional;

/**
 * Jazzer targets for the parsers of host and NVML text: they never throw anything but the
 * {@link IllegalArgumentException} that costs one line, and what they return is valid where it is
 * used (a DRA version, a bus id that parses to itself). Regression mode runs the seeds under
 * {@code GpuParsersFuzzTestInputs/}; {@code JAZZER_FUZZ=1} fuzzes.
 */
class GpuParsersFuzzTest {

  @FuzzTest(maxDuration = "60s")
  void nvmlPci(FuzzedDataProvider data) {
    long domain = data.consumeLong();
    int bus = data.consumeInt();
    int device = data.consumeInt();
    int deviceId = data.consumeInt();
    int subsystemId = data.consumeInt();
    PciInfo info = new PciInfo(domain, bus, device, deviceId, subsystemId, data.consumeRemainingAsString());
    Optional<PciAddress> address = NvmlPci.address(info);
    address.ifPresent(a -> {
      assertThat(a.toString()).matches("[0-9a-f]{4,8}:[0-9a-f]{2}:[01][0-9a-f]\\.[0-7]");
      assertThat(PciAddress.parse(a.toString())).isEqualTo(a);
      a.standardBusId().ifPresent(id -> assertThat(id).matches("[0-9a-f]{4}:[0-9a-f]{2}:[01][0-9a-f]\\.[0-7]"));
      PciFunctionFacts facts = NvmlPci.withNvmlIds(PciFunctionFacts.unknown(a), info);
      for (Optional<String> id : List.of(facts.vendorId(), facts.deviceId(), facts.subsystemVendorId(),
          facts.subsystemDeviceId())) {
        id.ifPresent(v -> assertThat(v).matches("[0-9a-f]{4}"));
      }
    });
  }

  /** The MPS daemon's /dev/shm plan reads mountinfo, meminfo and status text: never more than a false or a fallback. */
  @FuzzTest(maxDuration = "60s")
  void mpsShmReaders(FuzzedDataProvider data) {
    String dir = "/" + data.consumeString(40).replace("\0", "");
    String text = data.consumeRemainingAsString();
    MpsShm.mountPoints(text);
    MpsShm.shared(text, java.nio.file.Path.of(dir).normalize());
    MpsShm.privileged(text);
    assertThat(MpsShm.defaultBytes(text)).isPositive();
    try {
      long bytes = MpsShm.bytes(text);
      assertThat(bytes == 0 || (bytes >= 1L << 20 && bytes <= 1L << 50)).isTrue();
    } catch (IllegalArgumentException e) {
      assertThat(e.getMessage()).startsWith("must be ");
    }
  }

  @FuzzTest(maxDuration = "60s")
  void versionNormaliser(FuzzedDataProvider data) {
    int cuda = data.consumeInt();
    String in = data.consumeRemainingAsString();
    DriverVersions.semver(in).ifPresent(v -> {
      AttributeValue.version(v); // throws if not strict semver
      assertThat(DriverVersions.semver(v)).contains(v);
    });
    DriverVersions.cudaSemver(cuda).ifPresent(AttributeValue::version);
  }

  @FuzzTest(maxDuration = "60s")
  void procDevicesParser(FuzzedDataProvider data) {
    List<ProcDevicesParser.Line> lines = new ArrayList<>();
    for (String line : data.consumeRemainingAsString().split("\n", -1)) {
      if (line.isBlank()) {
        continue;
      }
      try {
        lines.add(ProcDevicesParser.line(line));
      } catch (IllegalArgumentException e) {
        assertThat(e.getMessage()).startsWith("not ");
      }
    }
    var majors = ProcDevicesParser.of(lines);
    assertThat(majors.majors().values()).allSatisfy(m -> assertThat(m).isBetween(0, 9999));
    assertThat(majors.majors().keySet()).allSatisfy(n -> assertThat(n).isNotBlank().doesNotContain(" "));
  }

  @FuzzTest(maxDuration = "60s")
  void migMinorsParser(FuzzedDataProvider data) {
    List<MigMinorsParser.Capability> capabilities = new ArrayList<>();
    for (String line : data.consumeRemainingAsString().split("\n", -1)) {
      if (line.isBlank()) {
        continue;
      }
      try {
        capabilities.add(MigMinorsParser.line(line));
      } catch (IllegalArgumentException e) {
        assertThat(e.getMessage()).startsWith("not ");
      }
    }
    var minors = MigMinorsParser.of(capabilities);
    assertThat(minors.minors().values()).allSatisfy(m -> assertThat(m).isNotNegative());
    assertThat(minors.gpuInstance(0, 1)).isNotNull();
  }

  /**
   * {@code ld.so.cache}: a well-formed cache of fuzzed names, then fuzzed bytes written over it. The
   * parser answers with entries whose names and paths are safe to join under a root, or refuses the
   * whole file with a reason; it never reads past the file.
   */
  @FuzzTest(maxDuration = "60s")
  void ldSoCacheParser(FuzzedDataProvider data) {
    LdSoCacheFile writer = new LdSoCacheFile();
    int libs = data.consumeInt(0, 6);
    for (int i = 0; i < libs; i++) {
      writer.lib(data.consumeString(40), data.consumeString(80), data.consumeInt());
    }
    if (data.consumeBoolean()) {
      writer.oldFormatFirst();
    }
    byte[] file = writer.bytes();
    int edits = data.consumeInt(0, 8);
    for (int i = 0; i < edits && file.length > 0; i++) {
      file[data.consumeInt(0, file.length - 1)] = data.consumeByte();
    }
    if (data.consumeBoolean()) {
      file = java.util.Arrays.copyOf(file, data.consumeInt(0, file.length));
    }
    try {
      LdSoCacheParser.LdSoCache cache = LdSoCacheParser.parse(file);
      assertThat(cache.entries().size() + cache.skipped()).isLessThanOrEqualTo(file.length / LdSoCacheParser.ENTRY_BYTES);
      assertThat(cache.entries()).allSatisfy(e -> {
        assertThat(LdSoCacheParser.validPath(e.path())).isTrue();
        assertThat(e.soname()).isNotEmpty().doesNotContain("/");
        assertThat(e.directory()).startsWith("/");
      });
    } catch (IllegalArgumentException e) {
      assertThat(e.getMessage()).isNotBlank();
    }
  }
}
