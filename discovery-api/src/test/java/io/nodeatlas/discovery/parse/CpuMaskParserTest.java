package io.nodeatlas.discovery.parse;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import com.code_intelligence.jazzer.junit.FuzzTest;
import io.nodeatlas.discovery.topology.CpuSet;
import com.code_intelligence.jazzer.mutation.annotation.NotNull;
import org.junit.jupiter.api.Test;

class CpuMaskParserTest {

  @Test
  void synthNodeMasksMatchTheirLists() {
    // the synthetic HGX-like node (Documentation/ABI/stable/sysfs-devices-node): node0 cpumap and cpulist describe the same CPUs.
    assertThat(CpuMaskParser.parse("00000000,ffffffff,00000000,ffffffff\n").toString()).isEqualTo("0-31,64-95");
    assertThat(CpuMaskParser.parse("ffffffff,00000000,ffffffff,00000000\n").toString()).isEqualTo("32-63,96-127");
  }

  @Test
  void shortFirstGroup() {
    // Real capture with 80 possible CPUs: the first group has 4 digits.
    assertThat(CpuMaskParser.parse("0000,019c6700,00019c67").toString())
        .isEqualTo(CpuListParser.parse("0-2,5-6,10-12,15-16,40-42,45-46,50-52,55-56").toString());
  }

  @Test
  void aMaskOf256CpusInThirtyTwoGroupsMatchesItsList() {
    // shared_cpu_map of a 256-CPU machine: the highest group first, the lowest last.
    String mask = "80000001," + "00000000,".repeat(29) + "0000ff00,0000000f\n";
    assertThat(CpuMaskParser.parse(mask).toString()).isEqualTo("0-3,40-47,992,1023");
  }

  @Test
  void oddGroupsTakeTheGeneralPathWithTheSameAnswers() {
    // A sign, case and short groups: what the one-pass path leaves to the general one, answered as before.
    assertThat(CpuMaskParser.parse("-1").toString()).isEqualTo("0-31");
    assertThat(CpuMaskParser.parse("Ff,0000000A").toString()).isEqualTo("1,3,32-39");
    assertThat(CpuMaskParser.parse("1,f").toString()).isEqualTo("0-3,32");
    assertThatThrownBy(() -> CpuMaskParser.parse("1,,f")).hasMessageContaining("1-8 hex digits");
    assertThatThrownBy(() -> CpuMaskParser.parse(",f")).hasMessageContaining("1-8 hex digits");
  }

  @Test
  void rejectsGarbage() {
    assertThatThrownBy(() -> CpuMaskParser.parse("zz,00")).isInstanceOf(IllegalArgumentException.class)
        .hasMessageContaining("not hex");
    assertThatThrownBy(() -> CpuMaskParser.parse("")).hasMessageContaining("empty");
    assertThatThrownBy(() -> CpuMaskParser.parse("123456789")).hasMessageContaining("1-8 hex digits");
  }

  @Test
  void theBytesOfAPlainMaskParseAsItsText() {
    String mask = "80000001," + "00000000,".repeat(29) + "0000ff00,0000000f";
    for (String text : new String[] {mask, "0000,019c6700,00019c67", "f", "00000000", "ffffffff,ffffffff"}) {
      assertThat(plain(" " + text + " ", 1, text.length() + 1)).isEqualTo(CpuMaskParser.parse(text));
    }
  }

  @Test
  void theBytesOfAnythingElseAreLeftToTheTextParser() {
    // null: parse() decides (and answers or refuses with its own message), as for these texts before.
    for (String text : new String[] {"-1", "1,,f", ",f", "f,", "123456789", "zz,00", "0000 0001", "\u0661", ""}) {
      assertThat(plain(text, 0, text.getBytes(java.nio.charset.StandardCharsets.UTF_8).length)).as(text).isNull();
    }
    assertThat(CpuMaskParser.parse("Ff,0000000A")).isEqualTo(plain("Ff,0000000A", 0, 11));
  }

  @FuzzTest
  void theBytesParseAsTheTextOrNotAtAll(@NotNull String text) {
    byte[] bytes = text.getBytes(java.nio.charset.StandardCharsets.UTF_8);
    CpuSet fast = CpuMaskParser.parsePlain(bytes, 0, bytes.length);
    if (fast != null) {
      assertThat(fast).isEqualTo(CpuMaskParser.parse(text));
    }
  }

  private static CpuSet plain(String text, int from, int to) {
    return CpuMaskParser.parsePlain(text.getBytes(java.nio.charset.StandardCharsets.UTF_8), from, to);
  }

  @FuzzTest
  void onlyIllegalArgument(@NotNull String text) {
    try {
      CpuMaskParser.parse(text);
    } catch (IllegalArgumentException expected) {
      // documented
    }
  }
}
