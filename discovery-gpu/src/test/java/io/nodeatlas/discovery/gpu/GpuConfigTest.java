package io.nodeatlas.discovery.gpu;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;
import static org.assertj.core.api.Assertions.catchThrowable;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.regex.Matcher;
import java.util.regex.Pattern;
import org.junit.jupiter.api.Test;

/** The claim's {@code gpu.nodeatlas.io/v1alpha1 GpuConfig}: what it selects, and each way it is refused. */
class GpuConfigTest {

  static final String HEAD = "{\"apiVersion\":\"gpu.nodeatlas.io/v1alpha1\",\"kind\":\"GpuConfig\"";

  private static GpuConfig of(String... json) {
    return GpuConfig.of(List.of(json));
  }

  @Test
  void noneOfOursIsExclusive() {
    assertThat(of()).isEqualTo(GpuConfig.EXCLUSIVE);
    assertThat(of("{\"apiVersion\":\"net.nodeatlas.io/v1\",\"kind\":\"Other\",\"x\":1}")).isEqualTo(GpuConfig.EXCLUSIVE);
    assertThat(of(HEAD + "}")).isEqualTo(GpuConfig.EXCLUSIVE);
  }

  @Test
  void timeSlicingAndMpsAsNvidiasDriverSpellsThem() {
    assertThat(of(HEAD + ",\"sharing\":{\"strategy\":\"TimeSlicing\",\"timeSlicingConfig\":{\"interval\":\"Long\"}}}"))
        .isEqualTo(new GpuConfig(GpuConfig.Strategy.TimeSlicing, GpuConfig.Interval.Long, Optional.empty(), Optional.empty()));
    assertThat(of(HEAD + ",\"sharing\":{\"strategy\":\"TimeSlicing\"}}").interval()).isEqualTo(GpuConfig.Interval.Default);
    GpuConfig mps = of(HEAD + ",\"sharing\":{\"strategy\":\"MPS\",\"mpsConfig\":{\"defaultActiveThreadPercentage\":50,"
        + "\"defaultPinnedDeviceMemoryLimit\":\"10Gi\"}}}");
    assertThat(mps.strategy()).isEqualTo(GpuConfig.Strategy.MPS);
    assertThat(mps.activeThreadPercentage()).contains(50);
    assertThat(mps.pinnedDeviceMemoryLimitBytes()).contains(10L << 30);
  }

  @Test
  void theClaimsConfigAfterTheClassesWins() {
    assertThat(of(HEAD + ",\"sharing\":{\"strategy\":\"MPS\"}}", HEAD + ",\"sharing\":{\"strategy\":\"TimeSlicing\"}}")
        .strategy()).isEqualTo(GpuConfig.Strategy.TimeSlicing);
  }

  @Test
  void everyMistakeIsNamed() {
    assertThatThrownBy(() -> of(HEAD + ",\"shraing\":{}}")).hasMessageContaining("unknown field shraing");
    assertThatThrownBy(() -> of(HEAD + ",\"sharing\":{\"strategy\":\"MPS\",\"mpsConfig\":{\"threads\":5}}}"))
        .hasMessageContaining("unknown field sharing.mpsConfig.threads");
    assertThatThrownBy(() -> of(HEAD + ",\"sharing\":{\"strategy\":\"Shared\"}}"))
        .hasMessageContaining("sharing.strategy must be one of Exclusive, TimeSlicing, MPS");
    assertThatThrownBy(() -> of(HEAD + ",\"sharing\":{}}")).hasMessageContaining("sharing.strategy is required");
    assertThatThrownBy(() -> of(HEAD + ",\"sharing\":{\"strategy\":\"TimeSlicing\",\"timeSlicingConfig\":{\"interval\":\"Huge\"}}}"))
        .hasMessageContaining("interval must be one of Default, Short, Medium, Long");
    assertThatThrownBy(() -> of(HEAD + ",\"sharing\":{\"strategy\":\"Exclusive\",\"mpsConfig\":{}}}"))
        .hasMessageContaining("mpsConfig is only for strategy MPS");
    assertThatThrownBy(() -> of(HEAD + ",\"sharing\":{\"strategy\":\"MPS\",\"timeSlicingConfig\":{}}}"))
        .hasMessageContaining("timeSlicingConfig is only for strategy TimeSlicing");
    assertThatThrownBy(() -> of(HEAD + ",\"sharing\":{\"strategy\":\"MPS\",\"mpsConfig\":{\"defaultActiveThreadPercentage\":101}}}"))
        .hasMessageContaining("from 1 to 100");
    assertThatThrownBy(() -> of(HEAD + ",\"sharing\":{\"strategy\":\"MPS\",\"mpsConfig\":{\"defaultActiveThreadPercentage\":\"50\"}}}"))
        .hasMessageContaining("whole number");
    assertThatThrownBy(() -> of(HEAD + ",\"sharing\":{\"strategy\":\"MPS\",\"mpsConfig\":{\"defaultPinnedDeviceMemoryLimit\":\"10 GB\"}}}"))
        .hasMessageContaining("must be a quantity such as 10Gi");
    assertThatThrownBy(() -> of(HEAD + ",\"sharing\":{\"strategy\":\"MPS\",\"mpsConfig\":{\"defaultPinnedDeviceMemoryLimit\":\"512Ki\"}}}"))
        .hasMessageContaining("at least 1Mi");
    assertThatThrownBy(() -> of("{\"apiVersion\":\"gpu.nodeatlas.io/v2\",\"kind\":\"GpuConfig\"}"))
        .hasMessageContaining("is not supported; use gpu.nodeatlas.io/v1alpha1");
    assertThatThrownBy(() -> of("{\"apiVersion\":\"gpu.nodeatlas.io/v1alpha1\",\"kind\":\"GpuSharing\"}"))
        .hasMessageContaining("kind must be GpuConfig");
    assertThatThrownBy(() -> of("{not json")).hasMessageContaining("not JSON");
  }

