package io.nodeatlas.discovery.share;

import java.util.Objects;

/**
 * What a prepared device's entry in its claim's status says of its network interface (KEP-4817,
 * {@code resource.k8s.io/v1} {@code NetworkDeviceData}): the interface and its hardware address
 * (empty when unknown). IPs are never stated: the kernel drops them when the interface moves into the pod.
 */
public record NetworkData(String interfaceName, String hardwareAddress) {

  public NetworkData {
    Objects.requireNonNull(interfaceName, "interfaceName");
    hardwareAddress = hardwareAddress == null ? "" : hardwareAddress;
  }
}
