package io.nodeatlas.agent.slices;

import static org.assertj.core.api.Assertions.assertThat;

import io.fabric8.kubernetes.api.model.Quantity;
import io.fabric8.kubernetes.api.model.resource.v1.CapacityRequestPolicy;
import io.fabric8.kubernetes.api.model.resource.v1.CapacityRequestPolicyBuilder;
import io.fabric8.kubernetes.api.model.resource.v1.DeviceAttributeBuilder;
import io.fabric8.kubernetes.api.model.resource.v1.DeviceCapacity;
import io.fabric8.kubernetes.api.model.resource.v1.DeviceCapacityBuilder;
import io.fabric8.kubernetes.api.model.resource.v1.DeviceBuilder;
import io.fabric8.kubernetes.api.model.resource.v1.ResourceSlice;
import io.fabric8.kubernetes.api.model.resource.v1.ResourceSliceBuilder;
import io.nodeatlas.agent.testing.TestDevices;
import io.nodeatlas.discovery.model.RequestPolicy;
import java.util.ArrayList;
import java.util.List;
import java.util.Optional;
import org.junit.jupiter.api.Test;

class SliceValidatorTest {

  /** The device model's quantity (the fabric8 one is {@link Quantity}). */
  private static final class Q {
    static io.nodeatlas.discovery.model.Quantity parse(String s) {
      return io.nodeatlas.discovery.model.Quantity.parse(s);
    }
  }

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
  void sharingAndRequestPoliciesArePublishedAsTheDeviceStatesThem() {
    var shared = SliceDeviceMapper.toSliceDevice(TestDevices.sharedCpus(1));
    assertThat(shared.getAllowMultipleAllocations()).isTrue();
    var cpu = shared.getCapacity().get("nodeatlas.io/cpu");
    assertThat(cpu.getValue()).isEqualTo(new Quantity("64"));
    assertThat(cpu.getRequestPolicy().getDefault()).isEqualTo(new Quantity("1"));
    assertThat(cpu.getRequestPolicy().getValidRange().getMin()).isEqualTo(new Quantity("1"));
    assertThat(cpu.getRequestPolicy().getValidRange().getMax()).isEqualTo(new Quantity("64"));
    assertThat(cpu.getRequestPolicy().getValidRange().getStep()).isEqualTo(new Quantity("1"));
    assertThat(cpu.getRequestPolicy().getValidValues()).isNullOrEmpty();
    assertThat(SliceValidator.deviceProblems(shared)).isEmpty();

    var values = SliceDeviceMapper.toSliceDevice(io.nodeatlas.discovery.model.Device.builder("mem-0", "test")
        .allowMultipleAllocations(true)
        .capacity("nodeatlas.io/memory", Q.parse("64Gi"), new RequestPolicy(Q.parse("8Gi"), Optional.empty(),
            List.of(Q.parse("8Gi"), Q.parse("16Gi"), Q.parse("32Gi"))))
        .build());
    assertThat(values.getCapacity().get("nodeatlas.io/memory").getRequestPolicy().getValidValues())
        .containsExactly(new Quantity("8Gi"), new Quantity("16Gi"), new Quantity("32Gi"));
    assertThat(SliceValidator.deviceProblems(values)).isEmpty();

    // Exclusive devices say nothing about sharing: the API's default (false) applies.
    var gpu = SliceDeviceMapper.toSliceDevice(TestDevices.gpu(0));
    assertThat(gpu.getAllowMultipleAllocations()).isNull();
    assertThat(gpu.getCapacity().get("nodeatlas.io/memory").getRequestPolicy()).isNull();
  }

