package io.nodeatlas.discovery.net;

import io.nodeatlas.discovery.host.HostContext;
import io.nodeatlas.discovery.host.HostFs;
import io.nodeatlas.discovery.spi.Availability;
import io.nodeatlas.discovery.spi.DiscoveryException;
import io.nodeatlas.discovery.spi.DiscoveryResult;
import io.nodeatlas.discovery.spi.DiscoverySource;

/**
 * The {@code nic-rdma} source. Settings: {@code nic-rdma.includeVirtual} (publish lo, bridges, veth,
 * VLANs too; default false) and {@code nic-rdma.madDevices} (give every port's umadN and issmN to
 * containers; default false, which still gives umadN for InfiniBand ports).
 */
public final class NicRdmaSource implements DiscoverySource {

  public static final String NAME = "nic-rdma";
  public static final String INCLUDE_VIRTUAL = NAME + ".includeVirtual";
  public static final String MAD_DEVICES = NAME + ".madDevices";

  @Override
  public String name() {
    return NAME;
  }

  @Override
  public java.util.List<io.nodeatlas.discovery.spi.SourceSetting> settings() {
    return java.util.List.of(
        io.nodeatlas.discovery.spi.SourceSetting.bool(NAME, "includeVirtual", "--include-virtual-nics",
            "NODEATLAS_INCLUDE_VIRTUAL_NICS", false, "Also report virtual interfaces (lo, bridges, veth, VLANs)."),
        io.nodeatlas.discovery.spi.SourceSetting.bool(NAME, "madDevices", "--rdma-mad-devices",
            "NODEATLAS_RDMA_MAD_DEVICES", false, "Give containers the RDMA MAD devices (umadN, issmN) too."));
  }

  @Override
  public Availability availability(HostContext host) {
    HostFs fs = host.fs();
    if (fs.isDirectory(fs.sys("class/net")) || fs.isDirectory(fs.sys("class/infiniband"))) {
      return Availability.ok();
    }
    return Availability.unavailable("neither " + fs.sys("class/net") + " nor " + fs.sys("class/infiniband") + " exists");
  }

  @Override
  public DiscoveryResult discover(HostContext host) throws DiscoveryException {
    boolean includeVirtual;
    boolean madDevices;
    try {
      includeVirtual = host.options().flag(INCLUDE_VIRTUAL, false);
      madDevices = host.options().flag(MAD_DEVICES, false);
    } catch (IllegalArgumentException e) {
      throw new DiscoveryException(e.getMessage(), e);
    }
    DiscoveryResult.Builder result = new DiscoveryResult.Builder(NAME);
    NicRdmaInventory inventory = NicRdmaScanner.scan(host.fs(), includeVirtual, result::warn);
    NicRdmaPublisher.publish(inventory, madDevices, result::warn).forEach(result::device);
    return result.build();
  }
}
