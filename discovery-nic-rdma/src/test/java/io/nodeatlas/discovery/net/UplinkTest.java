package io.nodeatlas.discovery.net;

import static io.nodeatlas.discovery.net.NicRdmaAttributes.UPLINK;
import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import io.nodeatlas.discovery.host.HostContext;
import io.nodeatlas.discovery.host.HostFs;
import io.nodeatlas.discovery.host.SourceOptions;
import io.nodeatlas.discovery.model.AttributeValue;
import io.nodeatlas.discovery.model.ContainerEdits;
import io.nodeatlas.discovery.model.Device;
import io.nodeatlas.discovery.net.fixture.SyntheticNode;
import io.nodeatlas.discovery.engine.AttributeCatalogue;
import io.nodeatlas.discovery.spi.DiscoveryResult;
import io.nodeatlas.discovery.report.DiscoveryWarning;
import io.nodeatlas.discovery.testing.FixtureTree;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.function.Function;
import java.util.stream.Collectors;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/** Case 10 of issue 12: the host's uplinks are marked and never moved into a pod unless allowed. */
class UplinkTest {

  static final String ROUTE_HEADER = "Iface\tDestination\tGateway \tFlags\tRefCnt\tUse\tMetric\tMask\t\tMTU\tWindow\tIRTT\n";
  /** 10.0.0.0/24 on eno1 and the default route through 10.0.0.1, as a little-endian kernel prints them. */
  static final String ROUTE_ENO1 = ROUTE_HEADER
      + "eno1\t00000000\t0100000A\t0003\t0\t0\t100\t00000000\t0\t0\t0\n"
      + "eno1\t0000000A\t00000000\t0001\t0\t0\t100\t00FFFFFF\t0\t0\t0\n"
      + "enp26s0np0\t00000A0A\t00000000\t0001\t0\t0\t100\t0000FFFF\t0\t0\t0\n";
  /** The kernel's own unreachable ::/0 on lo, which is no uplink. */
  static final String V6_LO_REJECT = "00000000000000000000000000000000 00 00000000000000000000000000000000 00 "
      + "00000000000000000000000000000000 ffffffff 00000001 00000000 00200200       lo\n";

  @TempDir Path root;

  private DiscoveryResult discover(SourceOptions options) throws Exception {
    return new NicRdmaSource().discover(new HostContext(HostFs.of(root), options, java.time.Clock.systemUTC()));
  }

  private static Map<String, Device> byName(DiscoveryResult r) {
    return r.devices().stream().collect(Collectors.toMap(Device::name, Function.identity()));
  }

  private static Object uplink(Device d) {
    return d.attribute(UPLINK).map(AttributeValue::asObject).orElse(null);
  }

  private static List<String> netDevices(Device d) {
    return d.containerEdits().netDevices().stream().map(ContainerEdits.NetDevice::hostInterfaceName).toList();
  }

  @Test
  void theIpv4DefaultRouteMakesItsNicAnUplinkWithoutANetDevicesEdit() throws Exception {
    SyntheticNode.write(root);
    FixtureTree.at(root).file("proc/net/route", ROUTE_ENO1).file("proc/net/ipv6_route", V6_LO_REJECT);
    DiscoveryResult r = discover(SourceOptions.NONE);
    assertThat(r.warnings()).isEmpty();
    Map<String, Device> d = byName(r);
    assertThat(uplink(d.get("nic-0000-03-00-0"))).isEqualTo(true);
    assertThat(netDevices(d.get("nic-0000-03-00-0"))).isEmpty();
    // Every other device says false (booleans are always present) and keeps its edit.
    assertThat(uplink(d.get("vf-0000-1a-00-1"))).isEqualTo(false);
    assertThat(netDevices(d.get("vf-0000-1a-00-1"))).containsExactly("enp26s0v0");
    assertThat(r.devices()).filteredOn(x -> !x.name().equals("nic-0000-03-00-0"))
        .allSatisfy(x -> assertThat(uplink(x)).as(x.name()).isEqualTo(false));
    assertThat(AttributeCatalogue.undocumented(new NicRdmaSource().catalogue(), r.devices())).isEmpty();
    assertThat(r.devices()).allSatisfy(x -> assertThat(x.attributes().size() + x.capacity().size()).isLessThanOrEqualTo(32));
  }