  @Test
  void rejectsRequestPoliciesTheApiServerRejects() {
    var policyOnExclusive = new DeviceBuilder().withName("a")
        .addToCapacity("c", capacity("8", new CapacityRequestPolicyBuilder().withDefault(new Quantity("1")).build()))
        .build();
    assertThat(SliceValidator.deviceProblems(policyOnExclusive)).containsExactly(
        "capacity c: requestPolicy needs allowMultipleAllocations: true on the device");

    List<Quantity> eleven = new ArrayList<>();
    for (int i = 1; i <= 11; i++) {
      eleven.add(new Quantity(Integer.toString(i)));
    }
    var bad = new DeviceBuilder().withName("b").withAllowMultipleAllocations(true)
        .addToCapacity("many", capacity("64", new CapacityRequestPolicyBuilder().withDefault(new Quantity("1"))
            .withValidValues(eleven).build()))
        .addToCapacity("unsorted", capacity("64", new CapacityRequestPolicyBuilder().withDefault(new Quantity("4"))
            .withValidValues(new Quantity("8"), new Quantity("4")).build()))
        .addToCapacity("both", capacity("64", new CapacityRequestPolicyBuilder().withDefault(new Quantity("4"))
            .withValidValues(new Quantity("4")).withNewValidRange().withMin(new Quantity("1")).endValidRange().build()))
        .addToCapacity("nodefault", capacity("64", new CapacityRequestPolicyBuilder()
            .withNewValidRange().withMin(new Quantity("1")).endValidRange().build()))
        .addToCapacity("range", capacity("64", new CapacityRequestPolicyBuilder().withDefault(new Quantity("100"))
            .withNewValidRange().withMin(new Quantity("8")).withMax(new Quantity("128")).withStep(new Quantity("60"))
            .endValidRange().build()))
        .addToCapacity("notlisted", capacity("64", new CapacityRequestPolicyBuilder().withDefault(new Quantity("3"))
            .withValidValues(new Quantity("4"), new Quantity("128")).build()))
        .build();

    assertThat(SliceValidator.deviceProblems(bad)).containsExactlyInAnyOrder(
        "capacity many: requestPolicy.validValues has 11 entries, at most 10 allowed",
        "capacity unsorted: requestPolicy.validValues must be sorted ascending without duplicates",
        "capacity both: requestPolicy sets both validRange and validValues, at most one is allowed",
        "capacity nodefault: requestPolicy.default is required with validRange or validValues",
        "capacity range: requestPolicy.default 100 is outside 0..64",
        "capacity range: requestPolicy.validRange.max 128 is outside 8..64",
        "capacity range: requestPolicy.validRange min + step 68 exceeds the capacity 64",
        "capacity range: requestPolicy.default 100 is not min plus a multiple of step 60",
        "capacity notlisted: requestPolicy.validValues entry 128 is outside 0..64",
        "capacity notlisted: requestPolicy.default 3 is not one of validValues");
  }

  @Test
  void acceptsTheOnlyPolicyOfACapacityOfOneUnitAndChecksStepAlignment() {
    // One CPU (or one hugepage): min = max = capacity and no step, as validateRequestPolicyRange accepts.
    var one = new DeviceBuilder().withName("one").withAllowMultipleAllocations(true)
        .addToCapacity("cpu", capacity("1", new CapacityRequestPolicyBuilder().withDefault(new Quantity("1"))
            .withNewValidRange().withMin(new Quantity("1")).withMax(new Quantity("1")).endValidRange().build()))
        .addToCapacity("memory", capacity("2097152", new CapacityRequestPolicyBuilder()
            .withDefault(new Quantity("2097152")).withNewValidRange().withMin(new Quantity("2097152"))
            .withMax(new Quantity("2097152")).endValidRange().build()))
        .build();
    assertThat(SliceValidator.deviceProblems(one)).isEmpty();
    var stepped = new DeviceBuilder().withName("stepped").withAllowMultipleAllocations(true)
        .addToCapacity("cpu", capacity("1", new CapacityRequestPolicyBuilder().withDefault(new Quantity("1"))
            .withNewValidRange().withMin(new Quantity("1")).withMax(new Quantity("1")).withStep(new Quantity("1"))
            .endValidRange().build()))
        .addToCapacity("pages", capacity("10", new CapacityRequestPolicyBuilder().withDefault(new Quantity("2"))
            .withNewValidRange().withMin(new Quantity("2")).withMax(new Quantity("9")).withStep(new Quantity("2"))
            .endValidRange().build()))
        .build();
    assertThat(SliceValidator.deviceProblems(stepped)).containsExactlyInAnyOrder(
        "capacity cpu: requestPolicy.validRange min + step 2 exceeds the capacity 1",
        "capacity pages: requestPolicy.validRange.max 9 is not min plus a multiple of step 2");
  }

