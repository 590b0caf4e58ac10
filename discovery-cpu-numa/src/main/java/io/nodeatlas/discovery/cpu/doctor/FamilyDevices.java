package io.nodeatlas.discovery.cpu.doctor;

import io.nodeatlas.discovery.cpu.CpuNumaDevices;
import io.nodeatlas.discovery.model.AttributeValue;
import io.nodeatlas.discovery.model.Device;
import java.util.List;

/** The devices of this family among what discovery publishes, by type. */
final class FamilyDevices {

  private FamilyDevices() {}

  static List<Device> ofType(List<Device> devices, String type) {
    return devices.stream()
        .filter(d -> d.source().equals(CpuNumaDevices.SOURCE))
        .filter(d -> d.attribute(Device.TYPE).map(AttributeValue::asObject).map(type::equals).orElse(false))
        .toList();
  }

  /** Devices whose shares the OCI hook enforces: shared CPU devices and hugepage pools. */
  static List<Device> hooked(List<Device> devices) {
    List<Device> cpus = ofType(devices, CpuNumaDevices.CPU_TYPE).stream().filter(Device::allowMultipleAllocations).toList();
    List<Device> pages = ofType(devices, CpuNumaDevices.HUGEPAGES_TYPE);
    return java.util.stream.Stream.concat(cpus.stream(), pages.stream()).toList();
  }
}
