package io.nodeatlas.discovery.net.model;

import java.util.OptionalInt;

/**
 * A user-space RDMA character device and where its node lives on the host. The node is always
 * {@code /dev/infiniband/<sysfs name>} (the class devnode callback prints {@code "infiniband/%s"}),
 * whatever an old kernel's {@code DEVNAME} says.
 */
public record CharDevice(Kind kind, String name, String ibdev, OptionalInt port, DevNumber dev) {

  /** The class a device comes from. */
  public enum Kind {
    UVERBS,
    UMAD,
    ISSM,
    RDMA_CM
  }

  public String hostPath() {
    return "/dev/infiniband/" + name;
  }
}
