package io.nodeatlas.discovery.cpu.parse;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import com.code_intelligence.jazzer.junit.FuzzTest;
import java.util.List;
import java.util.Map;
import org.junit.jupiter.api.Test;

class DistanceParserTest {

  /** node/online of snapshot nvidiagpunumanodes (POWER9 with GPU memory nodes): {@code 0,8,250-255}. */
  private static final List<Integer> POWER9_ONLINE = List.of(0, 8, 250, 251, 252, 253, 254, 255);

  @Test
  void sparseNodeIdsMapThroughTheOnlineOrder() {
    // Verbatim node8/distance of snapshot nvidiagpunumanodes.
    Map<Integer, Integer> d = DistanceParser.parse("40 10 80 80 80 80 80 80\n", POWER9_ONLINE);
    assertThat(d).containsEntry(0, 40).containsEntry(8, 10).containsEntry(250, 80).containsEntry(255, 80).hasSize(8);
    assertThat(d).doesNotContainKeys(1, 2, 7);
  }

  @Test
  void gpuMemoryNodeRow() {
    // Verbatim node252/distance of snapshot nvidiagpunumanodes.
    Map<Integer, Integer> d = DistanceParser.parse("80 80 80 80 10 80 80 80\n", POWER9_ONLINE);
    assertThat(d.get(252)).isEqualTo(10);
    assertThat(d.get(0)).isEqualTo(80);
  }

  @Test
  void oldKernelNulTerminator() {
    assertThat(DistanceParser.parse("10 21\n\0", List.of(0, 1))).containsEntry(1, 21);
  }

  @Test
  void columnCountMustMatchOnlineNodes() {
    assertThatThrownBy(() -> DistanceParser.parse("10 21 21", List.of(0, 1)))
        .isInstanceOf(IllegalArgumentException.class).hasMessageContaining("3 values but 2 nodes");
    assertThatThrownBy(() -> DistanceParser.parse("", List.of(0)))
        .isInstanceOf(IllegalArgumentException.class).hasMessageContaining("0 values");
  }

  @Test
  void rejectsNonNumbers() {
    assertThatThrownBy(() -> DistanceParser.parse("10 x", List.of(0, 1)))
        .isInstanceOf(IllegalArgumentException.class).hasMessageContaining("not a distance");
    assertThatThrownBy(() -> DistanceParser.parse("10 -1", List.of(0, 1)))
        .isInstanceOf(IllegalArgumentException.class);
    assertThatThrownBy(() -> DistanceParser.parse("10 99999", List.of(0, 1)))
        .isInstanceOf(IllegalArgumentException.class).hasMessageContaining("out of range");
  }

  @FuzzTest
  void onlyIllegalArgumentOnGarbage(String row) {
    try {
      Map<Integer, Integer> d = DistanceParser.parse(row, POWER9_ONLINE);
      assertThat(d.keySet()).containsExactlyElementsOf(POWER9_ONLINE);
    } catch (IllegalArgumentException expected) {
      // documented rejection
    }
  }
}
