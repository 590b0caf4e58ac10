package io.nodeatlas.discovery.cpu.parse;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import com.code_intelligence.jazzer.junit.FuzzTest;
import io.nodeatlas.discovery.topology.CpuSet;
import io.nodeatlas.discovery.topology.Topology.CacheInfo;
import io.nodeatlas.discovery.topology.Topology.CacheType;
import org.junit.jupiter.api.Test;

class CacheParserTest {

  @Test
  void hybridEfficiencyClusterL2() {
    // cpu12/cache/index2/{level,type,size,shared_cpu_list,shared_cpu_map} of snapshot
    // 20em64t-hybrid-1p6c2t+2ca4co1t, verbatim: four E-cores share a 2 MiB L2.
    CacheInfo c = CacheParser.parse("2\n", "Unified\n", "2048K\n", "12-15\n", "0f000\n", 12);
    assertThat(c).isEqualTo(new CacheInfo(2, CacheType.UNIFIED, 2L << 20, CpuSet.range(12, 15)));
  }

  @Test
  void oldKernelWithOnlyTheMask() {
    // cpu0/cache/index2 of snapshot 16em64t-4s2c2t: no shared_cpu_list file.
    CacheInfo c = CacheParser.parse("3\n", "Unified\n", "4096K\n", null, "00000000,00001111\n", 0);
    assertThat(c.cpus()).isEqualTo(CpuSet.of(0, 4, 8, 12));
    assertThat(c.sizeBytes()).isEqualTo(4L << 20);
  }

  @Test
  void theMapWinsWhereTheListDisagrees() {
    // Both files print one cpumask; a capture where they differ is read as hwloc reads it, by the map.
    CacheInfo c = CacheParser.parse("2\n", "Unified\n", "1024K\n", "0-3\n", "3\n", 0);
    assertThat(c.cpus()).isEqualTo(CpuSet.range(0, 1));
  }

  @Test
  void anAllZeroMapNamesNoSharer() {
    // Old kernels print 0 for some levels; the reader makes such a cache its CPU's core's.
    assertThat(CacheParser.parse("1", "Data", "32K", "\n", "00000000,00000000\n", 5).cpus()).isEqualTo(CpuSet.EMPTY);
  }

  @Test
  void typesAsTheKernelPrintsThem() {
    // cpu0/cache/index*/type of snapshot 8ia64-2n2s2c: Data, Instruction, ..., Unified.
    assertThat(CacheParser.parseType("Data\n")).isEqualTo(CacheType.DATA);
    assertThat(CacheParser.parseType("Instruction\n")).isEqualTo(CacheType.INSTRUCTION);
    assertThat(CacheParser.parseType("Unified\n")).isEqualTo(CacheType.UNIFIED);
    assertThatThrownBy(() -> CacheParser.parseType("Trace")).hasMessageContaining("not a cache type");
  }

  @Test
  void withoutSharingFilesTheCacheIsPrivate() {
    assertThat(CacheParser.parse("1", "Data", "48K", null, null, 7).cpus()).isEqualTo(CpuSet.of(7));
  }

  @Test
  void missingSizeIsZero() {
    assertThat(CacheParser.parse("1", "Data", null, "0", null, 0).sizeBytes()).isZero();
  }

  @Test
  void rejectsBadLevels() {
    assertThatThrownBy(() -> CacheParser.parseLevel("0")).hasMessageContaining("not a cache level");
    assertThatThrownBy(() -> CacheParser.parseLevel("12")).hasMessageContaining("not a cache level");
    assertThatThrownBy(() -> CacheParser.parseLevel("")).isInstanceOf(IllegalArgumentException.class);
  }

  @FuzzTest
  void onlyIllegalArgumentOnGarbage(String level, String type, String size, String list) {
    try {
      CacheInfo c = CacheParser.parse(level, type, size, list, null, 0);
      assertThat(c.level()).isBetween(1, 9);
      assertThat(c.sizeBytes()).isNotNegative();
    } catch (IllegalArgumentException expected) {
      // documented rejection
    }
  }
}
