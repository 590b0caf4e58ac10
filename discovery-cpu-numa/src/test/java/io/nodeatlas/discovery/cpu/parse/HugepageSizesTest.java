package io.nodeatlas.discovery.cpu.parse;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import com.code_intelligence.jazzer.junit.FuzzTest;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.CsvSource;

class HugepageSizesTest {

  /** Directory names of sys/kernel/mm/hugepages in snapshots 128arm-2pa2n8cluster4co (arm64), 20s390-2g6s4c and 2i386-2t-hugepagesizecount. */
  @ParameterizedTest
  @CsvSource({
      "hugepages-64kB, 65536, 64Ki, 64ki",
      "hugepages-2048kB, 2097152, 2Mi, 2mi",
      "hugepages-32768kB, 33554432, 32Mi, 32mi",
      "hugepages-1048576kB, 1073741824, 1Gi, 1gi",
      "hugepages-1024kB, 1048576, 1Mi, 1mi",
      "hugepages-16777216kB, 17179869184, 16Gi, 16gi"})
  void realDirectoryNames(String dir, long bytes, String quantity, String label) {
    assertThat(HugepageSizes.parseDirName(dir)).isEqualTo(bytes);
    assertThat(HugepageSizes.quantity(bytes)).isEqualTo(quantity);
    assertThat(HugepageSizes.labelFragment(bytes)).isEqualTo(label);
  }

  @ParameterizedTest
  @CsvSource({"hugepages-", "hugepages-kB", "hugepages-2048", "hugepages-2MB", "hugepages-0kB", "hugepages--1kB",
      "hugepages-99999999999999999kB", "demote"})
  void rejectsOtherNames(String dir) {
    assertThatThrownBy(() -> HugepageSizes.parseDirName(dir)).isInstanceOf(IllegalArgumentException.class);
  }

  @FuzzTest
  void parsedSizesAreWholeKibibytes(String name) {
    try {
      long bytes = HugepageSizes.parseDirName(name);
      assertThat(bytes).isPositive();
      assertThat(bytes % 1024).isZero();
      assertThat(HugepageSizes.quantity(bytes)).isNotEmpty();
    } catch (IllegalArgumentException expected) {
      // documented rejection
    }
  }
}