  /** docs/gpu-config.md's field table: the first column's field and the third's values, by field. */
  private static Map<String, List<String>> referenceTable() throws Exception {
    Map<String, List<String>> rows = new LinkedHashMap<>();
    Pattern row = Pattern.compile("^\\| `([A-Za-z.]+)` \\|[^|]*\\|([^|]*)\\|");
    for (String line : Files.readAllLines(Path.of("..", "docs", "gpu-config.md"))) {
      Matcher m = row.matcher(line);
      if (m.find()) {
        List<String> values = new ArrayList<>();
        Matcher v = Pattern.compile("`([^`]+)`").matcher(m.group(2));
        while (v.find()) {
          values.add(v.group(1));
        }
        rows.put(m.group(1), values);
      }
    }
    return rows;
  }

  @Test
  void theReferenceTableListsWhatTheParserTakes() throws Exception {
    Map<String, List<String>> table = referenceTable();
    assertThat(table.get("apiVersion")).containsExactly(GpuConfig.API_VERSION);
    assertThat(table.get("kind")).containsExactly(GpuConfig.KIND);
    assertThat(table.get("sharing.strategy"))
        .containsExactlyElementsOf(Arrays.stream(GpuConfig.Strategy.values()).map(Enum::name).toList());
    assertThat(table.get("sharing.timeSlicingConfig.interval"))
        .containsExactlyElementsOf(Arrays.stream(GpuConfig.Interval.values()).map(Enum::name).toList());
    // Each object's fields as the parser names them when it refuses one it does not know.
    Map<String, String> withUnknown = new LinkedHashMap<>();
    withUnknown.put("", HEAD + ",\"zz\":1}");
    withUnknown.put("sharing.", HEAD + ",\"sharing\":{\"strategy\":\"Exclusive\",\"zz\":1}}");
    withUnknown.put("sharing.timeSlicingConfig.", HEAD + ",\"sharing\":{\"strategy\":\"TimeSlicing\",\"timeSlicingConfig\":{\"zz\":1}}}");
    withUnknown.put("sharing.mpsConfig.", HEAD + ",\"sharing\":{\"strategy\":\"MPS\",\"mpsConfig\":{\"zz\":1}}}");
    Pattern known = Pattern.compile("unknown field \\S+ \\(known: ([^)]*)\\)");
    withUnknown.forEach((prefix, json) -> {
      String message = catchThrowable(() -> of(json)).getMessage();
      Matcher m = known.matcher(message);
      assertThat(m.find()).as(message).isTrue();
      List<String> documented = table.keySet().stream()
          .filter(f -> f.startsWith(prefix) && f.indexOf('.', prefix.length()) < 0)
          .map(f -> f.substring(prefix.length())).sorted().toList();
      assertThat(documented).as("the fields of " + (prefix.isEmpty() ? "GpuConfig" : prefix))
          .containsExactly(m.group(1).split(", "));
    });
  }

  @Test
  void theExamplesConfigurationsAreValid() throws Exception {
    ObjectMapper yaml = new ObjectMapper(new com.fasterxml.jackson.dataformat.yaml.YAMLFactory());
    ObjectMapper json = new ObjectMapper();
    for (String file : List.of("claim-time-sliced.yaml", "claim-mps.yaml")) {
      JsonNode claim = yaml.readTree(Path.of("..", "examples", "gpu", file).toFile());
      List<String> parameters = new ArrayList<>();
      claim.at("/spec/devices/config").forEach(c -> parameters.add(c.at("/opaque/parameters").toString()));
      assertThat(parameters).as(file).hasSize(1);
      assertThat(GpuConfig.of(parameters).strategy()).as(file).isNotEqualTo(GpuConfig.Strategy.Exclusive);
      assertThat(json.readTree(parameters.get(0)).get("apiVersion").asText()).isEqualTo(GpuConfig.API_VERSION);
    }
  }
}
