package io.nodeatlas.agent.run;

import static org.assertj.core.api.Assertions.assertThat;

import org.junit.jupiter.api.Test;

/** Issue 36, RSS after a burst: one full collection once the burst is over, none while idle or busy. */
class HeapGiveBackTest {

  private static final long MIB = 1 << 20;

  /** A heap whose size the test sets, and whether a collection ran since the last tick. */
  private static final class FakeHeap {
    long committed = 20 * MIB;
    long live = 12 * MIB;
    boolean collected;
    int fullCollections;

    HeapGiveBack giveBack() {
      return new HeapGiveBack(() -> committed, () -> {
        boolean c = collected;
        collected = false;
        return c;
      }, () -> {
        fullCollections++;
        collected = true;
        committed = live * 4 / 3;
      });
    }
  }

  @Test
  void collectsOnceWhenABurstThatGrewTheHeapIsOver() {
    FakeHeap heap = new FakeHeap();
    HeapGiveBack g = heap.giveBack();
    g.run(); // the start's heap
    heap.committed = 34 * MIB; // the burst grew it, with young collections in every period
    for (int i = 0; i < 5; i++) {
      heap.collected = true;
      g.run();
    }
    assertThat(heap.fullCollections).as("none while the burst runs").isZero();
    g.run(); // one whole period without a collection
    assertThat(heap.fullCollections).as("not after one quiet period").isZero();
    g.run(); // two: over
    assertThat(heap.fullCollections).as("one once it is over").isEqualTo(1);
    assertThat(heap.committed).isEqualTo(16 * MIB);
    for (int i = 0; i < 10; i++) {
      g.run();
    }
    assertThat(heap.fullCollections).as("none again while idle").isEqualTo(1);
  }

  @Test
  void leavesAnIdleHeapAndASmallGrowthAlone() {
    FakeHeap heap = new FakeHeap();
    HeapGiveBack g = heap.giveBack();
    g.run();
    for (int i = 0; i < 30; i++) {
      g.run();
    }
    heap.committed += 2 * MIB; // a young collection's promotion grew the heap a little
    heap.collected = true;
    g.run();
    g.run();
    g.run();
    assertThat(heap.fullCollections).isZero();
  }

  @Test
  void theJvmsCanaryTellsACollection() {
    int[] full = new int[1];
    long[] committed = {Runtime.getRuntime().totalMemory()};
    HeapGiveBack g = new HeapGiveBack(() -> committed[0], new HeapGiveBack.Canary(), () -> full[0]++);
    g.run();
    committed[0] += 8 * MIB;
    System.gc(); // clears the canary
    g.run();
    assertThat(full[0]).as("a collection ran in this period: busy").isZero();
    // The next period without one (this test allocates next to nothing, but the JVM may collect).
    for (int i = 0; i < 100 && full[0] == 0; i++) {
      g.run();
    }
    assertThat(full[0]).as("once a period passes without one").isEqualTo(1);
  }
}
