package io.nodeatlas.discovery.gpu;

import static org.assertj.core.api.Assertions.assertThat;

import io.nodeatlas.discovery.health.DeviceProblem;
import io.nodeatlas.discovery.health.HealthCheck;
import io.nodeatlas.discovery.host.HostContext;
import io.nodeatlas.discovery.host.HostFs;
import io.nodeatlas.discovery.host.SourceOptions;
import io.nodeatlas.discovery.model.AttributeValue;
import io.nodeatlas.discovery.model.Device;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.StandardOpenOption;
import java.time.Clock;
import java.util.List;
import java.util.Map;
import java.util.stream.Collectors;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/** Case 11 of issue 12, GPU side: XID and lost-GPU events through the fake NVML's event queue, and recovery. */
class GpuHealthCheckTest {

  static final String GPU0 = "GPU-6c6f1d3e-1b6e-4b5f-9c1e-5b8a4f0e2a11";

  @TempDir Path host;
  @TempDir Path confDir;
  Path events;
  List<Device> devices;
  HealthCheck check;

  @BeforeEach
  void discover() throws Exception {
    FakeNvml.twoGpus().install(confDir);
    events = Files.createFile(confDir.resolve("events"));
    FakeNvml.useEvents(events);
    HostContext ctx = new HostContext(HostFs.of(host),
        new SourceOptions(Map.of("gpu.nvmlLibrary", FakeNvml.library().toString())), Clock.systemUTC());
    GpuDiscoverySource source = new GpuDiscoverySource();
    devices = source.discover(ctx).devices();
    check = source.healthCheck(ctx).orElseThrow();
  }

  @AfterEach
  void closeAndCount() {
    check.close();
    assertThat(FakeNvml.initCount()).as("nvmlInit/nvmlShutdown pairs").isZero();
  }

  private void event(String line) throws Exception {
    Files.writeString(events, line + "\n", StandardOpenOption.APPEND);
  }

  /** Problems by the UUID of the GPU the device is (or is part of). */
  private Map<String, List<DeviceProblem>> problemsByGpu() {
    Map<String, Device> byName = devices.stream().collect(Collectors.toMap(Device::name, d -> d));
    return check.check(devices).stream().collect(Collectors.groupingBy(p -> {
      Device d = byName.get(p.device());
      return d.attribute(GpuDevices.PARENT_UUID).or(() -> d.attribute(GpuDevices.UUID)).map(AttributeValue::asObject)
          .orElseThrow().toString();
    }));
  }

  private long devicesOf(String gpuUuid) {
    return devices.stream().filter(d -> d.attribute(GpuDevices.PARENT_UUID).or(() -> d.attribute(GpuDevices.UUID))
        .map(AttributeValue::asObject).filter(gpuUuid::equals).isPresent()).count();
  }

  private String otherGpu() {
    return devices.stream().map(d -> d.attribute(GpuDevices.UUID).map(AttributeValue::asObject).orElse("").toString())
        .filter(u -> u.startsWith("GPU-") && !u.equals(GPU0)).findFirst().orElseThrow();
  }

  @Test
  void aCriticalXidMakesTheGpuAndItsMigDevicesUnhealthyUntilTheGpuIsReset() throws Exception {
    assertThat(check.check(devices)).isEmpty();

    event("0 xid 13"); // an application's fault: not the GPU's
    assertThat(check.check(devices)).isEmpty();

    event("0 xid 48");
    Map<String, List<DeviceProblem>> p = problemsByGpu();
    assertThat(p).containsOnlyKeys(GPU0);
    assertThat(p.get(GPU0)).hasSize((int) devicesOf(GPU0)).hasSizeGreaterThan(1) // the GPU and its MIG device
        .allSatisfy(x -> {
          assertThat(x.reason()).isEqualTo("xid-48");
          assertThat(x.lost()).isFalse();
        });
    // Sticky: no new event, still unhealthy.
    assertThat(problemsByGpu()).containsOnlyKeys(GPU0);

    // A reset: the GPU drops off the bus and comes back; its XID goes with it.
    event("0 lost");
    assertThat(problemsByGpu().get(GPU0)).allSatisfy(x -> {
      assertThat(x.reason()).isEqualTo("gpu-lost");
      assertThat(x.lost()).isTrue();
    });
    event("0 back");
    assertThat(check.check(devices)).isEmpty();
  }

  @Test
  void aLostGpuIsLostAndRecoversWhenItAnswersAgain() throws Exception {
    String gpu1 = otherGpu();
    event("1 lost");
    Map<String, List<DeviceProblem>> p = problemsByGpu();
    assertThat(p).containsOnlyKeys(gpu1);
    assertThat(p.get(gpu1)).singleElement().satisfies(x -> {
      assertThat(x.reason()).isEqualTo("gpu-lost");
      assertThat(x.lost()).isTrue();
    });
    event("1 back");
    assertThat(check.check(devices)).isEmpty();
  }

  @Test
  void xid79IsALostGpuAndMalformedEventsAreSkipped() throws Exception {
    event("garbage line");
    event("1 xid 79");
    assertThat(problemsByGpu().get(otherGpu())).singleElement().satisfies(x -> {
      assertThat(x.reason()).isEqualTo("xid-79");
      assertThat(x.lost()).isTrue();
    });
  }
}