  @Test
  void checksNodeAllocatableResourcesAsTheApiServerDoes() {
    var good = new DeviceBuilder().withName("good").withAllowMultipleAllocations(true)
        .addToCapacity("nodeatlas.io/cpu", capacity("4", null))
        .addToAdditionalProperties("nodeAllocatableResources", java.util.Map.of(
            "cpu", java.util.Map.of("mapping", java.util.Map.of("capacityKey", "nodeatlas.io/cpu", "capacityMultiplier", "1")),
            "hugepages-1Gi", java.util.Map.of("mapping", java.util.Map.of("deviceMultiplier", "1Gi")),
            "memory", java.util.Map.of("overhead", java.util.Map.of("perPod", "64Mi"))))
        .build();
    assertThat(SliceValidator.deviceProblems(good)).isEmpty();
    var bad = new DeviceBuilder().withName("bad").withAllowMultipleAllocations(true)
        .addToCapacity("nodeatlas.io/cpu", capacity("4", null))
        .addToAdditionalProperties("nodeAllocatableResources", new java.util.TreeMap<>(java.util.Map.of(
            "nvidia.com/gpu", java.util.Map.of("mapping", java.util.Map.of("deviceMultiplier", "1")),
            "cpu", java.util.Map.of("mapping", java.util.Map.of("capacityKey", "nodeatlas.io/cores", "capacityMultiplier", "0",
                "deviceMultiplier", "1")),
            "memory", java.util.Map.of(),
            "hugepages-2Mi", java.util.Map.of("mapping", java.util.Map.of("capacityMultiplier", "2")))))
        .build();
    assertThat(SliceValidator.deviceProblems(bad)).containsExactlyInAnyOrder(
        "nodeAllocatableResources[cpu].mapping.capacityKey \"nodeatlas.io/cores\" is not a capacity of the device",
        "nodeAllocatableResources[cpu].mapping sets capacityKey and deviceMultiplier, at most one is allowed",
        "nodeAllocatableResources[cpu].mapping.capacityMultiplier must be positive",
        "nodeAllocatableResources[hugepages-2Mi].mapping.capacityKey is required when capacityMultiplier is set",
        "nodeAllocatableResources[memory]: at least one of mapping or overhead must be set",
        "nodeAllocatableResources[nvidia.com/gpu]: not a node allocatable resource name (cpu, memory, hugepages-<size>)");
  }

  @Test
  void listAttributesCountEveryValueAndLowerTheSliceTo64Devices() {
    // numEntriesDeviceAttribute: 48 values per device, list items one each (KEP-5491).
    List<String> roots = new ArrayList<>();
    for (int i = 0; i < 48; i++) {
      roots.add(String.format("pci0000:%02x", i));
    }
    var tooMany = new DeviceBuilder().withName("cpu-numa0")
        .addToAttributes("resource.kubernetes.io/pcieRoot", new io.fabric8.kubernetes.api.model.resource.v1
            .DeviceAttributeBuilder().withStrings(roots).build())
        .addToAttributes("nodeatlas.io/type", new io.fabric8.kubernetes.api.model.resource.v1
            .DeviceAttributeBuilder().withString("cpu").build())
        .build();
    assertThat(SliceValidator.deviceProblems(tooMany)).containsExactly("49 attribute values, at most 48 allowed");

    // NodeSlices splits devices with list attributes into slices of at most 64, each of which validates.
    List<io.nodeatlas.discovery.model.Device> devices = new ArrayList<>();
    for (int i = 0; i < 70; i++) {
      devices.add(io.nodeatlas.discovery.model.Device.builder("cpu-core-" + i, "cpu-numa")
          .attribute("nodeatlas.io/type", "cpu")
          .attribute("resource.kubernetes.io/pcieRoot", io.nodeatlas.discovery.model.AttributeValue.strings(
              List.of("pci0000:00", "pci0000:40")))
          .build());
    }
    var built = new NodeSlices("nodeatlas.io", "node-a").build(devices, false, 1, java.util.Optional.empty());
    assertThat(built.slices()).extracting(s -> s.getSpec().getDevices().size()).containsExactly(64, 6);
    built.slices().forEach(s -> assertThat(SliceValidator.sliceProblems(s)).isEmpty());
    var oneSlice = built.slices().get(0);
    oneSlice.getSpec().getDevices().add(SliceDeviceMapper.toSliceDevice(devices.get(69)));
    assertThat(SliceValidator.sliceProblems(oneSlice)).contains("65 devices, at most 64 allowed in one slice");
    // Without list attributes the limit stays 128.
    assertThat(new NodeSlices("nodeatlas.io", "node-a").build(TestDevices.gpus(70), false, 1, java.util.Optional.empty())
        .slices()).hasSize(1);
  }

  private static DeviceCapacity capacity(String value, CapacityRequestPolicy policy) {
    return new DeviceCapacityBuilder().withValue(new Quantity(value)).withRequestPolicy(policy).build();
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
