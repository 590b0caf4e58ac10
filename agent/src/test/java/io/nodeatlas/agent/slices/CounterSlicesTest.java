package io.nodeatlas.agent.slices;

import static org.assertj.core.api.Assertions.assertThat;

import io.fabric8.kubernetes.api.model.resource.v1.ResourceSlice;
import io.fabric8.kubernetes.api.model.resource.v1.ResourceSliceBuilder;
import io.fabric8.kubernetes.client.utils.Serialization;
import io.nodeatlas.discovery.model.CounterConsumption;
import io.nodeatlas.discovery.model.CounterSet;
import io.nodeatlas.discovery.model.Device;
import io.nodeatlas.discovery.model.Quantity;
import java.util.ArrayList;
import java.util.List;
import java.util.Optional;
import java.util.TreeMap;
import org.junit.jupiter.api.Test;

/**
 * Partitionable devices (KEP-4815) in the pool's slices, by the API's rules (validateResourceSliceSpec in
 * k8s.io/kubernetes pkg/apis/resource/validation): counter sets in slices without devices, at most 8 a
 * slice, and at most 64 devices in a slice where any consumes counters.
 */
class CounterSlicesTest {

  /** GPU {@code g}: the whole GPU with a counter set of 8 memory slices, and {@code parts} one-slice partitions. */
  private static List<Device> gpu(int g, int parts) {
    TreeMap<String, Quantity> all = new TreeMap<>();
    for (int s = 0; s < 8; s++) {
      all.put("memory-slice-" + s, Quantity.of(1));
    }
    all.put("compute-slices", Quantity.of(7));
    CounterSet set = new CounterSet("gpu-" + g, all);
    List<Device> out = new ArrayList<>();
    out.add(Device.builder("gpu-" + g, "gpu").attribute(Device.TYPE, "gpu").build()
        .withCounters(List.of(set), List.of(new CounterConsumption(set.name(), all))));
    for (int p = 0; p < parts; p++) {
      TreeMap<String, Quantity> uses = new TreeMap<>();
      uses.put("memory-slice-" + (p % 8), Quantity.of(1));
      uses.put("compute-slices", Quantity.of(1));
      out.add(Device.builder("gpu-" + g + "-mig-1g-18gb-" + p, "gpu").attribute(Device.TYPE, "mig").build()
          .withCounters(List.of(), List.of(new CounterConsumption(set.name(), uses))));
    }
    return out;
  }

  @Test
  void eightH200sMakeValidSlicesWithCountersApartAndAtMost64DevicesEach() {
    List<Device> devices = new ArrayList<>();
    for (int g = 0; g < 9; g++) {
      devices.addAll(gpu(g, 25));
    }
    NodeSlices.Built built = new NodeSlices("nodeatlas.io", "node-1").build(devices, false, 1, Optional.empty());
    assertThat(built.warnings()).isEmpty();
    assertThat(built.devices()).isEqualTo(9 * 26);
    List<ResourceSlice> withDevices = built.slices().stream().filter(s -> !s.getSpec().getDevices().isEmpty()).toList();
    List<ResourceSlice> withCounters = built.slices().stream().filter(s -> !s.getSpec().getSharedCounters().isEmpty()).toList();
    assertThat(withDevices).hasSize(4); // 234 devices, 64 a slice
    assertThat(withDevices).allSatisfy(s -> assertThat(s.getSpec().getDevices()).hasSizeLessThanOrEqualTo(64));
    assertThat(withCounters).hasSize(2); // 9 sets, 8 a slice
    assertThat(withCounters.get(0).getSpec().getSharedCounters()).hasSize(8);
    assertThat(built.slices()).hasSize(6).allSatisfy(s -> {
      assertThat(SliceValidator.sliceProblems(s)).isEmpty();
      assertThat(s.getSpec().getPool().getResourceSliceCount()).isEqualTo(6L);
    });
    assertThat(withCounters.get(0).getMetadata().getName()).isEqualTo("node-1-nodeatlas.io-4");
    String json = Serialization.asJson(withCounters.get(0));
    assertThat(json).contains("\"sharedCounters\"").doesNotContain("\"devices\"");
    assertThat(Serialization.asJson(withDevices.get(0))).contains("\"consumesCounters\":[{\"counterSet\":\"gpu-0\"");
  }

  @Test
  void withoutCountersNothingChanges() {
    List<Device> devices = List.of(Device.builder("gpu-0", "gpu").build());
    NodeSlices.Built built = new NodeSlices("nodeatlas.io", "node-1").build(devices, false, 1, Optional.empty());
    assertThat(built.slices()).hasSize(1);
    assertThat(built.slices().get(0).getSpec().getSharedCounters()).isNullOrEmpty();
    assertThat(Serialization.asJson(built.slices().get(0))).doesNotContain("sharedCounters").doesNotContain("consumesCounters");
  }

  @Test
  void theValidatorRejectsWhatTheApiServerRejectsAboutCounters() {
    List<Device> devices = gpu(0, 70);
    ResourceSlice tooMany = new NodeSlices("nodeatlas.io", "node-1", 128).build(devices, false, 1, Optional.empty())
        .slices().get(0);
    // NodeSlices itself cuts at 64; a slice put together by hand with 71 counter-consuming devices is refused.
    ResourceSlice joined = new ResourceSliceBuilder(tooMany).editSpec().withDevices(devices.stream()
        .map(SliceDeviceMapper::toSliceDevice).toList()).endSpec().build();
    assertThat(SliceValidator.sliceProblems(joined)).contains("71 devices, at most 64 allowed in one slice");

    ResourceSlice both = new ResourceSliceBuilder(tooMany).editSpec()
        .withSharedCounters(SliceDeviceMapper.toCounterSet(devices.get(0).sharedCounters().get(0))).endSpec().build();
    assertThat(SliceValidator.sliceProblems(both)).contains("only one of sharedCounters or devices is allowed in a slice");

    var device = SliceDeviceMapper.toSliceDevice(devices.get(1));
    device.getConsumesCounters().add(device.getConsumesCounters().get(0));
    assertThat(SliceValidator.deviceProblems(device)).contains("consumesCounters names counter set \"gpu-0\" twice");
    device.getConsumesCounters().get(0).setCounterSet("Not_A_Label");
    assertThat(SliceValidator.deviceProblems(device))
        .anySatisfy(p -> assertThat(p).contains("counter set name \"Not_A_Label\" is not a DNS label"));
  }
}
