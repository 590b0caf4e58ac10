package io.nodeatlas.discovery.net;

import io.nodeatlas.discovery.host.FactReader;
import io.nodeatlas.discovery.host.HostContext;
import io.nodeatlas.discovery.host.HostFs;
import io.nodeatlas.discovery.model.AttributeDoc;
import io.nodeatlas.discovery.spi.Availability;
import io.nodeatlas.discovery.spi.DiscoveryException;
import io.nodeatlas.discovery.spi.DiscoveryResult;
import io.nodeatlas.discovery.spi.DiscoverySource;
import io.nodeatlas.discovery.host.SourceSetting;
import io.nodeatlas.discovery.net.uplink.IpLiterals;
import io.nodeatlas.discovery.net.uplink.UplinkReader;
import io.nodeatlas.discovery.net.uplink.Uplinks;
import java.net.InetAddress;
import java.util.List;

/**
 * The {@code nic-rdma} source: RDMA devices, network functions and SR-IOV VFs from sysfs. It owns
 * four settings ({@link #INCLUDE_VIRTUAL}, {@link #MAD_DEVICES}, {@link #ALLOW_UPLINKS}, {@link #NODE_IP}) and the attributes of the {@code rdma},
 * {@code vf} and {@code nic} device types ({@link NicRdmaAttributes#catalogue()}).
 */
public final class NicRdmaSource implements DiscoverySource {

  public static final String NAME = "nic-rdma";

  /** Publish lo, bridges, veth and VLANs too ({@code nic-rdma.includeVirtual}). */
  public static final SourceSetting INCLUDE_VIRTUAL = SourceSetting.bool(NAME, "includeVirtual",
      "--include-virtual-nics", "NODEATLAS_INCLUDE_VIRTUAL_NICS", false,
      "Also report virtual interfaces (lo, bridges, veth, VLANs).");

  /**
   * Give containers every port's {@code umadN} and {@code issmN} ({@code nic-rdma.madDevices}); without
   * it InfiniBand ports still get their {@code umadN}.
   */
  public static final SourceSetting MAD_DEVICES = SourceSetting.bool(NAME, "madDevices",
      "--rdma-mad-devices", "NODEATLAS_RDMA_MAD_DEVICES", false,
      "Give containers the RDMA MAD devices (umadN, issmN) of every port too.");

  /**
   * Give out the host's uplinks too ({@code nic-rdma.allowUplinks}): the interfaces that carry a default
   * route or the node's IP, and the NICs below them.
   */
  public static final SourceSetting ALLOW_UPLINKS = SourceSetting.bool(NAME, "allowUplinks",
      "--allow-uplink-nics", "NODEATLAS_ALLOW_UPLINK_NICS", false,
      "Also give pods the host's uplink interfaces (default route, node IP): without it they are published with "
          + "uplink=true and no netDevices edit.");

  /** The node's own IP addresses ({@code nic-rdma.nodeIp}): their interfaces are uplinks too. */
  public static final SourceSetting NODE_IP = SourceSetting.string(NAME, "nodeIp", "--node-ip", "NODEATLAS_NODE_IP", "",
      "The node's IP addresses (its InternalIP; comma-separated for dual stack): the interfaces carrying them are uplinks.",
      IpLiterals::check);

  @Override
  public String name() {
    return NAME;
  }

  @Override
  public String description() {
    return "RDMA devices, network interfaces and SR-IOV functions from sysfs (class/infiniband, class/net, bus/pci)";
  }

  @Override
  public List<SourceSetting> settings() {
    return List.of(INCLUDE_VIRTUAL, MAD_DEVICES, ALLOW_UPLINKS, NODE_IP);
  }

  @Override
  public List<AttributeDoc> catalogue() {
    return NicRdmaAttributes.catalogue();
  }

  @Override
  public Availability availability(HostContext host) {
    HostFs fs = host.fs();
    if (fs.isDirectory(fs.sys("class/net")) || fs.isDirectory(fs.sys("class/infiniband"))) {
      return Availability.ok();
    }
    return Availability.unavailable("neither " + fs.hostPath(fs.sys("class/net")) + " nor "
        + fs.hostPath(fs.sys("class/infiniband")) + " exists");
  }

  @Override
  public DiscoveryResult discover(HostContext host) throws DiscoveryException {
    boolean includeVirtual = flag(host, INCLUDE_VIRTUAL);
    boolean madDevices = flag(host, MAD_DEVICES);
    DiscoveryResult.Builder result = new DiscoveryResult.Builder(NAME);
    FactReader facts = new FactReader(host.fs(), result::warn);
    NicRdmaInventory inventory = NicRdmaScanner.scan(facts, includeVirtual, madDevices);
    Uplinks uplinks = new UplinkReader(facts).read(nodeIps(host));
    NicRdmaPublisher.publish(inventory, madDevices, facts, uplinks, flag(host, ALLOW_UPLINKS)).forEach(result::device);
    return result.build();
  }

  /** Link, port and PCI presence of the published devices, read from sysfs on every poll. */
  @Override
  public java.util.Optional<io.nodeatlas.discovery.health.HealthCheck> healthCheck(HostContext host) {
    return java.util.Optional.of(new io.nodeatlas.discovery.net.health.NicRdmaHealthCheck(host.fs()));
  }

  private static List<InetAddress> nodeIps(HostContext host) throws DiscoveryException {
    try {
      return IpLiterals.parseList(host.options().get(NODE_IP).orElse(""));
    } catch (IllegalArgumentException e) {
      throw new DiscoveryException("setting " + NODE_IP.key() + ": " + e.getMessage(), e);
    }
  }

  private static boolean flag(HostContext host, SourceSetting setting) throws DiscoveryException {
    try {
      return host.options().flag(setting);
    } catch (IllegalArgumentException e) {
      throw new DiscoveryException("setting " + setting.key() + ": " + e.getMessage(), e);
    }
  }

  /** A NIC's, VF's or RDMA device's interface and MAC, as published ({@code nodeatlas.io/ifName}, {@code nodeatlas.io/mac}). */
  @Override
  public java.util.Optional<io.nodeatlas.discovery.share.NetworkData> networkData(io.nodeatlas.discovery.model.Device device) {
    return text(device, NicRdmaAttributes.IF_NAME)
        .map(name -> new io.nodeatlas.discovery.share.NetworkData(name, text(device, NicRdmaAttributes.MAC).orElse("")));
  }

  private static java.util.Optional<String> text(io.nodeatlas.discovery.model.Device d, String attribute) {
    return d.attribute(attribute).map(io.nodeatlas.discovery.model.AttributeValue::asObject)
        .filter(String.class::isInstance).map(String.class::cast);
  }
}
