package io.nodeatlas.discovery.gpu;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.List;
import java.util.Optional;
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

  @Test
  void theSchemaFileAllowsWhatTheParserAllows() throws Exception {
    JsonNode schema = new ObjectMapper().readTree(Path.of("..", "docs", "schemas", "gpu-config.v1alpha1.schema.json").toFile());
    JsonNode sharing = schema.at("/properties/sharing");
    assertThat(schema.at("/properties/apiVersion/const").asText()).isEqualTo(GpuConfig.API_VERSION);
    assertThat(schema.at("/properties/kind/const").asText()).isEqualTo(GpuConfig.KIND);
    assertThat(texts(sharing.at("/properties/strategy/enum")))
        .containsExactlyElementsOf(Arrays.stream(GpuConfig.Strategy.values()).map(Enum::name).toList());
    assertThat(texts(sharing.at("/properties/timeSlicingConfig/properties/interval/enum")))
        .containsExactlyElementsOf(Arrays.stream(GpuConfig.Interval.values()).map(Enum::name).toList());
    assertThat(names(sharing.at("/properties/mpsConfig/properties")))
        .containsExactly("defaultActiveThreadPercentage", "defaultPinnedDeviceMemoryLimit");
    for (String p : List.of("", "/properties/sharing", "/properties/sharing/properties/timeSlicingConfig",
        "/properties/sharing/properties/mpsConfig")) {
      assertThat(schema.at(p + "/additionalProperties").asBoolean(true)).as(p).isFalse();
    }
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

  private static List<String> texts(JsonNode array) {
    List<String> out = new ArrayList<>();
    array.forEach(n -> out.add(n.asText()));
    return out;
  }

  private static List<String> names(JsonNode object) {
    List<String> out = new ArrayList<>();
    object.fieldNames().forEachRemaining(out::add);
    return out;
  }
}
