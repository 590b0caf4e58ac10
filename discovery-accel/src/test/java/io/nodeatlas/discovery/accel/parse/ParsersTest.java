package io.nodeatlas.discovery.accel.parse;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import io.nodeatlas.discovery.accel.parse.PciIdsDatabase.DeviceKey;
import java.util.List;
import java.util.Map;
import java.util.Set;
import org.junit.jupiter.api.Test;

/** The parsers on what the kernel and pci.ids print, and on what they never print. */
class ParsersTest {

  @Test
  void devNumberAsTheKernelPrintsIt() {
    assertThat(DevNumber.parse("226:128")).isEqualTo(new DevNumber(226, 128));
    assertThat(DevNumber.parse("511:0")).isEqualTo(new DevNumber(511, 0));
    assertThat(DevNumber.parse("4095:1048575")).isEqualTo(new DevNumber(DevNumber.MAX_MAJOR, DevNumber.MAX_MINOR));
    assertThat(DevNumber.parse("226:128").toString()).isEqualTo("226:128");
  }

  @Test
  void devNumberRejectsEverythingElse() {
    for (String bad : List.of("", ":", "226", "226:", ":128", "226-128", "226:128:0", " 226:128", "+226:128", "226:-1",
        "0x e2:80", "4096:0", "0:1048576", "99999:1", "1:99999999", "٢٢٦:١٢٨")) {
      assertThatThrownBy(() -> DevNumber.parse(bad)).as(bad).isInstanceOf(IllegalArgumentException.class);
    }
  }

  @Test
  void byteCounts() {
    assertThat(MemorySizes.bytes("68702699520")).isEqualTo(68_702_699_520L);
    assertThat(MemorySizes.bytes("9223372036854775807")).isEqualTo(Long.MAX_VALUE);
    assertThat(MemorySizes.bytes("0")).as("no VRAM is no memory fact").isNull();
    for (String bad : List.of("", "-1", "1.5", "64G", "0x10", "9223372036854775808", "18446744073709551615",
        "123456789012345678901", " 1")) {
      assertThatThrownBy(() -> MemorySizes.bytes(bad)).as(bad).isInstanceOf(IllegalArgumentException.class);
    }
  }

  @Test
  void tileSums() {
    assertThat(MemorySizes.sum(List.of(68_719_476_736L, 68_719_476_736L))).isEqualTo(137_438_953_472L);
    assertThat(MemorySizes.sum(List.of())).isZero();
    assertThatThrownBy(() -> MemorySizes.sum(List.of(Long.MAX_VALUE, 1L))).isInstanceOf(IllegalArgumentException.class);
    assertThatThrownBy(() -> MemorySizes.sum(List.of(-1L))).isInstanceOf(IllegalArgumentException.class);
  }

  @Test
  void printableTextOnly() {
    assertThat(HostText.printable("AMD Instinct MI210")).isEqualTo("AMD Instinct MI210");
    assertThat(HostText.printable("  102-D67302-00 ")).isEqualTo("102-D67302-00");
    assertThat(HostText.printable("   ")).isNull();
    assertThat(HostText.printable("Radeon™ Pro")).isEqualTo("Radeon™ Pro");
    for (String bad : List.of("a\u001bb", "a\nb", "a\u200bb", "a\u202eb", "a\ufffdb", "a\u0000b")) {
      assertThatThrownBy(() -> HostText.printable(bad)).as(bad).isInstanceOf(IllegalArgumentException.class);
    }
  }

  @Test
  void uniqueIdIsSixteenLowerCaseHexDigits() {
    assertThat(HostText.uniqueId("0de1a7c4d3f5a2b1")).isEqualTo("0de1a7c4d3f5a2b1");
    assertThat(HostText.uniqueId("DE1A7C4D3F5A2B1")).isEqualTo("0de1a7c4d3f5a2b1");
    for (String bad : List.of("", "0x1", "0de1a7c4d3f5a2b10", "g", "0de1-a7c4")) {
      assertThatThrownBy(() -> HostText.uniqueId(bad)).as(bad).isInstanceOf(IllegalArgumentException.class);
    }
  }

  @Test
  void drmNodeNames() {
    assertThat(DrmNodeName.of("card0")).contains(new DrmNodeName(DrmNodeName.Kind.CARD, 0));
    assertThat(DrmNodeName.of("renderD128")).contains(new DrmNodeName(DrmNodeName.Kind.RENDER, 128));
    assertThat(DrmNodeName.of("renderD128").orElseThrow().devPath()).isEqualTo("/dev/dri/renderD128");
    assertThat(DrmNodeName.of("card12").orElseThrow().name()).isEqualTo("card12");
    for (String other : List.of("card0-DP-1", "card0-HDMI-A-1", "controlD64", "version", "ttm", "card", "renderD",
        "card01", "cardX", "renderD12a", "card-1", "Card0", "card99999999")) {
      assertThat(DrmNodeName.of(other)).as(other).isEmpty();
    }
    assertThat(List.of(DrmNodeName.of("renderD128").orElseThrow(), DrmNodeName.of("card10").orElseThrow(),
        DrmNodeName.of("card2").orElseThrow()).stream().sorted().map(DrmNodeName::name))
        .containsExactly("card2", "card10", "renderD128");
  }

