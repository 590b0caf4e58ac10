package io.nodeatlas.discovery.net;

import io.nodeatlas.discovery.net.model.NetInterface;
import io.nodeatlas.discovery.net.model.RdmaDevice;
import io.nodeatlas.discovery.net.model.RdmaPort;
import io.nodeatlas.discovery.net.parse.GidParser;
import io.nodeatlas.discovery.net.parse.MacAddressParser;
import io.nodeatlas.discovery.pci.PciAddress;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.SortedMap;
import java.util.TreeMap;

/**
 * Which netdev each RDMA port carries, in a robust order:
 * {@code gid_attrs/ndevs} first (preferring the ndev on the same PCI function over upper devices),
 * then for IPoIB the netdev whose 20-byte address ends with the port GUID of {@code gids/0}, then the
 * PCI parent's netdevs ({@code dev_port + 1} for multi-port functions).
 */
public final class NetdevMapper {

  /** How a port's netdev was found; tests and warnings can tell the paths apart. */
  public enum Method {
    GID_ATTRS,
    PORT_GUID,
    PCI_PARENT
  }

  /** A port's netdev and how it was found. */
  public record Link(String netdev, Method method) {}

  private NetdevMapper() {}

  /**
   * @param byName the interfaces seen in {@code class/net}
   * @param byAddress physical, non-representor interfaces per PCI function, in dev_port then name order
   */
  public static SortedMap<Integer, Link> map(
      RdmaDevice device, Map<String, NetInterface> byName, Map<PciAddress, List<NetInterface>> byAddress) {
    SortedMap<Integer, Link> links = new TreeMap<>();
    List<NetInterface> siblings = byAddress.getOrDefault(device.pciAddress(), List.of());
    for (RdmaPort port : device.ports()) {
      fromGidAttrs(device, port, byName)
          .or(() -> fromPortGuid(port, siblings))
          .or(() -> fromPciParent(device, port, siblings))
          .ifPresent(link -> links.put(port.number(), link));
    }
    return links;
  }

  private static Optional<Link> fromGidAttrs(RdmaDevice device, RdmaPort port, Map<String, NetInterface> byName) {
    List<String> ndevs = port.gids().ndevs();
    if (ndevs.isEmpty()) {
      return Optional.empty();
    }
    for (String ndev : ndevs) {
      NetInterface nic = byName.get(ndev);
      if (nic != null && nic.pciAddress().filter(device.pciAddress()::equals).isPresent()) {
        return Optional.of(new Link(ndev, Method.GID_ATTRS));
      }
    }
    // A LAG ibdev (mlx5_bond_N) only lists bond0, which has no PCI function of its own.
    return Optional.of(new Link(ndevs.get(0), Method.GID_ATTRS));
  }

  private static Optional<Link> fromPortGuid(RdmaPort port, List<NetInterface> siblings) {
    Optional<String> portGid = port.gids().portGid();
    if (portGid.isEmpty()) {
      return Optional.empty();
    }
    String guid = GidParser.interfaceId(portGid.get());
    for (NetInterface nic : siblings) {
      boolean ipoib = nic.type().isPresent() && nic.type().getAsInt() == NetInterface.TYPE_INFINIBAND;
      if (ipoib && nic.address().map(MacAddressParser::lastEightBytes).filter(guid::equals).isPresent()) {
        return Optional.of(new Link(nic.name(), Method.PORT_GUID));
      }
    }
    return Optional.empty();
  }

  private static Optional<Link> fromPciParent(RdmaDevice device, RdmaPort port, List<NetInterface> siblings) {
    if (siblings.isEmpty()) {
      return Optional.empty();
    }
    for (NetInterface nic : siblings) {
      if (nic.devPort().isPresent() && nic.devPort().getAsInt() + 1 == port.number()) {
        return Optional.of(new Link(nic.name(), Method.PCI_PARENT));
      }
    }
    if (siblings.size() == 1 && device.ports().size() == 1) {
      return Optional.of(new Link(siblings.get(0).name(), Method.PCI_PARENT));
    }
    return Optional.empty();
  }
}
