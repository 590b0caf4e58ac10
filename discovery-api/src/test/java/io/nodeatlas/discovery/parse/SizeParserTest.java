package io.nodeatlas.discovery.parse;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import com.code_intelligence.jazzer.junit.FuzzTest;
import com.code_intelligence.jazzer.mutation.annotation.NotNull;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.CsvSource;

class SizeParserTest {

  /** Spellings the kernel really prints: cache sizes, hugepage dirs, meminfo, hugetlbfs options. */
  @ParameterizedTest
  @CsvSource({
      "48K, 49152",
      "1280K, 1310720",
      "24576K, 25165824",
      "2048kB, 2097152",
      "1048576kB, 1073741824",
      "527958016 kB, 540629008384",
      "2M, 2097152",
      "1024M, 1073741824",
      "1G, 1073741824",
      "4096, 4096"})
  void kernelSpellings(String text, long bytes) {
    assertThat(SizeParser.parseBytes(text)).isEqualTo(bytes);
  }

  @ParameterizedTest
  @CsvSource({"'', no leading number", "K, no leading number", "12Q, unknown unit", "99999999999999999999K, out of range",
      "9999999999999999G, out of range"})
  void rejectsWithReason(String text, String reason) {
    assertThatThrownBy(() -> SizeParser.parseBytes(text)).isInstanceOf(IllegalArgumentException.class)
        .hasMessageContaining(reason);
  }

  @ParameterizedTest
  @CsvSource({"'0\n', 0", "'4096\n\0', 4096", "' 17 ', 17"})
  void countsIgnoreWhitespaceAndNul(String text, long value) {
    assertThat(SizeParser.parseCount(text)).isEqualTo(value);
  }

  @ParameterizedTest
  @CsvSource({"'-1\n', -1", "'3', 3"})
  void signedNumaNode(String text, long value) {
    assertThat(SizeParser.parseSigned(text)).isEqualTo(value);
  }

  @ParameterizedTest
  @CsvSource({"abc", "1.5", "'-'", "0x10", "''"})
  void countsRejectNonNumbers(String text) {
    assertThatThrownBy(() -> SizeParser.parseCount(text)).isInstanceOf(IllegalArgumentException.class)
        .hasMessageContaining("not a number");
  }

  @FuzzTest
  void sizesNeverThrowOtherThanIllegalArgument(@NotNull String text) {
    try {
      assertThat(SizeParser.parseBytes(text)).isNotNegative();
    } catch (IllegalArgumentException expected) {
      // documented
    }
    try {
      SizeParser.parseSigned(text);
    } catch (IllegalArgumentException expected) {
      // documented
    }
  }
}
