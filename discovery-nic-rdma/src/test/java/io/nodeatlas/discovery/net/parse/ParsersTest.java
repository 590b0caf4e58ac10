package io.nodeatlas.discovery.net.parse;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import io.nodeatlas.discovery.net.model.GidTable;
import io.nodeatlas.discovery.net.model.GidType;
import io.nodeatlas.discovery.net.model.LinkLayer;
import io.nodeatlas.discovery.net.model.NetnsMode;
import io.nodeatlas.discovery.net.model.NodeType;
import io.nodeatlas.discovery.net.model.Rate;
import io.nodeatlas.discovery.net.model.Transport;
import io.nodeatlas.discovery.pci.PciAddress;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.TreeMap;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.CsvSource;
import org.junit.jupiter.params.provider.ValueSource;

/** Values as the kernel prints them (Documentation/ABI/testing/sysfs-class-net and sysfs-class-infiniband), and what must be rejected. */
class ParsersTest {

  @ParameterizedTest
  @CsvSource(delimiter = '|', value = {
      "400 Gb/sec (4X NDR)|4000|4|NDR",
      "56 Gb/sec (4X FDR)|560|4|FDR",
      "100 Gb/sec (2X HDR)|1000|2|HDR",
      "2.5 Gb/sec (1X SDR)|25|1|SDR",
      "40 Gb/sec (4X QDR)|400|4|QDR",
      "10 Gb/sec (1X FDR10)|100|1|FDR10",
      "25 Gb/sec (1X EDR)|250|1|EDR"})
  void ratesFromRealKernels(String text, int tenths, int width, String speed) {
    assertThat(RateParser.parse(text)).isEqualTo(new Rate(tenths, width, Optional.of(speed)));
  }

  @Test
  void rateFormsTheKernelMayPrint() {
    assertThat(RateParser.parse("2.5 Gb/sec (1X )")).isEqualTo(new Rate(25, 1, Optional.empty()));
    assertThat(RateParser.parse("25 Gb/sec (1XEDR)")).isEqualTo(new Rate(250, 1, Optional.of("EDR")));
    assertThat(RateParser.parse("106 Gb/sec (2X HDR100)").speed()).contains("HDR100");
    assertThat(RateParser.parse("12.5 Gb/sec (1X QDR)").tenthsGbps()).isEqualTo(125);
    assertThatThrownBy(() -> RateParser.parse("fast")).hasMessage(
        "expected \"<n> Gb/sec (<w>X <speed>)\", got \"fast\" (4 chars)");
  }

  @Test
  void oldKernelSdrRateHasNoSpeedName() {
    Rate r = RateParser.parse("2.5 Gb/sec (1X)");
    assertThat(r.speed()).isEmpty();
    assertThat(r.wholeGbps()).isEqualTo(2);
    assertThat(RateParser.parse("100 Gb/sec (2X HDR)").wholeGbps()).isEqualTo(100);
  }

  @ParameterizedTest
  @ValueSource(strings = {"", "fast", "400 Gb/sec", "400Gb/sec (4X NDR)", "-1 Gb/sec (4X NDR)", "400 Gb/sec (4X ndr)",
      "1234567 Gb/sec (4X NDR)", "400 Gb/sec (1234X NDR)", "400 Gb/sec (4X NDR) ", "400 Gb/sec (4X ABCDEFGHI)",
"400 Gb/sec (X NDR)", "400 Gb/sec (4XNDR", "\u0664\u0660\u0660 Gb/sec (4X NDR)"})
  void malformedRatesAreRejected(String text) {
    assertThatThrownBy(() -> RateParser.parse(text)).isInstanceOf(IllegalArgumentException.class);
  }

  @Test
  void numberedStatesAndNodeTypes() {
    assertThat(NumberedStateParser.parse("4: ACTIVE").name()).isEqualTo("ACTIVE");
    assertThat(NumberedStateParser.parse("4: PortConfigurationTraining").code()).isEqualTo(4);
    assertThat(NumberedStateParser.parse("7: Phy Test").name()).isEqualTo("Phy Test");
    assertThat(NodeTypeParser.parse("1: CA")).isEqualTo(NodeType.CA);
    assertThat(NodeTypeParser.parse("4: RNIC")).isEqualTo(NodeType.RNIC);
    assertThat(NodeTypeParser.parse("7: unspecified")).isEqualTo(NodeType.UNSPECIFIED);
    assertThat(NodeTypeParser.parse("<unknown>")).isEqualTo(NodeType.UNKNOWN);
    assertThat(NodeTypeParser.parse("9: future")).isEqualTo(NodeType.UNKNOWN);
    assertThatThrownBy(() -> NumberedStateParser.parse("ACTIVE")).isInstanceOf(IllegalArgumentException.class);
    assertThatThrownBy(() -> NumberedStateParser.parse("4:")).isInstanceOf(IllegalArgumentException.class);
  }

