package io.nodeatlas.agent.cli;

import static org.assertj.core.api.Assertions.assertThat;

import io.nodeatlas.agent.cli.DiscoverCommandTest.Result;
import io.nodeatlas.discovery.model.AttributeValue;
import io.nodeatlas.discovery.model.Device;
import io.nodeatlas.discovery.model.Names;
import io.nodeatlas.discovery.report.NodeReport;
import io.nodeatlas.discovery.report.NodeReportCodec;
import io.nodeatlas.discovery.report.SourceStatus;
import io.nodeatlas.discovery.testing.FixtureTree;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.Map;
import org.junit.jupiter.api.Assumptions;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * {@code nodeatlas discover --sources gpu --nvml-library PATH} from the command line, in a separate
 * process, against the fake {@code libnvidia-ml.so.1} that gcc builds in discovery-gpu's test phase
 * (the reactor builds discovery-gpu before agent).
 */
class DiscoverGpuCommandTest {

  private static final Path FAKE_NVML =
      Path.of("..", "discovery-gpu", "target", "native", "libnvidia-ml.so.1").toAbsolutePath().normalize();

  @TempDir Path tmp;

  @BeforeEach
  void fakeLibraryIsBuilt() {
    Assumptions.assumeTrue(Files.isRegularFile(FAKE_NVML),
        () -> FAKE_NVML + " is not built; run ./mvnw test-compile -pl discovery-gpu first");
    FixtureTree.at(tmp)
        .file("fake-nvml.conf", String.join("\n",
            "driver.version=550.54.15",
            "cuda.driver.version=12040",
            "device.count=2",
            "device.0.name=NVIDIA H100 80GB HBM3",
            "device.0.uuid=GPU-6c6f1d3e-1b6e-4b5f-9c1e-5b8a4f0e2a11",
            "device.0.minor=0",
            "device.0.pci.busid=00000000:18:00.0",
            "device.0.memory.total=85520809984",
            "device.1.name=NVIDIA H100 80GB HBM3",
            "device.1.uuid=GPU-0b7a7e8c-5d4e-4b3a-8e2f-1c9d0e6f7a22",
            "device.1.minor=1",
            "device.1.pci.busid=00000000:19:00.0",
            "device.1.memory.total=85520809984",
            "device.1.error.nvmlDeviceGetSerial=3",
            ""))
        .file("no-driver.conf", "init.error=9\n")
        .dir("host/sys")
        .dir("host/proc")
        .dir("host/dev");
  }

  private Result discover(String config) throws Exception {
    return DiscoverCommandTest.runProcess(Map.of("FAKE_NVML_CONFIG", tmp.resolve(config).toString()), null,
        "discover", "--sources", "gpu", "--host-root", tmp.resolve("host").toString(),
        "--nvml-library", FAKE_NVML.toString());
  }

  @Test
  void gpusComeThroughTheRealJnaPath() throws Exception {
    Result r = discover("fake-nvml.conf");
    assertThat(r.status()).as(r.err()).isZero();
    NodeReport report = new NodeReportCodec().fromJson(r.out());
    assertThat(report.sources()).containsEntry("gpu", SourceStatus.OK);
    assertThat(report.devices()).extracting(Device::name).containsExactly("gpu-0", "gpu-1");
    Device gpu0 = report.devices().get(0);
    assertThat(gpu0.attribute(Names.ours("uuid"))).contains(AttributeValue.string("GPU-6c6f1d3e-1b6e-4b5f-9c1e-5b8a4f0e2a11"));
    assertThat(gpu0.attribute(Names.PCI_BUS_ID)).contains(AttributeValue.string("0000:18:00.0"));
    assertThat(gpu0.attribute(Names.ours("driverVersion"))).contains(AttributeValue.version("550.54.15"));
    assertThat(gpu0.attribute(Names.ours("cudaDriverVersion"))).contains(AttributeValue.version("12.4.0"));
    assertThat(gpu0.capacity().get(Names.ours("memory")).toBigDecimal()).isEqualByComparingTo("85520809984");
    // One failing call on gpu-1 costs that fact and a warning, not the GPU.
    assertThat(report.warnings()).anySatisfy(w -> assertThat(w.message()).contains("serial number"));
  }

  @Test
  void noDriverIsUnavailableNotAFailure() throws Exception {
    Result r = discover("no-driver.conf");
    assertThat(r.status()).as(r.err()).isZero();
    NodeReport report = new NodeReportCodec().fromJson(r.out());
    assertThat(report.sources().get("gpu").isUnavailable()).isTrue();
    assertThat(report.devices()).isEmpty();
    assertThat(report.warnings()).singleElement()
        .satisfies(w -> assertThat(w.message()).startsWith("source unavailable: NVML"));
  }
}
