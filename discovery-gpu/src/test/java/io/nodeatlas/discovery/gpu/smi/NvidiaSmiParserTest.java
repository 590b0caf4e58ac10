package io.nodeatlas.discovery.gpu.smi;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import com.code_intelligence.jazzer.api.FuzzedDataProvider;
import com.code_intelligence.jazzer.junit.FuzzTest;
import io.nodeatlas.discovery.gpu.smi.SmiMachine.Gpu;
import java.util.Optional;
import org.junit.jupiter.api.Test;

/** The nvidia-smi reader the conformance test relies on, on small excerpts of real output shapes. */
class NvidiaSmiParserTest {

  private static final String TEXT = """
      ==============NVSMI LOG==============

      Driver Version                                         : 610.57.04 [Deprecated; use KMD Version instead]
      CUDA Version                                           : 13.3 [Deprecated]
      KMD Version                                            : 610.57.04
      CUDA UMD Version                                       : 13.3

      Attached GPUs                                          : 1
      GPU 00000000:00:09.0
          Product Name                                       : NVIDIA H100 80GB HBM3
          Product Brand                                      : NVIDIA
          MIG Mode
              Current                                        : Enabled
          MIG Device
              Index                                          : 1
              GPU Instance ID                                : 3
              Compute Instance ID                            : 0
              Device Attributes
                  Shared
                      Multiprocessor count                   : 32
                      Copy Engine count                      : 2
              Shared FB Memory Usage
                  Total                                      : 20096 MiB
          Serial Number                                      : [N/A]
          GPU UUID                                           : GPU-00000000-0000-0000-0000-000000000000
          Minor Number                                       : 0
          PCI
              Bus Id                                         : 00000000:00:09.0
              Device Id                                      : 0x233010DE
          FB Memory Usage
              Total                                          : 81559 MiB

      ################################################################################
      GPU 0: NVIDIA H100 80GB HBM3 (UUID: GPU-00000000-0000-0000-0000-000000000000)
        MIG 2g.20gb     Device  1: (UUID: MIG-00000001-0000-0000-0000-000000000001)
      """;

  @Test
  void readsTextOutputWithMigDevicesAndTheListSection() {
    SmiMachine m = NvidiaSmiParser.parse(TEXT);
    assertThat(m.driverVersion()).contains("610.57.04");
    assertThat(m.cudaVersion()).contains("13.3");
    Gpu g = m.gpus().get(0);
    assertThat(g.busId()).isEqualTo("00000000:00:09.0");
    assertThat(g.name()).isEqualTo("NVIDIA H100 80GB HBM3");
    assertThat(g.minor()).contains(0);
    assertThat(g.serial()).isEmpty();
    assertThat(g.memoryTotalMiB()).isEqualTo(81559);
    assertThat(g.pciDeviceId()).contains(0x233010DEL);
    assertThat(g.migMode()).contains("Enabled");
    assertThat(g.migDevices()).singleElement().isEqualTo(new SmiMachine.Mig(1, 3, 0, 20096, 32, 2, 0, 0, 0, 0,
        Optional.of("MIG-00000001-0000-0000-0000-000000000001"), Optional.of("2g.20gb")));
  }

  @Test
  void readsXmlWithoutFetchingItsDtd() {
    SmiMachine m = NvidiaSmiParser.parse("""
        <?xml version="1.0" ?>
        <!DOCTYPE nvidia_smi_log SYSTEM "nvsmi_device_v12.dtd">
        <nvidia_smi_log>
          <driver_version>418.43</driver_version><cuda_version>10.1</cuda_version>
          <gpu id="00000000:43:00.0">
            <product_name>Graphics Device</product_name><uuid>GPU-304a277d-3545-63b8-3a36-dfde3c992989</uuid>
            <minor_number>N/A</minor_number>
            <pci><pci_device_id>218410DE</pci_device_id></pci>
            <fb_memory_usage><total>5941 MiB</total></fb_memory_usage>
          </gpu>
        </nvidia_smi_log>
        """);
    assertThat(m.driverVersion()).contains("418.43");
    assertThat(m.gpus()).singleElement().satisfies(g -> {
      assertThat(g.busId()).isEqualTo("00000000:43:00.0");
      assertThat(g.minor()).isEmpty();
      assertThat(g.pciDeviceId()).contains(0x218410DEL);
      assertThat(g.migMode()).isEmpty();
    });
    assertThat(NvidiaSmiParser.cudaVersionAsInt("10.1")).isEqualTo(10010);
  }

  @Test
  void incompleteOutputIsRejectedWithWhatIsMissing() {
    assertThatThrownBy(() -> NvidiaSmiParser.parse(TEXT.replace("Total                                          : 81559 MiB", "")))
        .isInstanceOf(IllegalArgumentException.class).hasMessage("GPU 00000000:00:09.0: no FB Memory Usage/Total");
    assertThatThrownBy(() -> NvidiaSmiParser.parse("+-----+ NVIDIA-SMI 550.54.14 +"))
        .isInstanceOf(IllegalArgumentException.class).hasMessageContaining("not nvidia-smi -q output");
    assertThatThrownBy(() -> NvidiaSmiParser.parse("<nvidia_smi_log><gpu>"))
        .isInstanceOf(IllegalArgumentException.class).hasMessageStartingWith("not well-formed XML");
  }

  @FuzzTest(maxDuration = "60s")
  void parserThrowsOnlyIllegalArgument(FuzzedDataProvider data) {
    String text = data.consumeRemainingAsString();
    try {
      SmiMachine m = NvidiaSmiParser.parse(text);
      SmiFakeConfig.from(m).text();
      assertThat(m.gpus()).isNotEmpty();
    } catch (IllegalArgumentException expected) {
      // The documented way to say "not usable nvidia-smi output".
    }
  }
}
