package io.nodeatlas.discovery.model;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import java.util.ArrayList;
import java.util.List;
import java.util.Optional;
import org.junit.jupiter.api.Test;

class DeviceDraftTest {

  private final List<String> warnings = new ArrayList<>();

  @Test
  void aValueThatDoesNotFitCostsThatValueNotTheDevice() {
    Device d = DeviceDraft.of("gpu-0", "gpu", warnings::add)
        .attribute(Device.TYPE, "gpu")
        .attribute(Names.ours("serial"), "x".repeat(70))
        .version(Names.ours("driverVersion"), "550.54")
        .version(Names.ours("cudaDriverVersion"), "12.4.0")
        .build().orElseThrow();
    assertThat(d.attributes()).containsOnlyKeys(Device.TYPE, Names.ours("cudaDriverVersion"));
    assertThat(warnings).containsExactly(
        "device gpu-0: nodeatlas.io/serial left out: the value is 70 bytes, a ResourceSlice allows at most 64",
        "device gpu-0: nodeatlas.io/driverVersion left out: \"550.54\" is not a strict semantic version (MAJOR.MINOR.PATCH)");
  }

  @Test
  void absentValuesAreSkippedSilently() {
    Device d = DeviceDraft.of("nic-eth0", "nic-rdma", warnings::add)
        .attribute(Names.ours("a"), (String) null)
        .attribute(Names.ours("b"), Optional.empty())
        .attribute(Names.ours("c"), java.util.OptionalInt.empty())
        .capacity(Names.ours("d"), (Quantity) null)
        .build().orElseThrow();
    assertThat(d.attributes()).isEmpty();
    assertThat(d.capacity()).isEmpty();
    assertThat(warnings).isEmpty();
  }

  @Test
  void theFirst32EntriesAreKeptAndEachOneBeyondIsNamed() {
    DeviceDraft draft = DeviceDraft.of("big", "test", warnings::add);
    for (int i = 0; i < 30; i++) {
      draft.attribute(Names.ours("a" + i), i);
    }
    draft.capacity(Names.ours("memory"), 1024);
    draft.attribute(Names.ours("last"), true);
    draft.attribute(Names.ours("over1"), true);
    draft.capacity(Names.ours("over2"), 1);
    Device d = draft.build().orElseThrow();
    assertThat(d.attributes().size() + d.capacity().size()).isEqualTo(32);
    assertThat(d.attributes()).containsKey(Names.ours("last")).doesNotContainKey(Names.ours("over1"));
    assertThat(d.capacity()).containsOnlyKeys(Names.ours("memory"));
    assertThat(warnings).containsExactly(
        "device big: nodeatlas.io/over1 left out: the device already has 32 attributes and capacities, the most a ResourceSlice allows",
        "device big: nodeatlas.io/over2 left out: the device already has 32 attributes and capacities, the most a ResourceSlice allows");
  }

  @Test
  void anInvalidNameCostsTheDeviceWithAWarning() {
    assertThat(DeviceDraft.of("GPU_0", "gpu", warnings::add).build()).isEmpty();
    assertThat(warnings).singleElement().asString().startsWith("device \"GPU_0\" left out: its name is not a DNS label");
  }

  @Test
  void anInvalidAttributeNameCostsThatAttribute() {
    Device d = DeviceDraft.of("cpu-numa0", "cpu-numa", warnings::add)
        .attribute("nodeatlas.io/has space", true).attribute(Names.ours("ok"), true).build().orElseThrow();
    assertThat(d.attributes()).containsOnlyKeys(Names.ours("ok"));
    assertThat(warnings).singleElement().asString().startsWith("device cpu-numa0: attribute name \"nodeatlas.io/has space\"");
  }

  @Test
  void aRequestPolicyMakesTheDeviceShared() {
    RequestPolicy cpus = RequestPolicy.range(Quantity.of(1), Quantity.of(1), Quantity.of(64), Quantity.of(1));
    Device d = DeviceDraft.of("cpu-numa0", "cpu-numa", warnings::add)
        .capacity(Names.ours("cpu"), Quantity.of(64), cpus).build().orElseThrow();
    assertThat(d.allowMultipleAllocations()).isTrue();
    assertThat(d.requestPolicies()).containsEntry(Names.ours("cpu"), cpus);
  }

  @Test
  void requestPoliciesFollowTheApisRules() {
    assertThatThrownBy(() -> RequestPolicy.range(Quantity.of(0), Quantity.of(1), Quantity.of(4), null))
        .hasMessageContaining("outside the valid range");
    assertThatThrownBy(() -> RequestPolicy.range(Quantity.of(1), Quantity.of(4), Quantity.of(1), null))
        .hasMessageContaining("below min");
    assertThatThrownBy(() -> new RequestPolicy(Quantity.of(3), Optional.empty(), List.of(Quantity.of(1), Quantity.of(2))))
        .hasMessageContaining("not one of the valid values");
    RequestPolicy.ValidRange pages = new RequestPolicy.ValidRange(
        Quantity.parse("2Mi"), Optional.of(Quantity.parse("1Gi")), Optional.of(Quantity.parse("2Mi")));
    assertThat(pages.admits(Quantity.parse("4Mi"))).isTrue();
    assertThat(pages.admits(Quantity.parse("3Mi"))).isFalse();
    assertThat(pages.admits(Quantity.parse("2Gi"))).isFalse();
  }

  @Test
  void aDeviceRefusesPoliciesWithoutSharingOrCapacity() {
    RequestPolicy one = RequestPolicy.range(Quantity.of(1), Quantity.of(1), null, null);
    assertThatThrownBy(() -> Device.builder("x", "t").capacity(Names.ours("cpu"), Quantity.of(4)).requestPolicy(Names.ours("cpu"), one).build())
        .hasMessageContaining("only apply to a device that allows multiple allocations");
    assertThatThrownBy(() -> Device.builder("x", "t").allowMultipleAllocations(true).requestPolicy(Names.ours("cpu"), one).build())
        .hasMessageContaining("which is no capacity");
  }
}