  @Test
  void allowUplinkNicsKeepsTheMarkAndGivesTheEditBack() throws Exception {
    SyntheticNode.write(root);
    FixtureTree.at(root).file("proc/net/route", ROUTE_ENO1);
    Device nic = byName(discover(SourceOptions.NONE.with(NicRdmaSource.ALLOW_UPLINKS, "true"))).get("nic-0000-03-00-0");
    assertThat(uplink(nic)).isEqualTo(true);
    assertThat(netDevices(nic)).containsExactly("eno1");
  }

  @Test
  void anIpv6DefaultRouteOnAPfMarksItsRdmaDevice() throws Exception {
    SyntheticNode.write(root);
    FixtureTree.at(root).file("proc/net/ipv6_route", V6_LO_REJECT
        + "00000000000000000000000000000000 00 00000000000000000000000000000000 00 "
        + "fe800000000000000000000000000001 00000400 00000001 00000000 00000003 enp156s0np0\n");
    Map<String, Device> d = byName(discover(SourceOptions.NONE));
    assertThat(uplink(d.get("rdma-mlx5-2"))).isEqualTo(true);
    assertThat(uplink(d.get("rdma-mlx5-0"))).isEqualTo(false);
    // The rule applies to the interface carrying the route: the PF's VFs stay allocatable.
    assertThat(uplink(d.get("vf-0000-9c-00-1"))).isEqualTo(false);
    assertThat(uplink(d.get("nic-0000-03-00-0"))).isEqualTo(false);
  }

  @Test
  void aRouteOnABridgeOverABondOverVfsMarksTheVfsBelow() throws Exception {
    SyntheticNode.write(root);
    // br0 (default route) > bond0 > enp26s0v0 and enp26s0v1: the kernel's lower_* adjacency links.
    FixtureTree.at(root)
        .file("proc/net/route", ROUTE_HEADER + "br0\t00000000\t0100000A\t0003\t0\t0\t0\t00000000\t0\t0\t0\n")
        .dir("sys/devices/virtual/net/br0/bridge")
        .symlink("sys/class/net/br0", "../../devices/virtual/net/br0")
        .symlink("sys/devices/virtual/net/br0/lower_bond0", "../bond0")
        .dir("sys/devices/virtual/net/bond0")
        .symlink("sys/class/net/bond0", "../../devices/virtual/net/bond0")
        .symlink("sys/devices/virtual/net/bond0/lower_enp26s0v0", "../../../" + SyntheticNode.NIC0.replace("0000:1a:00.0", "0000:1a:00.1") + "/net/enp26s0v0")
        .symlink("sys/devices/virtual/net/bond0/lower_enp26s0v1", "../../../" + SyntheticNode.NIC0.replace("0000:1a:00.0", "0000:1a:00.2") + "/net/enp26s0v1");
    DiscoveryResult r = discover(SourceOptions.NONE.with(NicRdmaSource.INCLUDE_VIRTUAL, "true"));
    Map<String, Device> d = byName(r);
    assertThat(uplink(d.get("vf-0000-1a-00-1"))).isEqualTo(true);
    assertThat(netDevices(d.get("vf-0000-1a-00-1"))).isEmpty();
    assertThat(uplink(d.get("vf-0000-1a-00-2"))).isEqualTo(true);
    assertThat(uplink(d.get("vf-0000-1a-00-3"))).isEqualTo(false);
    assertThat(netDevices(d.get("vf-0000-1a-00-3"))).containsExactly("enp26s0v2");
    // The virtual interfaces themselves are marked too.
    assertThat(d.values()).filteredOn(x -> x.attribute(NicRdmaAttributes.IF_NAME).map(AttributeValue::asObject)
        .filter(n -> n.equals("br0") || n.equals("bond0")).isPresent())
        .hasSize(2).allSatisfy(x -> assertThat(uplink(x)).isEqualTo(true));
  }

