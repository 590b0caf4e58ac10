package io.nodeatlas.discovery.cpu.parse;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import com.code_intelligence.jazzer.junit.FuzzTest;
import java.util.List;
import org.junit.jupiter.api.Test;

class HugetlbfsMountsParserTest {

  private static final long MI2 = 2L << 20;

  /** Lines 2, 10 and 17 of proc/mounts in snapshot 20em64t-hybrid-1p6c2t+2ca4co1t, verbatim. */
  private static final String HYBRID_MOUNTS = """
      proc /proc proc rw,nosuid,nodev,noexec,relatime 0 0
      cgroup2 /sys/fs/cgroup cgroup2 rw,nosuid,nodev,noexec,relatime,nsdelegate,memory_recursiveprot 0 0
      hugetlbfs /dev/hugepages hugetlbfs rw,relatime,pagesize=2M 0 0
      """;

  @Test
  void pagesizeOptionGivesTheSize() {
    HugetlbfsMountsParser.Result r = HugetlbfsMountsParser.parse(HYBRID_MOUNTS, null);
    assertThat(r.problems()).isEmpty();
    assertThat(r.mounts()).containsExactly(
        new HugetlbfsMount("/dev/hugepages", MI2, List.of("rw", "relatime", "pagesize=2M")));
  }

  @Test
  void withoutPagesizeTheDefaultSizeApplies() {
    // proc/mounts of snapshot 2pa-pcidomain32bits: an older kernel prints no pagesize= at all.
    HugetlbfsMountsParser.Result r = HugetlbfsMountsParser.parse("hugetlbfs /dev/hugepages hugetlbfs rw,relatime 0 0\n", MI2);
    assertThat(r.mounts()).extracting(HugetlbfsMount::pageSizeBytes).containsExactly(MI2);
    HugetlbfsMountsParser.Result unknown = HugetlbfsMountsParser.parse("hugetlbfs /dev/hugepages hugetlbfs rw,relatime 0 0\n", null);
    assertThat(unknown.mounts()).extracting(HugetlbfsMount::pageSizeBytes).containsExactly((Long) null);
  }

  @Test
  void gigabytePagesPrintAs1024M() {
    HugetlbfsMountsParser.Result r = HugetlbfsMountsParser.parse(
        "hugetlbfs /dev/hugepages-1G hugetlbfs rw,nosuid,nodev,relatime,pagesize=1024M 0 0\n"
            + "hugetlbfs /dev/hugepages hugetlbfs rw,nosuid,nodev,relatime,pagesize=2M 0 0\n", MI2);
    assertThat(r.mounts()).extracting(HugetlbfsMount::mountPoint).containsExactly("/dev/hugepages", "/dev/hugepages-1G");
    assertThat(r.mounts().get(1).pageSizeBytes()).isEqualTo(1L << 30);
  }

  @Test
  void escapedSpacesInMountPoints() {
    HugetlbfsMountsParser.Result r = HugetlbfsMountsParser.parse("none /mnt/huge\\040pages hugetlbfs rw,pagesize=1G 0 0\n", null);
    assertThat(r.mounts()).extracting(HugetlbfsMount::mountPoint).containsExactly("/mnt/huge pages");
  }

  @Test
  void badLinesAreProblemsAndOthersSurvive() {
    HugetlbfsMountsParser.Result r = HugetlbfsMountsParser.parse(
        "none /a hugetlbfs rw,pagesize=lots 0 0\n"
            + "none /b\\04 hugetlbfs rw 0 0\n"
            + "none relative hugetlbfs rw 0 0\n"
            + "hugetlbfs /dev/hugepages hugetlbfs rw,pagesize=2M 0 0\n", null);
    assertThat(r.mounts()).extracting(HugetlbfsMount::mountPoint).containsExactly("/dev/hugepages");
    assertThat(r.problems()).hasSize(3);
    assertThat(r.problems().get(0)).contains("line 1").contains("pagesize=lots");
  }

  @Test
  void oneLineAtATime() {
    // Line 17 of proc/mounts in snapshot 20em64t-hybrid-1p6c2t+2ca4co1t, and line 2 of the same file.
    assertThat(HugetlbfsMountsParser.parseLine("hugetlbfs /dev/hugepages hugetlbfs rw,relatime,pagesize=2M 0 0", null))
        .isEqualTo(new HugetlbfsMount("/dev/hugepages", MI2, List.of("rw", "relatime", "pagesize=2M")));
    assertThat(HugetlbfsMountsParser.parseLine("proc /proc proc rw,nosuid,nodev,noexec,relatime 0 0", MI2)).isNull();
    assertThat(HugetlbfsMountsParser.parseLine("", MI2)).isNull();
    assertThatThrownBy(() -> HugetlbfsMountsParser.parseLine("none /a hugetlbfs rw,pagesize=lots 0 0", MI2))
        .isInstanceOf(IllegalArgumentException.class)
        .hasMessage("hugetlbfs \"/a\" (2 chars): bad \"pagesize=lots\" (13 chars)");
    assertThatThrownBy(() -> HugetlbfsMountsParser.parseLine("none /a hugetlbfs rw,pagesize=0 0 0", MI2))
        .hasMessageContaining("page size is zero");
  }

  /** The line parser the reader applies to each line of /proc/mounts: a mount, null, or an IllegalArgumentException. */
  @FuzzTest
  void lineParserRejectsOnlyWithIllegalArgument(String line) {
    try {
      HugetlbfsMount m = HugetlbfsMountsParser.parseLine(line, null);
      if (m != null) {
        assertThat(m.mountPoint()).startsWith("/");
        if (m.pageSizeBytes() != null) {
          assertThat(m.pageSizeBytes()).isPositive();
        }
      }
    } catch (IllegalArgumentException expected) {
      // documented rejection
    }
  }

  @FuzzTest
  void neverThrowsOnAnyText(String text) {
    if (text == null) {
      return; // the reader never passes null; null is rejected like elsewhere
    }
    HugetlbfsMountsParser.Result r = HugetlbfsMountsParser.parse(text, MI2);
    for (HugetlbfsMount m : r.mounts()) {
      assertThat(m.mountPoint()).startsWith("/");
      assertThat(m.pageSizeBytes()).isPositive();
    }
  }
}
