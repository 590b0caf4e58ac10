package io.nodeatlas.agent.slices;

import static org.assertj.core.api.Assertions.assertThat;

import io.fabric8.kubernetes.api.model.resource.v1.DeviceAttributeBuilder;
import io.fabric8.kubernetes.api.model.resource.v1.DeviceBuilder;
import io.fabric8.kubernetes.api.model.resource.v1.ResourceSlice;
import io.fabric8.kubernetes.api.model.resource.v1.ResourceSliceBuilder;
import io.nodeatlas.agent.testing.TestDevices;
import java.util.ArrayList;
import java.util.List;
import org.junit.jupiter.api.Test;

class SliceValidatorTest {

  @Test
  void mappedDiscoveryDevicesAreValid() {
    assertThat(SliceValidator.deviceProblems(SliceDeviceMapper.toSliceDevice(TestDevices.gpu(0)))).isEmpty();
  }

  @Test
  void rejectsWhatTheApiServerRejects() {
    var bad = new DeviceBuilder().withName("GPU_0")
        .addToAttributes("nodeatlas.io/a/b", new DeviceAttributeBuilder().withString("x").build())
        .addToAttributes("two", new DeviceAttributeBuilder().withString("x").withInt(1L).build())
        .addToAttributes("long", new DeviceAttributeBuilder().withString("x".repeat(65)).build())
        .addToAttributes("ver", new DeviceAttributeBuilder().withVersion("12.4").build())
        .build();

    assertThat(SliceValidator.deviceProblems(bad)).hasSize(5).anySatisfy(p -> assertThat(p).contains("DNS label"))
        .anySatisfy(p -> assertThat(p).contains("exactly one value"))
        .anySatisfy(p -> assertThat(p).contains("longer than 64"))
        .anySatisfy(p -> assertThat(p).contains("semantic version"));
  }

  @Test
  void rejectsOversizedAndDuplicatedSlices() {
    List<io.fabric8.kubernetes.api.model.resource.v1.Device> devices = new ArrayList<>();
    TestDevices.gpus(129).forEach(d -> devices.add(SliceDeviceMapper.toSliceDevice(d)));
    devices.add(SliceDeviceMapper.toSliceDevice(TestDevices.gpu(0)));
    ResourceSlice s = new ResourceSliceBuilder().withNewMetadata().withName("n-0").endMetadata().withNewSpec()
        .withDriver("nodeatlas.io").withNodeName("n").withNewPool().withName("n").withGeneration(1L)
        .withResourceSliceCount(1L).endPool().withDevices(devices).endSpec().build();

    assertThat(SliceValidator.sliceProblems(s)).anySatisfy(p -> assertThat(p).contains("at most 128"))
        .anySatisfy(p -> assertThat(p).contains("gpu-0\" appears twice"));
  }
}