  @Test
  void theNodeIpMarksTheInterfaceThatCarriesIt() throws Exception {
    SyntheticNode.write(root);
    FixtureTree.at(root).file("proc/net/route", ROUTE_HEADER
        + "enp26s0np0\t00000A0A\t00000000\t0001\t0\t0\t100\t0000FFFF\t0\t0\t0\n"
        + "enp26s0np0\t00010A0A\t00000000\t0001\t0\t0\t100\t00FFFFFF\t0\t0\t0\n")
        .file("proc/net/if_inet6", "fd000000000000000000000000000005 05 40 00 80 enp156s0np0\n");
    Map<String, Device> d = byName(discover(SourceOptions.NONE.with(NicRdmaSource.NODE_IP, "10.10.1.7, fd00::5")));
    assertThat(uplink(d.get("rdma-mlx5-0"))).isEqualTo(true);
    assertThat(uplink(d.get("rdma-mlx5-2"))).isEqualTo(true);
    assertThat(uplink(d.get("nic-0000-03-00-0"))).isEqualTo(false);
  }

  @Test
  void aNodeIpSettingThatIsNoAddressIsRefused() {
    assertThatThrownBy(() -> NicRdmaSource.NODE_IP.validate("node1.example.com"))
        .isInstanceOf(IllegalArgumentException.class).hasMessageContaining("--node-ip");
    assertThat(NicRdmaSource.NODE_IP.validate("10.0.0.5,fd00::1")).isEqualTo("10.0.0.5,fd00::1");
  }

  @Test
  void routesThatCannotBeReadMakeEveryInterfaceAnUplinkWithOneWarning() throws Exception {
    SyntheticNode.write(root);
    Files.createDirectories(root.resolve("proc/net/route")); // a directory: readable as nothing
    DiscoveryResult r = discover(SourceOptions.NONE);
    assertThat(r.warnings()).extracting(DiscoveryWarning::message).singleElement().asString()
        .contains("every network interface is treated as an uplink");
    assertThat(r.devices()).allSatisfy(x -> {
      assertThat(uplink(x)).isEqualTo(true);
      assertThat(x.containerEdits().netDevices()).isEmpty();
    });
  }

  @Test
  void malformedRouteLinesCostThatLineOnly() throws Exception {
    SyntheticNode.write(root);
    FixtureTree.at(root).file("proc/net/route", ROUTE_ENO1 + "eth\u0007x\tzz\n");
    DiscoveryResult r = discover(SourceOptions.NONE);
    assertThat(r.warnings()).hasSize(1);
    assertThat(uplink(byName(r).get("nic-0000-03-00-0"))).isEqualTo(true);
  }

  /** This machine has a real default route: its interface must come out as an uplink. */
  @Test
  void onThisMachineTheDefaultRouteInterfaceIsAnUplink() throws Exception {
    Path route = Path.of("/proc/net/route");
    Optional<String> iface = Files.isReadable(route) ? Files.readAllLines(route).stream().skip(1)
        .map(l -> l.trim().split("\\s+")).filter(f -> f.length >= 8 && f[1].equals("00000000") && f[7].equals("00000000"))
        .map(f -> f[0]).findFirst() : Optional.empty();
    org.junit.jupiter.api.Assumptions.assumeTrue(iface.isPresent(), "this machine has no IPv4 default route");
    DiscoveryResult r = new NicRdmaSource().discover(new HostContext(HostFs.of(Path.of("/")),
        SourceOptions.NONE.with(NicRdmaSource.INCLUDE_VIRTUAL, "true"), java.time.Clock.systemUTC()));
    List<Device> carrying = r.devices().stream().filter(d -> d.attribute(NicRdmaAttributes.IF_NAME)
        .map(AttributeValue::asObject).filter(iface.get()::equals).isPresent()).toList();
    assertThat(carrying).as("the device of %s", iface.get()).isNotEmpty().allSatisfy(d -> {
      assertThat(uplink(d)).isEqualTo(true);
      assertThat(netDevices(d)).doesNotContain(iface.get());
    });
  }
}
