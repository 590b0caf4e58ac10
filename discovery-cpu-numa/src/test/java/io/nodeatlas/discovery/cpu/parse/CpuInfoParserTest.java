package io.nodeatlas.discovery.cpu.parse;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import com.code_intelligence.jazzer.junit.FuzzTest;
import io.nodeatlas.discovery.parse.CpuListParser;
import java.util.Map;
import org.junit.jupiter.api.Test;

class CpuInfoParserTest {

  @Test
  void x86BlocksArePerCpu() {
    CpuInfo info = CpuInfoParser.parse("""
        processor\t: 0
        vendor_id\t: GenuineIntel
        model name\t:                   Intel(R) Xeon(TM) CPU 2.60GHz
        flags\t\t: fpu lm avx2

        processor\t: 1
        vendor_id\t: GenuineIntel
        model name\t: Other
        """);
    assertThat(info.processors()).containsOnlyKeys(0, 1);
    assertThat(info.processors().get(0)).containsEntry("model name", "Intel(R) Xeon(TM) CPU 2.60GHz")
        .containsEntry("flags", "fpu lm avx2");
    assertThat(info.fieldsOf(1)).containsEntry("model name", "Other");
    assertThat(info.shared()).isEmpty();
  }

  @Test
  void oldArmKernelsSayTheModelOnceAndTheImplementerAfterTheCpus() {
    // Verbatim shape of snapshot 2arm-2c (ARMv7, kernel before 3.8).
    CpuInfo info = CpuInfoParser.parse("""
        Processor\t: ARMv7 Processor rev 1 (v7l)
        processor\t: 0
        BogoMIPS\t: 1595.80

        processor\t: 1
        BogoMIPS\t: 1595.80

        Features\t: swp half thumb fastmult vfp edsp neon vfpv3
        CPU implementer\t: 0x41
        CPU architecture: 7
        CPU part\t: 0xc09
        """);
    for (int cpu : new int[] {0, 1}) {
      assertThat(info.fieldsOf(cpu)).containsEntry("Processor", "ARMv7 Processor rev 1 (v7l)")
          .containsEntry("CPU implementer", "0x41").containsEntry("CPU part", "0xc09");
    }
  }

  @Test
  void s390HeaderDescribesEveryCpu() {
    CpuInfo info = CpuInfoParser.parse("""
        vendor_id       : IBM/S390
        # processors    : 20
        features\t: esan3 zarch stfle msa
        processor 0: version = 00,  identification = 279F25,  machine = 2817
        """);
    assertThat(info.processors()).isEmpty();
    assertThat(info.fieldsOf(7)).containsEntry("vendor_id", "IBM/S390");
  }

  @Test
  void badLinesCostOnlyThemselves() {
    CpuInfo info = CpuInfoParser.parse("processor : 3\nno colon here\nmodel name : a\u0007b\n: empty key\n"
        + "vendor_id : GenuineIntel\nprocessor : 4\n\nprocessor : 99999999999\nvendor_id : X\n");
    assertThat(info.processors()).containsOnlyKeys(3);
    assertThat(info.processors().get(3)).containsOnlyKeys("processor", "vendor_id");
    assertThat(info.shared()).as("a block with an impossible CPU number is dropped, not shared").isEmpty();
    assertThatThrownBy(() -> CpuInfoParser.parse(null)).isInstanceOf(IllegalArgumentException.class);
  }

  /** Any text: no exception, CPU numbers within CPU ids, no key or value with a control character. */
  @FuzzTest
  void neverThrowsAndKeepsOnlyCleanFields(String text) {
    if (text == null) {
      return; // null is refused up front (FactReader never passes it)
    }
    CpuInfo info = CpuInfoParser.parse(text);
    assertThat(info.processors().keySet()).allSatisfy(cpu -> assertThat(cpu).isBetween(0, CpuListParser.MAX_ID));
    info.processors().values().forEach(CpuInfoParserTest::clean);
    clean(info.shared());
  }

  private static void clean(Map<String, String> fields) {
    fields.forEach((k, v) -> {
      assertThat(k).isNotEmpty().hasSizeLessThanOrEqualTo(CpuInfoParser.MAX_KEY).doesNotContain("\n", "\0");
      assertThat(v).hasSizeLessThanOrEqualTo(CpuInfoParser.MAX_VALUE).doesNotContain("\n", "\0", "\r");
    });
  }
}
