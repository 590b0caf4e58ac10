package io.nodeatlas.discovery.pci;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import com.code_intelligence.jazzer.junit.FuzzTest;
import java.nio.file.Path;
import org.junit.jupiter.api.Test;

class PciAddressTest {

  @Test
  void everyFormWeMeetParsesToOneCanonicalText() {
    assertThat(PciAddress.parse("0000:17:00.0")).hasToString("0000:17:00.0");
    assertThat(PciAddress.parse("00000000:3B:00.0")).hasToString("0000:3b:00.0"); // NVML
    assertThat(PciAddress.parse("3b:00.1")).hasToString("0000:3b:00.1");
    assertThat(PciAddress.parse("10000:01:00.0")).hasToString("10000:01:00.0"); // VMD domain
  }

  @Test
  void theStandardBusIdIsPublishedOnlyForFourDigitDomains() {
    assertThat(PciAddress.parse("00000000:3B:00.0").standardBusId()).contains("0000:3b:00.0");
    assertThat(PciAddress.parse("10000:01:00.0").standardBusId()).isEmpty();
  }

  @Test
  void malformedAddressesAreRejectedNamingTheForm() {
    for (String bad : new String[] {"", "0000:17:00", "0000:17:20.0", "0000:17:00.8", "0000:1g:00.0",
        "000000000:17:00.0", "0000:17:00.0:pcie001", "0000:017:00.0", "0000:17:00.0 x", "٠٠٠٠:17:00.0"}) {
      assertThat(PciAddress.tryParse(bad)).as(bad).isEmpty();
    }
    assertThatThrownBy(() -> PciAddress.parse("nope")).hasMessageStartingWith("not a PCI address (domain:bus:device.function");
  }

  @Test
  void sysfsNamesAreExactSoPortServiceChildrenNeverMatch() {
    assertThat(PciAddress.isSysfsName("0000:17:00.0")).isTrue();
    assertThat(PciAddress.isSysfsName("0000:17:00.0:pcie001")).isFalse();
    assertThat(PciAddress.isSysfsName("0000:3B:00.0")).isFalse();
    assertThat(PciAddress.nearest(Path.of("devices/pci0000:15/0000:15:01.0/0000:16:00.0/virtio3/net/eth0")))
        .map(PciAddress::toString).contains("0000:16:00.0");
  }

  @Test
  void addressesSortNumerically() {
    assertThat(PciAddress.parse("0000:09:00.0")).isLessThan(PciAddress.parse("0000:0a:00.0"));
    assertThat(PciAddress.parse("0000:3b:00.1").function0()).isEqualTo(PciAddress.parse("0000:3b:00.0"));
  }

  @Test
  void sysfsIdFilesParseAsTheKernelPrintsThem() {
    assertThat(PciIds.hexId("0x15b3", 4)).isEqualTo("15b3");
    assertThat(PciIds.hexId("0x20000", 6)).isEqualTo("020000");
    assertThat(PciIds.linkSpeed("32.0 GT/s PCIe")).contains("32.0 GT/s");
    assertThat(PciIds.linkSpeed("8 GT/s")).contains("8.0 GT/s");
    assertThat(PciIds.linkSpeed("Unknown")).isEmpty();
    assertThat(PciIds.linkWidth("16")).contains(16);
    assertThat(PciIds.linkWidth("0")).isEmpty();
    assertThat(PciIds.numaNode("-1")).isEmpty();
    assertThat(PciIds.numaNode("1")).contains(1);
    assertThatThrownBy(() -> PciIds.numaNode("4096")).hasMessageContaining("above 1023");
    assertThatThrownBy(() -> PciIds.hexId("0xzz", 4)).hasMessageContaining("not a 4-digit hex id");
  }

  @FuzzTest(maxDuration = "10s")
  void parsingNeverThrowsAndRoundTrips(String text) {
    if (text == null) {
      return;
    }
    PciAddress.tryParse(text).ifPresent(a -> {
      assertThat(PciAddress.parse(a.toString())).isEqualTo(a);
      assertThat(PciAddress.isSysfsName(a.toString())).isEqualTo(a.device() <= 0x1f);
    });
    try {
      PciIds.linkSpeed(text);
      PciIds.linkWidth(text);
      PciIds.numaNode(text);
      PciIds.hexId(text, 4);
    } catch (IllegalArgumentException expected) {
      // the documented rejection
    }
  }
}
