package io.nodeatlas.discovery.net.model;

import io.nodeatlas.discovery.pci.PciAddress;
import java.util.Optional;
import java.util.OptionalInt;
import java.util.OptionalLong;
import java.util.regex.Pattern;

/**
 * One entry of {@code /sys/class/net}. {@code virtual} follows the kernel's placement: the link
 * points under {@code devices/virtual/}, or there is no {@code device} parent. {@code pciAddress} is the
 * nearest PCI function above the netdev (a virtio or auxiliary parent is walked past).
 */
public record NetInterface(
    String name,
    boolean virtual,
    Optional<PciAddress> pciAddress,
    OptionalInt type,
    Optional<String> address,
    OptionalInt mtu,
    Optional<String> operState,
    OptionalLong speedMbps,
    OptionalInt devPort,
    Optional<String> physPortName,
    Optional<String> physSwitchId,
    boolean bridge) {

  /** ARPHRD_ETHER. */
  public static final int TYPE_ETHER = 1;
  /** ARPHRD_INFINIBAND: IPoIB, whose 20-byte address ends with the port GID. */
  public static final int TYPE_INFINIBAND = 32;
  /** ARPHRD_LOOPBACK. */
  public static final int TYPE_LOOPBACK = 772;

  /** sriovnet's representor patterns: {@code (c<n>)?pf<n>vf<n>}, {@code pf<n>sf<n>}, {@code pf<n>hpf}. */
  private static final Pattern REPRESENTOR = Pattern.compile("^(c\\d+)?pf\\d+(vf\\d+|sf\\d+|hpf)$");

  /** A switchdev representor: a switch port, not an allocatable function. */
  public boolean isRepresentor() {
    return physSwitchId.filter(s -> !s.isEmpty()).isPresent()
        && physPortName.filter(n -> REPRESENTOR.matcher(n).matches()).isPresent();
  }

  /**
   * Whether the interface can be moved into another network namespace: loopback and bridges carry
   * NETIF_F_NETNS_LOCAL in the kernel, so a CDI netDevice edit for them would fail at container start.
   */
  public boolean movable() {
    return !bridge && type.orElse(TYPE_ETHER) != TYPE_LOOPBACK;
  }

  /** The link layer the ARPHRD type implies, for NICs that have no RDMA port to ask. */
  public Optional<LinkLayer> linkLayer() {
    if (type.isEmpty()) {
      return Optional.empty();
    }
    return switch (type.getAsInt()) {
      case TYPE_ETHER -> Optional.of(LinkLayer.ETHERNET);
      case TYPE_INFINIBAND -> Optional.of(LinkLayer.INFINIBAND);
      default -> Optional.empty();
    };
  }
}
