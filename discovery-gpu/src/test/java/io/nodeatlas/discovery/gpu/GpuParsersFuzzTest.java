package io.nodeatlas.discovery.gpu;

import static org.assertj.core.api.Assertions.assertThat;

import com.code_intelligence.jazzer.api.FuzzedDataProvider;
import com.code_intelligence.jazzer.junit.FuzzTest;
import io.nodeatlas.discovery.model.AttributeValue;
import java.util.Optional;

/**
 * Jazzer targets for the parsers of host and NVML text: they never throw, and what they return is
 * valid where it is used (a DRA version, a bus id that normalises to itself). Regression mode runs
 * the seeds under {@code GpuParsersFuzzTestInputs/}; {@code JAZZER_FUZZ=1} fuzzes.
 */
class GpuParsersFuzzTest {

  @FuzzTest(maxDuration = "60s")
  void busIdNormaliser(FuzzedDataProvider data) {
    String in = data.consumeRemainingAsString();
    Optional<String> out = PciBusIds.normalise(in);
    out.ifPresent(id -> {
      assertThat(id).matches("[0-9a-f]{4,8}:[0-9a-f]{2}:[0-9a-f]{2}\\.[0-7]");
      assertThat(PciBusIds.normalise(id)).contains(id);
    });
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
    var majors = ProcDevicesParser.parse(data.consumeRemainingAsString().lines().toList());
    assertThat(majors.majors().values()).allSatisfy(m -> assertThat(m).isBetween(0, 9999));
    assertThat(majors.badLines()).isNotNegative();
  }

  @FuzzTest(maxDuration = "60s")
  void migMinorsParser(FuzzedDataProvider data) {
    var minors = MigMinorsParser.parse(data.consumeRemainingAsString().lines().toList());
    assertThat(minors.minors().values()).allSatisfy(m -> assertThat(m).isNotNegative());
    assertThat(minors.gpuInstance(0, 1)).isNotNull();
  }
}