  @Test
  void transportComesFromLinkLayerAndNodeTypeOnly() {
    assertThat(Transport.of(NodeType.CA, LinkLayerParser.parse("InfiniBand"))).isEqualTo(Transport.INFINIBAND);
    assertThat(Transport.of(NodeType.CA, LinkLayerParser.parse("Ethernet"))).isEqualTo(Transport.ROCE);
    assertThat(Transport.of(NodeType.RNIC, LinkLayer.ETHERNET)).isEqualTo(Transport.IWARP);
    assertThat(Transport.of(NodeType.UNSPECIFIED, LinkLayer.UNKNOWN)).isEqualTo(Transport.OTHER);
    assertThatThrownBy(() -> LinkLayerParser.parse("ethernet")).isInstanceOf(IllegalArgumentException.class);
  }

  @Test
  void guidsGidsAndAddresses() {
    assertThat(GuidParser.parse("0002:C903:00f9:bfa0")).isEqualTo("0002:c903:00f9:bfa0");
    assertThatThrownBy(() -> GuidParser.parse("0002:c903:00f9")).isInstanceOf(IllegalArgumentException.class);
    String gid = GidParser.parse("fe80:0000:0000:0000:0002:c903:00f9:bfa1");
    assertThat(GidParser.interfaceId(gid)).isEqualTo("0002c90300f9bfa1");
    assertThat(MacAddressParser.lastEightBytes(
        MacAddressParser.parse("80:00:00:48:fe:80:00:00:00:00:00:00:00:02:c9:03:00:f9:bf:a1"))).isEqualTo("0002c90300f9bfa1");
    assertThat(GidParser.isZero(GidParser.parse("0000:0000:0000:0000:0000:0000:0000:0000"))).isTrue();
    assertThatThrownBy(() -> GidParser.parse("fe80::1")).isInstanceOf(IllegalArgumentException.class);
    assertThat(MacAddressParser.parse("B8:3F:D2:1A:00:00")).isEqualTo("b8:3f:d2:1a:00:00");
    assertThatThrownBy(() -> MacAddressParser.parse("b8:3f:d2:1a:00:0")).isInstanceOf(IllegalArgumentException.class);
  }

  @Test
  void gidTableKeepsPopulatedEntriesTypesAndNdevsInIndexOrder() {
    TreeMap<Integer, String> gids = new TreeMap<>(Map.of(
        0, "fe80:0000:0000:0000:ba3f:d2ff:fe1a:0000", 1, "fe80:0000:0000:0000:ba3f:d2ff:fe1a:0000",
        2, "0000:0000:0000:0000:0000:ffff:0a0a:0001", 3, "0000:0000:0000:0000:0000:0000:0000:0000",
        4, "garbage"));
    List<String> problems = new ArrayList<>();
    GidTable t = GidTableParser.parse(gids, Map.of(0, "IB/RoCE v1", 1, "RoCE v2", 2, "RoCE v3"),
        Map.of(0, "enp26s0np0", 1, "enp26s0np0", 2, "bond0"), (file, problem) -> problems.add(file + ": " + problem));
    assertThat(t.size()).isEqualTo(5);
    assertThat(t.populated()).hasSize(3);
    assertThat(t.types()).containsExactly(GidType.IB_ROCE_V1, GidType.ROCE_V2);
    assertThat(t.ndevs()).containsExactly("enp26s0np0", "bond0");
    assertThat(t.portGid()).contains("fe80:0000:0000:0000:ba3f:d2ff:fe1a:0000");
    assertThat(problems).containsExactlyInAnyOrder(
        "gids/4: expected 8 groups of 4 hex digits, got \"garbage\" (7 chars)",
        "gid_attrs/types/2: expected \"IB/RoCE v1\" or \"RoCE v2\", got \"RoCE v3\" (7 chars)");
  }

