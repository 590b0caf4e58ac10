package io.nodeatlas.discovery.parse;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import com.code_intelligence.jazzer.junit.FuzzTest;
import com.code_intelligence.jazzer.mutation.annotation.NotNull;
import io.nodeatlas.discovery.topology.CpuSet;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.CsvSource;

class CpuListParserTest {

  /** Lists captured from real machines (Documentation/ABI/stable/sysfs-devices-node) round-trip unchanged. */
  @ParameterizedTest
  @CsvSource(delimiter = '|', value = {
      "0-7,16-23",
      "0,4,8,12,16,20,24,28,32,36",
      "0-2,5-6,10-12,15-16,40-42,45-46,50-52,55-56",
      "0,8,250-255",
      "0-127"})
  void realListsRoundTrip(String list) {
    assertThat(CpuListParser.parse(list + "\n").toString()).isEqualTo(list);
  }

  @Test
  void countsMembers() {
    CpuSet set = CpuListParser.parse("0-31,64-95\n");
    assertThat(set.size()).isEqualTo(64);
    assertThat(set.contains(64)).isTrue();
    assertThat(set.contains(32)).isFalse();
  }

  @Test
  void emptyLineIsTheEmptySet() {
    assertThat(CpuListParser.parse("\n").isEmpty()).isTrue();
    assertThat(CpuListParser.parse("").toString()).isEmpty();
  }

  @Test
  void oldKernelsNulTerminator() {
    assertThat(CpuListParser.parse("0-1\n\0").toString()).isEqualTo("0-1");
  }

  @Test
  void adjacentItemsAreMerged() {
    assertThat(CpuListParser.parse("0,1,2,3,5").toString()).isEqualTo("0-3,5");
  }

  @ParameterizedTest
  @CsvSource(delimiter = '|', value = {
      "abc|expected a number",
      "3-1|descending range",
      "0-|range without an end",
      "0,|trailing comma",
      "1;2|unexpected ';'",
      "99999999999|larger than",
      "-1|expected a number"})
  void rejectsGarbageWithAReason(String input, String reason) {
    assertThatThrownBy(() -> CpuListParser.parse(input))
        .isInstanceOf(IllegalArgumentException.class)
        .hasMessageContaining(reason)
        .hasMessageContaining(input);
  }

  @FuzzTest
  void neverThrowsAnythingButIllegalArgument(@NotNull String input) {
    try {
      CpuSet set = CpuListParser.parse(input);
      // Whatever parses must print in canonical form and parse back to the same set.
      assertThat(CpuListParser.parse(set.toString())).isEqualTo(set);
    } catch (IllegalArgumentException expected) {
      // documented rejection
    }
  }
}
