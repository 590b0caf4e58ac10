package io.nodeatlas.discovery.model;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import java.math.BigDecimal;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.CsvSource;
import org.junit.jupiter.params.provider.ValueSource;

/** The ResourceSlice limits (resource.k8s.io/v1 ResourceSlice validation: 32 attributes and capacities per device, 128 devices per slice) hold for every device we can build. */
class DeviceTest {

  @Test
  void builderSortsAndQualifies() {
    Device d = Device.builder("gpu-0", "gpu")
        .attribute(Names.ours("uuid"), "GPU-1")
        .attribute(Names.NUMA_NODE, 0)
        .attribute(Names.ours("type"), "gpu")
        .capacity(Names.ours("memory"), 85520809984L)
        .build();
    assertThat(d.attributes().keySet()).containsExactly("nodeatlas.io/type", "nodeatlas.io/uuid",
        "resource.kubernetes.io/numaNode");
    assertThat(d.type()).contains("gpu");
    assertThat(d.capacity().get("nodeatlas.io/memory").toBigDecimal()).isEqualByComparingTo("85520809984");
  }

  @ParameterizedTest
  @ValueSource(strings = {"GPU-0", "gpu_0", "-gpu", "gpu-", "", "a.b"})
  void deviceNamesMustBeDnsLabels(String name) {
    assertThatThrownBy(() -> Device.builder(name, "gpu").build())
        .isInstanceOf(IllegalArgumentException.class).hasMessageContaining("DNS label");
  }

  @Test
  void sixtyFourCharacterNameIsTooLong() {
    assertThatThrownBy(() -> Device.builder("a".repeat(64), "x").build()).hasMessageContaining("DNS label");
    assertThat(Device.builder("a".repeat(63), "x").build().name()).hasSize(63);
  }

  @Test
  void atMost32AttributesAndCapacities() {
    Device.Builder b = Device.builder("d", "x");
    for (int i = 0; i < 31; i++) {
      b.attribute(Names.ours("a" + i), i);
    }
    b.capacity(Names.ours("c"), 1);
    assertThat(b.build().attributes()).hasSize(31);
    b.capacity(Names.ours("c2"), 1);
    assertThatThrownBy(b::build).hasMessageContaining("33 attributes and capacities").hasMessageContaining("32");
  }

  @ParameterizedTest
  @CsvSource(delimiter = '|', value = {
      "nodeatlas.io/a/b|not a C identifier",
      "Nodeatlas.io/type|not a DNS subdomain",
      "nodeatlas.io/1abc|not a C identifier",
      "nodeatlas.io/abcdefghijabcdefghijabcdefghijabc|at most 32",
      "/type|not a DNS subdomain"})
  void qualifiedNameRules(String name, String reason) {
    assertThatThrownBy(() -> Names.requireQualifiedName(name)).hasMessageContaining(reason);
  }

  @Test
  void stringsAreLimitedTo64Bytes() {
    assertThat(AttributeValue.string("x".repeat(64)).value()).hasSize(64);
    assertThatThrownBy(() -> AttributeValue.string("x".repeat(65))).hasMessageContaining("65 bytes");
    // Bytes, not characters: 22 three-byte characters are 66 bytes.
    assertThatThrownBy(() -> AttributeValue.string("€".repeat(22))).hasMessageContaining("66 bytes");
  }

  @ParameterizedTest
  @ValueSource(strings = {"12.4", "v1.2.3", "01.2.3", "1.2.3-", "1.2.3+", "550.54.15.1"})
  void versionsMustBeStrictSemver(String v) {
    assertThatThrownBy(() -> AttributeValue.version(v)).hasMessageContaining("not a strict semantic version");
  }

  @ParameterizedTest
  @ValueSource(strings = {"12.4.0", "550.54.15", "1.0.0-rc.1+build.5", "0.0.0"})
  void strictSemverAccepted(String v) {
    assertThat(AttributeValue.version(v).value()).isEqualTo(v);
  }

  @Test
  void attributeAndCapacityMayNotShareAName() {
    assertThatThrownBy(() -> Device.builder("d", "x").attribute(Names.ours("cpu"), 1).capacity(Names.ours("cpu"), 1)
        .build()).hasMessageContaining("both an attribute and a capacity");
  }

  @ParameterizedTest
  @CsvSource({"16, 16", "2Ki, 2048", "1Gi, 1073741824", "500m, 0.5", "1e3, 1000", "1.5G, 1500000000"})
  void quantities(String text, String value) {
    assertThat(Quantity.parse(text).toBigDecimal()).isEqualByComparingTo(new BigDecimal(value));
  }

  @ParameterizedTest
  @ValueSource(strings = {"", "Gi", "1GB", "1 Gi", "abc", "--1"})
  void badQuantities(String text) {
    assertThatThrownBy(() -> Quantity.parse(text)).hasMessageContaining("not a Kubernetes quantity");
  }

  @Test
  void labelFragments() {
    assertThat(Names.toLabelFragment("0000:03:00.0")).isEqualTo("0000-03-00-0");
    assertThat(Names.toLabelFragment("mlx5_0")).isEqualTo("mlx5-0");
    assertThat(Names.toLabelFragment("__X__")).isEqualTo("x");
  }
}
