package io.nodeatlas.discovery.host;

import io.nodeatlas.discovery.engine.DiscoverySources;
import io.nodeatlas.discovery.spi.DiscoveryResult;
import io.nodeatlas.discovery.spi.DiscoverySource;
import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import io.nodeatlas.discovery.host.SourceOptions;
import java.nio.file.Path;
import org.junit.jupiter.api.Test;

class SourceSettingTest {

  private static final SourceSetting LIBRARY =
      SourceSetting.path("gpu", "nvmlLibrary", "--nvml-library", "NODEATLAS_NVML_LIBRARY", "Load NVML from this file.")
          .withAliases("--nvml-library-path");
  private static final SourceSetting VIRTUAL =
      SourceSetting.bool("nic-rdma", "includeVirtual", "--include-virtual-nics", "NODEATLAS_INCLUDE_VIRTUAL_NICS", false, "Also virtual NICs.");

  @Test
  void keysAreTheSourcesAndTheConfigFileUsesTheFlagInCamelCase() {
    assertThat(LIBRARY.key()).isEqualTo("gpu.nvmlLibrary");
    assertThat(LIBRARY.configKey()).isEqualTo("nvmlLibrary");
    assertThat(VIRTUAL.configKey()).isEqualTo("includeVirtualNics");
    assertThat(LIBRARY.aliases()).containsExactly("--nvml-library-path");
  }

  @Test
  void valuesAreReadBackTypedWithTheDeclaredDefault() {
    SourceOptions none = SourceOptions.NONE;
    assertThat(none.flag(VIRTUAL)).isFalse();
    assertThat(none.path(LIBRARY)).isEmpty();
    SourceOptions set = none.with(VIRTUAL, "TRUE").with(LIBRARY, "/opt/nvml.so");
    assertThat(set.flag(VIRTUAL)).isTrue();
    assertThat(set.path(LIBRARY)).contains(Path.of("/opt/nvml.so"));
  }

  @Test
  void badValuesAndBadDeclarationsNameTheFlag() {
    assertThatThrownBy(() -> VIRTUAL.validate("yes")).hasMessage("--include-virtual-nics must be true or false, got \"yes\"");
    assertThatThrownBy(() -> SourceOptions.NONE.with(VIRTUAL, "maybe").flag(VIRTUAL)).hasMessageContaining("--include-virtual-nics");
    assertThatThrownBy(() -> SourceSetting.bool("gpu", "Bad", "--x", "X", false, "")).hasMessageContaining("camelCase");
    assertThatThrownBy(() -> SourceSetting.bool("gpu", "x", "-x", "X", false, "")).hasMessageContaining("--kebab-case");
    assertThatThrownBy(() -> SourceSetting.bool("gpu", "x", "--x", "lower", false, "")).hasMessageContaining("UPPER_SNAKE_CASE");
  }

  @Test
  void aSettingsOwnCheckRunsAfterItsTypesAndNamesTheFlag() {
    SourceSetting mode = SourceSetting.string("cpu-numa", "mode", "--mode", "NODEATLAS_MODE", "a", "Mode.", v -> {
      if (!v.equalsIgnoreCase("a") && !v.equalsIgnoreCase("b")) {
        throw new IllegalArgumentException("must be a or b");
      }
      return v.toLowerCase(java.util.Locale.ROOT);
    });
    assertThat(mode.validate("B")).isEqualTo("b");
    assertThat(mode.type()).isEqualTo(SourceSetting.Type.STRING);
    assertThat(mode.defaultValue()).isEqualTo("a");
    assertThatThrownBy(() -> mode.validate("c")).isInstanceOf(IllegalArgumentException.class).hasMessage("--mode: must be a or b");
    // Aliases keep the check; settings declared without one accept any text of their type.
    assertThatThrownBy(() -> mode.withAliases("--mode-alias").validate("c")).hasMessage("--mode: must be a or b");
    assertThat(LIBRARY.validate("any text")).isEqualTo("any text");
    assertThat(LIBRARY.check()).isSameAs(SourceSetting.Check.NONE);
  }

  @Test
  void theRegistryRefusesASettingDeclaredForAnotherSource() {
    DiscoverySource rogue = new DiscoverySource() {
      @Override
      public String name() {
        return "cpu-numa";
      }

      @Override
      public java.util.List<SourceSetting> settings() {
        return java.util.List.of(LIBRARY);
      }

      @Override
      public DiscoveryResult discover(io.nodeatlas.discovery.host.HostContext host) {
        return DiscoveryResult.empty();
      }
    };
    assertThatThrownBy(() -> DiscoverySources.of(java.util.List.of(rogue)).settings())
        .hasMessageContaining("declares setting gpu.nvmlLibrary of another source");
  }
}
