package io.nodeatlas.discovery.cpu.parse;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import com.code_intelligence.jazzer.junit.FuzzTest;
import io.nodeatlas.discovery.topology.CpuSet;
import org.junit.jupiter.api.Test;

class ReservedCpusTest {

  @Test
  void theKubeletsSyntax() {
    assertThat(ReservedCpus.parse("0-1,64-65")).isEqualTo(CpuSet.range(0, 1).union(CpuSet.range(64, 65)));
    assertThat(ReservedCpus.parse("3")).isEqualTo(CpuSet.of(3));
    assertThat(ReservedCpus.parse(" 0 , 2-3 ")).isEqualTo(CpuSet.of(0, 2, 3));
    assertThat(ReservedCpus.parse("")).isEqualTo(CpuSet.EMPTY);
    assertThat(ReservedCpus.parse("  ")).isEqualTo(CpuSet.EMPTY);
  }

  @Test
  void anythingElseIsRefusedWithTheValueQuoted() {
    for (String bad : new String[] {"0-", "-1", "a", "1-0", "0,,1", "0 1", "0;1", ",", "1,", "0x1", "99999999"}) {
      assertThatThrownBy(() -> ReservedCpus.parse(bad)).as(bad).isInstanceOf(IllegalArgumentException.class)
          .hasMessageStartingWith("not a CPU list (like 0-1,64-65): \"");
    }
    assertThatThrownBy(() -> ReservedCpus.parse("1".repeat(ReservedCpus.MAX_LENGTH + 1)))
        .isInstanceOf(IllegalArgumentException.class).hasMessageContaining("longer than");
  }

  /** Only IllegalArgumentException, and what parses prints back to the same set. */
  @FuzzTest
  void onlyIllegalArgumentAndRoundTrips(String text) {
    if (text == null) {
      return; // an absent setting never reaches the parser
    }
    CpuSet set;
    try {
      set = ReservedCpus.parse(text);
    } catch (IllegalArgumentException expected) {
      return;
    }
    assertThat(ReservedCpus.parse(set.toString())).isEqualTo(set);
  }
}
