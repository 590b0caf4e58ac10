package io.nodeatlas.discovery.doctor;

import io.nodeatlas.discovery.host.HostContext;
import io.nodeatlas.discovery.model.Device;
import java.util.List;
import java.util.Objects;

/**
 * What every doctor check may read: the host (its roots, options and clock), where the agent keeps its
 * files, the devices discovery publishes on this node now, and what the kubelet's process and files say.
 */
public record DoctorContext(HostContext host, NodeLayout layout, List<Device> devices, KubeletFacts kubelet) {

  public DoctorContext {
    Objects.requireNonNull(host, "host");
    Objects.requireNonNull(layout, "layout");
    devices = List.copyOf(devices);
    Objects.requireNonNull(kubelet, "kubelet");
  }
}