  @Test
  void devNumbers() {
    assertThat(DevNumberParser.parse("231:192").toString()).isEqualTo("231:192");
    assertThat(DevNumberParser.parse("10:58").minor()).isEqualTo(58);
    assertThatThrownBy(() -> DevNumberParser.parse("231")).isInstanceOf(IllegalArgumentException.class)
        .hasMessage("expected \"<major>:<minor>\", got \"231\" (3 chars)");
    assertThatThrownBy(() -> DevNumberParser.parse("4096:0")).isInstanceOf(IllegalArgumentException.class)
        .hasMessage("expected a number between 0 and 4095, got \"4096\" (4 chars)");
  }

  @Test
  void nonAsciiDigitsAreNotHexDigits() {
    // Character.digit accepts fullwidth and other scripts' digits; sysfs prints ASCII only.
    assertThatThrownBy(() -> GidParser.parse("fe80:0000:0000:0000:0002:c903:00f9:bfa\uff11"))
        .isInstanceOf(IllegalArgumentException.class);
    assertThatThrownBy(() -> MacAddressParser.parse("b8:3f:d2:1a:00:0\u0661")).isInstanceOf(IllegalArgumentException.class);
    assertThatThrownBy(() -> Numbers.parseHex("0x3\uff14", 0xffff)).isInstanceOf(IllegalArgumentException.class);
    assertThatThrownBy(() -> GuidParser.parse("0002:c903:00f9:bfa\uff10")).isInstanceOf(IllegalArgumentException.class);
  }

  @Test
  void driverTextTokensAndOperationalStates() {
    assertThat(TextValues.freeText("28.39.1002")).isEqualTo("28.39.1002");
    assertThat(TextValues.freeText("MT4129 ConnectX-7")).isEqualTo("MT4129 ConnectX-7");
    assertThatThrownBy(() -> TextValues.freeText("MT\u001b[31m")).isInstanceOf(IllegalArgumentException.class)
        .hasMessage("expected printable text, got \"MT\\x1b[31m\" (7 chars)");
    assertThat(TextValues.token("pf0vf1")).isEqualTo("pf0vf1");
    assertThatThrownBy(() -> TextValues.token("p 0")).isInstanceOf(IllegalArgumentException.class);
    assertThatThrownBy(() -> TextValues.token("x".repeat(65))).isInstanceOf(IllegalArgumentException.class);
    assertThat(TextValues.operState("lowerlayerdown")).isEqualTo("lowerlayerdown");
    assertThatThrownBy(() -> TextValues.operState("UP")).isInstanceOf(IllegalArgumentException.class);
  }

  @Test
  void theNearestPciFunctionOfADeviceLinkSkipsChildrenAndPortServices() {
    // A netdev's parent may be a virtio device or an auxiliary SF below the function; port-service
    // children (pcie001) are named after the port but are not functions.
    assertThat(PciAddress.nearest(Path.of("devices/pci0000:00/0000:00:04.0/virtio1")).map(Object::toString))
        .contains("0000:00:04.0");
    assertThat(PciAddress.nearest(Path.of("devices/pci0000:17/0000:17:00.0/0000:17:00.0:pcie001")).map(Object::toString))
        .contains("0000:17:00.0");
    assertThat(PciAddress.nearest(Path.of("devices/virtual/net/lo"))).isEmpty();
  }

  @Test
  void numbersAndNetnsMode() {
    assertThat(Numbers.parseDecimal("-1", -1, 10)).isEqualTo(-1);
    assertThat(Numbers.parseHex("0x3a4", 0xffff)).isEqualTo(0x3a4);
    assertThatThrownBy(() -> Numbers.parseDecimal("99999999999999999999", 0, Long.MAX_VALUE))
        .isInstanceOf(IllegalArgumentException.class);
    assertThatThrownBy(() -> Numbers.parseHex("3a4", 0xffff)).isInstanceOf(IllegalArgumentException.class);
    assertThat(NetnsModeParser.parse("Y")).isEqualTo(NetnsMode.SHARED);
    assertThat(NetnsModeParser.parse("N")).isEqualTo(NetnsMode.EXCLUSIVE);
    assertThatThrownBy(() -> NetnsModeParser.parse("shared")).isInstanceOf(IllegalArgumentException.class);
    assertThat(InterfaceNames.isValid("enp26s0np0")).isTrue();
    assertThat(InterfaceNames.isValid("a/b")).isFalse();
    assertThat(InterfaceNames.isValid("0123456789abcdef")).isFalse();
  }
}
