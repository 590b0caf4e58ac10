package io.nodeatlas.agent.run;

import static org.assertj.core.api.Assertions.assertThat;

import org.junit.jupiter.api.Test;

/** Issue 36, RSS after a burst: one full collection once the burst is over, none while idle or busy. */
class HeapGiveBackTest {

  private static final long MIB = 1 << 20;

  /** A heap whose size and use the test sets; a collection shrinks it to {@code live} and 25 % free. */
  private static final class FakeHeap {
    long committed = 20 * MIB;
    long used = 12 * MIB;
    long live = 12 * MIB;
    int collections;

    HeapGiveBack giveBack() {
      return new HeapGiveBack(() -> committed, () -> committed - used, () -> {
        collections++;
        used = live;
        committed = live * 4 / 3;
      });
    }
  }

  @Test
  void collectsOnceWhenABurstThatGrewTheHeapIsOver() {
    FakeHeap heap = new FakeHeap();
    HeapGiveBack g = heap.giveBack();
    g.run(); // the start's heap
    // The burst: the heap grows and its use moves by megabytes between ticks.
    long[] use = {18, 26, 21, 30, 24};
    heap.committed = 34 * MIB;
    for (long u : use) {
      heap.used = u * MIB;
      g.run();
    }
    assertThat(heap.collections).as("none while the burst runs").isZero();
    heap.used = 24 * MIB + 100 * 1024; // over: a few KiB allocated since
    g.run();
    assertThat(heap.collections).as("one once it is over").isEqualTo(1);
    assertThat(heap.committed).isEqualTo(16 * MIB);
    for (int i = 0; i < 10; i++) {
      heap.used += 50 * 1024;
      g.run();
    }
    assertThat(heap.collections).as("none again while idle").isEqualTo(1);
  }

  @Test
  void leavesAnIdleHeapAndASmallGrowthAlone() {
    FakeHeap heap = new FakeHeap();
    HeapGiveBack g = heap.giveBack();
    g.run();
    for (int i = 0; i < 30; i++) {
      heap.used += 20 * 1024;
      g.run();
    }
    heap.committed += 2 * MIB; // a young collection's promotion grew the heap a little
    heap.used = 13 * MIB;
    g.run();
    g.run();
    assertThat(heap.collections).isZero();
  }
}
