package io.nodeatlas.agent.run;

import java.util.function.LongSupplier;

/**
 * One full collection once a burst of work (claims) is over, so that the serial collector gives the
 * heap the burst grew back to the system ({@code -XX:MaxHeapFreeRatio}, {@code -XX:-ShrinkHeapInSteps} in
 * systemd/nodeatlas.env): that collector shrinks the heap only after a full collection, and runs none
 * while the agent idles (G1's {@code G1PeriodicGCInterval} does, at 10 MiB more idle RSS). Ticked at a
 * fixed period: the burst is over when the heap's use moved less than {@link #QUIET_BYTES} over a whole
 * period; it collects when the heap is then at least {@link #GROWN_BYTES} larger than after the last
 * collection. docs/design/speed-paths.md has the figures.
 */
final class HeapGiveBack implements Runnable {

  /** The period between ticks. */
  static final java.time.Duration PERIOD = java.time.Duration.ofSeconds(10);
  /** Allocation below this over one period is quiet: an idle agent allocates a few KiB a second. */
  static final long QUIET_BYTES = 1 << 20;
  /** Heap growth since the last collection that is worth one (a 32-claim burst grows it by 10-15 MiB). */
  static final long GROWN_BYTES = 4 << 20;

  private final LongSupplier committed;
  private final LongSupplier free;
  private final Runnable collect;
  private long lastUsed = -1;
  private long committedAfter = -1;

  /** On this JVM's heap ({@link Runtime}) and {@link System#gc()}. */
  HeapGiveBack() {
    this(Runtime.getRuntime()::totalMemory, Runtime.getRuntime()::freeMemory, System::gc);
  }

  HeapGiveBack(LongSupplier committed, LongSupplier free, Runnable collect) {
    this.committed = committed;
    this.free = free;
    this.collect = collect;
  }

  @Override
  public void run() {
    long total = committed.getAsLong();
    long used = total - free.getAsLong();
    long before = lastUsed;
    lastUsed = used;
    if (committedAfter < 0) {
      committedAfter = total; // the heap as the start left it
      return;
    }
    boolean quiet = before >= 0 && Math.abs(used - before) < QUIET_BYTES;
    if (quiet && total - committedAfter >= GROWN_BYTES) {
      collect.run();
      committedAfter = committed.getAsLong();
      lastUsed = committedAfter - free.getAsLong();
    } else if (total < committedAfter) {
      committedAfter = total; // a collection of the JVM's own shrank it further
    }
  }
}
