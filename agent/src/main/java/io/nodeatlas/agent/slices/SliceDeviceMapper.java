package io.nodeatlas.agent.slices;

import io.fabric8.kubernetes.api.model.Quantity;
import io.fabric8.kubernetes.api.model.resource.v1.DeviceAttribute;
import io.fabric8.kubernetes.api.model.resource.v1.DeviceAttributeBuilder;
import io.fabric8.kubernetes.api.model.resource.v1.DeviceBuilder;
import io.fabric8.kubernetes.api.model.resource.v1.DeviceCapacityBuilder;
import io.nodeatlas.discovery.model.AttributeValue;
import io.nodeatlas.discovery.model.Device;
import java.util.LinkedHashMap;
import java.util.Map;

/**
 * A discovered {@link Device} as a {@code resource.k8s.io/v1} slice device.
 *
 * <p>Attribute and capacity names are published fully qualified, also those in our own domain
 * ({@code nodeatlas.io/type}, not {@code type}). For the default driver {@code nodeatlas.io} both
 * spellings mean the same to the scheduler (unqualified names belong to the driver's domain,
 * dra-api.md §3.3), and CEL reads them the same way ({@code device.attributes["nodeatlas.io"].type}).
 * Keeping the qualified name also keeps that meaning when the driver is renamed with
 * {@code --driver-name}, and the slice shows exactly what {@code nodeatlas discover} prints.
 */
public final class SliceDeviceMapper {

  private SliceDeviceMapper() {}

  public static io.fabric8.kubernetes.api.model.resource.v1.Device toSliceDevice(Device device) {
    Map<String, DeviceAttribute> attributes = new LinkedHashMap<>();
    device.attributes().forEach((name, value) -> attributes.put(name, attribute(value)));
    Map<String, io.fabric8.kubernetes.api.model.resource.v1.DeviceCapacity> capacity = new LinkedHashMap<>();
    device.capacity().forEach((name, q) ->
        capacity.put(name, new DeviceCapacityBuilder().withValue(new Quantity(q.value())).build()));
    return new DeviceBuilder().withName(device.name()).withAttributes(attributes).withCapacity(capacity).build();
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
    }
    return b.build();
  }
}
