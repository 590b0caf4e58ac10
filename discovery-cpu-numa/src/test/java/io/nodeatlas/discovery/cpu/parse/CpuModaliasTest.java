package io.nodeatlas.discovery.cpu.parse;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import com.code_intelligence.jazzer.junit.FuzzTest;
import java.util.Optional;
import org.junit.jupiter.api.Test;

class CpuModaliasTest {

  @Test
  void x86TellsFamilyAndModelButNotTheWordSize() {
    // Verbatim head of snapshot 2pa-pcidomain32bits' cpu/modalias.
    CpuModalias m = CpuModalias.parse("cpu:type:x86,ven0000fam0006mod005E:feature:,0000,0001,0002,0003\n");
    assertThat(m).isEqualTo(new CpuModalias("x86", 6, 0x5e));
    assertThat(m.machine()).isEmpty();
  }

  @Test
  void oldX86Form() {
    // Verbatim head of snapshot 32intel64-2p8co2t+8ve's cpu/modalias (kernels before 3.11).
    assertThat(CpuModalias.parse("x86cpu:vendor:0000:family:0006:model:0055:feature:,0000,0001"))
        .isEqualTo(new CpuModalias("x86", 6, 0x55));
  }

  @Test
  void arm64NamesTheMachine() {
    CpuModalias m = CpuModalias.parse("cpu:type:aarch64:feature:,0000,0001,0002");
    assertThat(m.machine()).isEqualTo(Optional.of("aarch64"));
    assertThat(m.family()).isEqualTo(-1);
  }

  @Test
  void refusesOtherText() {
    assertThatThrownBy(() -> CpuModalias.parse("pci:v00008086d00001234")).isInstanceOf(IllegalArgumentException.class);
    assertThatThrownBy(() -> CpuModalias.parse("cpu:type:X86:feature:")).isInstanceOf(IllegalArgumentException.class);
    assertThatThrownBy(() -> CpuModalias.parse(null)).isInstanceOf(IllegalArgumentException.class);
  }

  @FuzzTest
  void onlyIllegalArgumentOnGarbage(String text) {
    try {
      CpuModalias m = CpuModalias.parse(text);
      assertThat(m.type()).matches("[a-z0-9_]{1,32}");
      assertThat(m.family()).isBetween(-1, 0xffff);
      assertThat(m.model()).isBetween(-1, 0xffff);
    } catch (IllegalArgumentException expected) {
      // documented rejection
    }
  }
}
