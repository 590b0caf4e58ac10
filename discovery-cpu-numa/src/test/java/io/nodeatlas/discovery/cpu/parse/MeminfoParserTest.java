package io.nodeatlas.discovery.cpu.parse;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import com.code_intelligence.jazzer.junit.FuzzTest;
import org.junit.jupiter.api.Test;

class MeminfoParserTest {

  /** Verbatim lines of proc/meminfo from hwloc snapshot 20em64t-hybrid-1p6c2t+2ca4co1t (kernel 6.1). */
  private static final String HYBRID_PROC_MEMINFO = """
      MemTotal:       32489496 kB
      MemFree:        28118332 kB
      MemAvailable:   28934524 kB
      AnonHugePages:    268288 kB
      ShmemHugePages:   860160 kB
      ShmemPmdMapped:        0 kB
      FileHugePages:         0 kB
      FilePmdMapped:         0 kB
      HugePages_Total:       0
      HugePages_Free:        0
      HugePages_Rsvd:        0
      HugePages_Surp:        0
      Hugepagesize:       2048 kB
      Hugetlb:               0 kB
      """;

  /** Head of sys/devices/system/node/node16/meminfo from snapshot 128ia64-17n4s2c (note the leading empty line). */
  private static final String IA64_NODE16_MEMINFO = """

      Node 16 MemTotal:      1020176 kB
      Node 16 MemFree:        771808 kB
      Node 16 MemUsed:        248368 kB
      Node 16 Active:             16 kB
      """;

  @Test
  void procMeminfoFromARealHost() {
    Meminfo m = MeminfoParser.parse(HYBRID_PROC_MEMINFO);
    assertThat(m.memTotalBytes()).isEqualTo(32489496L * 1024);
    assertThat(m.memFreeBytes()).isEqualTo(28118332L * 1024);
    assertThat(m.hugePagesTotal()).isZero();
    assertThat(m.hugePagesReserved()).isZero();
    assertThat(m.hugepageSizeBytes()).isEqualTo(2L << 20);
    assertThat(m.hugetlbBytes()).isZero();
  }

  @Test
  void nodeMeminfoDropsTheNodePrefix() {
    Meminfo m = MeminfoParser.parseNode(IA64_NODE16_MEMINFO, 16);
    assertThat(m.memTotalBytes()).isEqualTo(1020176L * 1024);
    assertThat(m.memFreeBytes()).isEqualTo(771808L * 1024);
    assertThat(m.hugepageSizeBytes()).isNull();
  }

  @Test
  void anotherNodesLinesAreNotTaken() {
    assertThat(MeminfoParser.parseNode(IA64_NODE16_MEMINFO, 1).memTotalBytes()).isNull();
  }

  @Test
  void synthesisedNodeWithHugepageCounters() {
    Meminfo m = MeminfoParser.parseNode("Node 0 MemTotal: 527958016 kB\nNode 0 HugePages_Total:  4096\n"
        + "Node 0 HugePages_Free:  4000\nNode 0 HugePages_Surp:      0\n", 0);
    assertThat(m.memTotalBytes()).isEqualTo(527958016L * 1024);
    assertThat(m.hugePagesTotal()).isEqualTo(4096);
    assertThat(m.hugePagesFree()).isEqualTo(4000);
    assertThat(m.hugePagesSurplus()).isZero();
  }

  @Test
  void emptyTextHasNoFacts() {
    assertThat(MeminfoParser.parse("")).isEqualTo(Meminfo.EMPTY);
  }

  @Test
  void badValueNamesItsKey() {
    assertThatThrownBy(() -> MeminfoParser.parse("MemTotal:  lots kB\n"))
        .isInstanceOf(IllegalArgumentException.class).hasMessageStartingWith("MemTotal: ");
    assertThatThrownBy(() -> MeminfoParser.parse("HugePages_Total: -1\n"))
        .isInstanceOf(IllegalArgumentException.class).hasMessageStartingWith("HugePages_Total: ");
  }

  @Test
  void hugeNumbersAreRejectedNotWrapped() {
    assertThatThrownBy(() -> MeminfoParser.parse("MemTotal: 99999999999999999 kB\n"))
        .isInstanceOf(IllegalArgumentException.class);
  }

  @Test
  void valuesOneByOne() {
    assertThat(MeminfoParser.kibibytes("527958016 kB")).isEqualTo(527958016L << 10);
    assertThat(MeminfoParser.kibibytes("  1020176 kB\n")).isEqualTo(1020176L << 10);
    // meminfo prints every size in kB; a bare number there is kB too.
    assertThat(MeminfoParser.kibibytes("2048")).isEqualTo(2L << 20);
    assertThat(MeminfoParser.pages("   8192")).isEqualTo(8192);
    assertThat(MeminfoParser.nodePrefix(16)).isEqualTo("Node 16 ");
    assertThatThrownBy(() -> MeminfoParser.kibibytes("lots kB")).hasMessage("not a number: \"lots kB\" (7 chars)");
    assertThatThrownBy(() -> MeminfoParser.kibibytes("12 MB")).hasMessageStartingWith("not a number");
    assertThatThrownBy(() -> MeminfoParser.kibibytes("")).hasMessageStartingWith("not a number");
    assertThatThrownBy(() -> MeminfoParser.pages("8192 kB")).hasMessageStartingWith("not a number");
  }

  @Test
  void assembleAsksEachKeyWithItsParser() {
    Meminfo m = MeminfoParser.assemble((key, parser) -> switch (key) {
      case "MemTotal", "Hugepagesize" -> parser.parse("4 kB");
      case "HugePages_Total" -> parser.parse("3");
      default -> null;
    });
    assertThat(m).isEqualTo(new Meminfo(4096L, null, 3L, null, null, null, 4096L, null));
  }

  /** The value parsers the reader applies key by key: a number, or an IllegalArgumentException. */
  @FuzzTest
  void valueParsersRejectOnlyWithIllegalArgument(String value) {
    try {
      assertThat(MeminfoParser.kibibytes(value)).isNotNegative().satisfies(b -> assertThat(b % 1024).isZero());
    } catch (IllegalArgumentException expected) {
      // documented rejection
    }
    try {
      assertThat(MeminfoParser.pages(value)).isNotNegative();
    } catch (IllegalArgumentException expected) {
      // documented rejection
    }
  }

  @FuzzTest
  void onlyIllegalArgumentOnGarbage(String text) {
    try {
      Meminfo m = MeminfoParser.parse(text);
      if (m.memTotalBytes() != null) {
        assertThat(m.memTotalBytes()).isNotNegative();
      }
    } catch (IllegalArgumentException expected) {
      // documented rejection
    }
  }
}
