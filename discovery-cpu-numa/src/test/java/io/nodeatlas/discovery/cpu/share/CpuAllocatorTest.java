package io.nodeatlas.discovery.cpu.share;

import static org.assertj.core.api.Assertions.assertThat;

import io.nodeatlas.discovery.cpu.testing.TwoNodeMachine;
import io.nodeatlas.discovery.parse.CpuListParser;
import io.nodeatlas.discovery.topology.CpuSet;
import java.util.ArrayList;
import java.util.List;
import java.util.Random;
import org.junit.jupiter.api.Test;

class CpuAllocatorTest {

  final CpuAllocator allocator = new CpuAllocator();
  final CpuLayout node0 = CpuLayout.of(CpuListParser.parse("0-7,16-23"), TwoNodeMachine.topology());

  CpuSet choose(CpuLayout layout, CpuSet taken, int n) {
    CpuAllocator.Choice c = allocator.choose(layout, taken, n);
    assertThat(c.chosen()).as(c.refusal()).isTrue();
    assertThat(c.cpus().size()).isEqualTo(n);
    return c.cpus();
  }

  @Test
  void wholeCoresWithTheirSiblingsFromOneCache() {
    assertThat(choose(node0, CpuSet.EMPTY, 2)).hasToString("0,16");
    assertThat(choose(node0, CpuSet.EMPTY, 4)).hasToString("0-1,16-17");
    // Eight CPUs are exactly one L3 group: it stays within the first cache.
    assertThat(choose(node0, CpuSet.EMPTY, 8)).hasToString("0-3,16-19");
  }

  @Test
  void anOddRemainderFillsAHoleBeforeBreakingAWholeCore() {
    CpuSet first = choose(node0, CpuSet.EMPTY, 1);
    assertThat(first).hasToString("0");
    // 3 CPUs: one whole core, and the free sibling 16 of the broken core 0, not half of another core.
    assertThat(choose(node0, first, 3)).hasToString("1,16-17");
  }

  @Test
  void bestFitKeepsTheLargerFreeBlockWhole() {
    // Cache group 1 (cores 0-3) has one core left, group 2 (cores 4-7) is free: a 2-CPU share goes into the
    // tighter group, so four whole cores stay free together.
    CpuSet taken = CpuListParser.parse("0-2,16-18");
    assertThat(choose(node0, taken, 2)).hasToString("3,19");
  }

  @Test
  void neverAReservedOrTakenCpuAndAClearRefusal() {
    CpuLayout withoutReserved = CpuLayout.of(CpuListParser.parse("1-7,17-23"), TwoNodeMachine.topology());
    CpuSet all = choose(withoutReserved, CpuSet.EMPTY, 14);
    assertThat(all.contains(0)).isFalse();
    assertThat(all.contains(16)).isFalse();
    CpuAllocator.Choice refused = allocator.choose(withoutReserved, CpuListParser.parse("1-7"), 8);
    assertThat(refused.chosen()).isFalse();
    assertThat(refused.refusal()).isEqualTo("7 of the 8 requested CPUs are free (14 allocatable, 7 held by other shares)");
    assertThat(allocator.choose(withoutReserved, CpuSet.EMPTY, 0).refusal()).contains("at least 1 CPU");
  }

  @Test
  void randomSequencesNeverOverlapAndAlwaysPackWhenThereIsRoom() {
    Random random = new Random(11);
    for (int round = 0; round < 200; round++) {
      List<CpuSet> held = new ArrayList<>();
      CpuSet taken = CpuSet.EMPTY;
      for (int step = 0; step < 30; step++) {
        if (!held.isEmpty() && random.nextInt(3) == 0) {
          CpuSet gone = held.remove(random.nextInt(held.size()));
          taken = taken.minus(gone);
          continue;
        }
        int n = 1 + random.nextInt(6);
        CpuAllocator.Choice c = allocator.choose(node0, taken, n);
        int free = node0.allocatable().minus(taken).size();
        assertThat(c.chosen()).isEqualTo(free >= n);
        if (c.chosen()) {
          assertThat(c.cpus().intersect(taken).isEmpty()).isTrue();
          assertThat(node0.allocatable().containsAll(c.cpus())).isTrue();
          assertThat(allocator.choose(node0, taken, n)).as("deterministic").isEqualTo(c);
          held.add(c.cpus());
          taken = taken.union(c.cpus());
        }
      }
    }
  }
}
