package io.nodeatlas.agent.slices;

import io.fabric8.kubernetes.api.model.Quantity;
import io.fabric8.kubernetes.api.model.resource.v1.CapacityRequestPolicy;
import io.fabric8.kubernetes.api.model.resource.v1.CapacityRequestPolicyBuilder;
import io.fabric8.kubernetes.api.model.resource.v1.CapacityRequestPolicyRangeBuilder;
import io.fabric8.kubernetes.api.model.resource.v1.DeviceAttribute;
import io.fabric8.kubernetes.api.model.resource.v1.DeviceAttributeBuilder;
import io.fabric8.kubernetes.api.model.resource.v1.DeviceBuilder;
import io.fabric8.kubernetes.api.model.resource.v1.DeviceCapacityBuilder;
import io.nodeatlas.discovery.model.AttributeValue;
import io.nodeatlas.discovery.model.Device;
import io.nodeatlas.discovery.model.NodeAllocatableMapping;
import io.nodeatlas.discovery.model.RequestPolicy;
import java.util.LinkedHashMap;
import java.util.Map;

/**
 * A discovered {@link Device} as a {@code resource.k8s.io/v1} slice device.
 *
 * <p>Attribute and capacity names are published fully qualified, also those in our own domain
 * ({@code nodeatlas.io/type}, not {@code type}). For the default driver {@code nodeatlas.io} both
 * spellings mean the same to the scheduler (a {@code resource.k8s.io/v1} {@code QualifiedName} without a
 * domain belongs to the driver's domain), and CEL reads them the same way
 * ({@code device.attributes["nodeatlas.io"].type}). Keeping the qualified name also keeps that meaning
 * when the driver is renamed with {@code --driver-name}, and the slice shows exactly what
 * {@code nodeatlas discover} prints.
 *
 * <p>Sharing is published as the source set it on the device (KEP-5075, consumable capacity):
 * {@code Device.allowMultipleAllocations} (left out for exclusive devices, which is the API's default)
 * and, per capacity, {@code DeviceCapacity.requestPolicy} with {@code default}, {@code validRange}
 * ({@code min}, {@code max}, {@code step}) or {@code validValues}.
 *
 * <p>Node-allocatable mappings (KEP-5517 alpha 2, Kubernetes 1.37: {@code Device.nodeAllocatableResources},
 * {@code {cpu: {mapping: {capacityKey, capacityMultiplier | deviceMultiplier}}}}) are written as an
 * additional property: the fabric8 model we use (7.8.0) knows only 1.36's
 * {@code nodeAllocatableResourceMappings}, and serialises additional properties beside the known fields.
 */
public final class SliceDeviceMapper {

  /** The JSON name of {@code resource.k8s.io/v1} {@code Device.nodeAllocatableResources} (KEP-5517). */
  public static final String NODE_ALLOCATABLE_RESOURCES = "nodeAllocatableResources";

  private SliceDeviceMapper() {}

  private static Map<String, Object> mapping(NodeAllocatableMapping m) {
    Map<String, Object> out = new LinkedHashMap<>();
    m.capacityKey().ifPresent(k -> out.put("capacityKey", k));
    m.capacityMultiplier().ifPresent(q -> out.put("capacityMultiplier", q.value()));
    m.deviceMultiplier().ifPresent(q -> out.put("deviceMultiplier", q.value()));
    return out;
  }

  public static io.fabric8.kubernetes.api.model.resource.v1.Device toSliceDevice(Device device) {
    Map<String, DeviceAttribute> attributes = new LinkedHashMap<>();
    device.attributes().forEach((name, value) -> attributes.put(name, attribute(value)));
    Map<String, io.fabric8.kubernetes.api.model.resource.v1.DeviceCapacity> capacity = new LinkedHashMap<>();
    device.capacity().forEach((name, q) -> {
      DeviceCapacityBuilder b = new DeviceCapacityBuilder().withValue(new Quantity(q.value()));
      RequestPolicy policy = device.requestPolicies().get(name);
      if (policy != null) {
        b.withRequestPolicy(requestPolicy(policy));
      }
      capacity.put(name, b.build());
    });
    DeviceBuilder b = new DeviceBuilder().withName(device.name()).withAttributes(attributes).withCapacity(capacity);
    if (device.allowMultipleAllocations()) {
      b.withAllowMultipleAllocations(true);
    }
    // KEP-4815 Device.consumesCounters; the counter sets themselves go to a slice of their own (NodeSlices).
    for (io.nodeatlas.discovery.model.CounterConsumption c : device.consumesCounters()) {
      b.addToConsumesCounters(new io.fabric8.kubernetes.api.model.resource.v1.DeviceCounterConsumptionBuilder()
          .withCounterSet(c.counterSet()).withCounters(counters(c.counters())).build());
    }
    if (!device.nodeAllocatableResources().isEmpty()) {
      Map<String, Object> resources = new LinkedHashMap<>();
      device.nodeAllocatableResources().forEach((name, m) -> resources.put(name, Map.of("mapping", mapping(m))));
      b.addToAdditionalProperties(NODE_ALLOCATABLE_RESOURCES, resources);
    }
    return b.build();
  }

  /** {@code resource.k8s.io/v1} {@code CounterSet} of a device's shared counters (KEP-4815). */
  public static io.fabric8.kubernetes.api.model.resource.v1.CounterSet toCounterSet(io.nodeatlas.discovery.model.CounterSet set) {
    return new io.fabric8.kubernetes.api.model.resource.v1.CounterSetBuilder().withName(set.name())
        .withCounters(counters(set.counters())).build();
  }

  private static Map<String, io.fabric8.kubernetes.api.model.resource.v1.Counter> counters(
      Map<String, io.nodeatlas.discovery.model.Quantity> counters) {
    Map<String, io.fabric8.kubernetes.api.model.resource.v1.Counter> out = new LinkedHashMap<>();
    counters.forEach((k, q) -> out.put(k, new io.fabric8.kubernetes.api.model.resource.v1.Counter(quantity(q))));
    return out;
  }

  static CapacityRequestPolicy requestPolicy(RequestPolicy p) {
    CapacityRequestPolicyBuilder b = new CapacityRequestPolicyBuilder().withDefault(quantity(p.defaultValue()));
    p.validRange().ifPresent(r -> {
      CapacityRequestPolicyRangeBuilder range = new CapacityRequestPolicyRangeBuilder().withMin(quantity(r.min()));
      r.max().ifPresent(max -> range.withMax(quantity(max)));
      r.step().ifPresent(step -> range.withStep(quantity(step)));
      b.withValidRange(range.build());
    });
    if (!p.validValues().isEmpty()) {
      b.withValidValues(p.validValues().stream().map(SliceDeviceMapper::quantity).toList());
    }
    return b.build();
  }

  private static Quantity quantity(io.nodeatlas.discovery.model.Quantity q) {
    return new Quantity(q.value());
  }

  static DeviceAttribute attribute(AttributeValue value) {
    DeviceAttributeBuilder b = new DeviceAttributeBuilder();
    if (value instanceof AttributeValue.IntValue v) {
      b.withInt(v.value());
    } else if (value instanceof AttributeValue.BoolValue v) {
      b.withBool(v.value());
    } else if (value instanceof AttributeValue.StringValue v) {
      b.withString(v.value());
    } else if (value instanceof AttributeValue.VersionValue v) {
      b.withVersion(v.value());
    } else if (value instanceof AttributeValue.StringsValue v) {
      b.withStrings(v.values());
    }
    return b.build();
  }
}