  @Test
  void vendorShortNames() {
    assertThat(Vendors.shortName("1002")).isEqualTo("amd");
    assertThat(Vendors.shortName("8086")).isEqualTo("intel");
    assertThat(Vendors.shortName("10de")).isEqualTo("nvidia");
    assertThat(Vendors.shortName("1ed5")).isEqualTo("1ed5");
  }

  private static final String PCI_IDS = String.join("\n",
      "# comment 1002  not a vendor",
      "1002  Advanced Micro Devices, Inc. [AMD/ATI]",
      "\t740f  Aldebaran/MI200 [Instinct MI210]",
      "\t\t1002 0c34  Instinct MI210",
      "\t744C  Navi 31 [Radeon RX 7900 XT/7900 XTX]",
      "1022  Advanced Micro Devices, Inc. [AMD]",
      "\t740f  not this one: another vendor",
      "8086  Intel Corporation",
      "\t56a0  DG2 [Arc A770]",
      "C 03  Display controller",
      "\t00  VGA compatible controller",
      "8086  after the class section",
      "\t9999  never read",
      "");

  @Test
  void pciIdsFindsOnlyWhatIsAskedFor() {
    DeviceKey mi210 = new DeviceKey("1002", "740f");
    DeviceKey navi31 = new DeviceKey("1002", "744c");
    DeviceKey arc = new DeviceKey("8086", "56a0");
    PciIdsDatabase.Names names = PciIdsDatabase.lookup(PCI_IDS, Set.of(mi210, navi31, arc, new DeviceKey("8086", "9999")));
    assertThat(names.deviceNames()).containsExactlyInAnyOrderEntriesOf(Map.of(
        mi210, "Aldebaran/MI200 [Instinct MI210]",
        navi31, "Navi 31 [Radeon RX 7900 XT/7900 XTX]", // upper-case hex in the file
        arc, "DG2 [Arc A770]"));
    assertThat(names.malformedLines()).isZero();
  }

  @Test
  void pciIdsWithCrLfAndUpperCaseVendor() {
    String text = "1002  AMD\r\n\t73BF  Navi 21 [Radeon RX 6800/6800 XT / 6900 XT]\r\n";
    assertThat(PciIdsDatabase.lookup(text, Set.of(new DeviceKey("1002", "73bf"))).deviceNames())
        .containsExactly(Map.entry(new DeviceKey("1002", "73bf"), "Navi 21 [Radeon RX 6800/6800 XT / 6900 XT]"));
  }

  @Test
  void pciIdsCountsMalformedLinesAndKeepsTheRest() {
    String text = "1002  AMD\n\t740f Aldebaran\n\t744c  Navi 31\nbogus line\n\t\t1002 0c34 one space\n";
    PciIdsDatabase.Names names = PciIdsDatabase.lookup(text, Set.of(new DeviceKey("1002", "740f"), new DeviceKey("1002", "744c")));
    assertThat(names.deviceNames()).containsExactly(Map.entry(new DeviceKey("1002", "744c"), "Navi 31"));
    assertThat(names.malformedLines()).isEqualTo(3);
    assertThat(names.firstMalformedLine()).isEqualTo(2);
  }

  @Test
  void pciIdsNameWithControlCharactersIsMalformed() {
    PciIdsDatabase.Names names = PciIdsDatabase.lookup("1002  AMD\n\t740f  Evil\u001b[2J\n", Set.of(new DeviceKey("1002", "740f")));
    assertThat(names.deviceNames()).isEmpty();
    assertThat(names.malformedLines()).isEqualTo(1);
  }

  @Test
  void pciIdsStopsAsSoonAsEverythingIsFound() {
    // The line after the match is garbage, but it is never looked at.
    String text = "1002  AMD\n\t740f  Aldebaran\n\u0000\u0001garbage";
    PciIdsDatabase.Names names = PciIdsDatabase.lookup(text, Set.of(new DeviceKey("1002", "740f")));
    assertThat(names.deviceNames()).hasSize(1);
    assertThat(names.malformedLines()).isZero();
  }

  @Test
  void textWithoutAVendorLineIsNotAPciIdsDatabase() {
    Set<DeviceKey> wanted = Set.of(new DeviceKey("1002", "740f"));
    for (String bad : List.of("", "# only a comment\n", "\u007fELF\u0002\u0001", "C 03  Display controller\n", "<html>")) {
      assertThatThrownBy(() -> PciIdsDatabase.lookup(bad, wanted)).as(bad).isInstanceOf(IllegalArgumentException.class)
          .hasMessageStartingWith("not a pci.ids database");
    }
    assertThat(PciIdsDatabase.lookup("", Set.of()).deviceNames()).as("nothing asked, nothing read").isEmpty();
  }

  @Test
  void overlongLinesAreMalformed() {
    String text = "1002  AMD\n\t740f  " + "x".repeat(PciIdsDatabase.MAX_LINE_CHARS) + "\n";
    PciIdsDatabase.Names names = PciIdsDatabase.lookup(text, Set.of(new DeviceKey("1002", "740f")));
    assertThat(names.deviceNames()).isEmpty();
    assertThat(names.malformedLines()).isEqualTo(1);
  }

  @Test
  void deviceKeysAreNormalisedIds() {
    assertThatThrownBy(() -> new DeviceKey("1002", "740F")).isInstanceOf(IllegalArgumentException.class);
    assertThatThrownBy(() -> new DeviceKey("102", "740f")).isInstanceOf(IllegalArgumentException.class);
  }
}
