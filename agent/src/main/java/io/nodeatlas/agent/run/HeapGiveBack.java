package io.nodeatlas.agent.run;

import java.lang.ref.WeakReference;
import java.util.function.BooleanSupplier;
import java.util.function.LongSupplier;

/**
 * One full collection once a burst of work (claims) is over, so that the serial collector gives the
 * heap the burst grew back to the system ({@code -XX:MaxHeapFreeRatio}, {@code -XX:-ShrinkHeapInSteps} in
 * systemd/nodeatlas.env): that collector shrinks the heap only after a full collection, and runs none
 * while the agent idles (G1's {@code G1PeriodicGCInterval} does, at 10 MiB more idle RSS). Ticked at a
 * fixed period: the burst is over when {@link #QUIET_PERIODS} whole periods passed without a collection
 * (less than the young generation allocated; by then the burst's call threads, idle for 10 s, have ended
 * and left their thread-local buffers behind), and the heap is then at least {@link #GROWN_BYTES} larger
 * than after the last collection. docs/design/speed-paths.md has the figures.
 */
final class HeapGiveBack implements Runnable {

  /** The period between ticks. */
  static final java.time.Duration PERIOD = java.time.Duration.ofSeconds(10);
  /** Periods in a row without a collection that end a burst. */
  static final int QUIET_PERIODS = 2;
  /** Heap growth since the last collection that is worth one (a 32-claim burst grows it by 10-15 MiB). */
  static final long GROWN_BYTES = 4 << 20;

  private final LongSupplier committed;
  private final BooleanSupplier collectedSinceAsked;
  private final Runnable collect;
  private long committedAfter = -1;
  private int quiet;

  /** On this JVM's heap: {@link Runtime#totalMemory()}, a weakly held canary, {@link System#gc()}. */
  HeapGiveBack() {
    this(Runtime.getRuntime()::totalMemory, new Canary(), System::gc);
  }

  /**
   * @param collectedSinceAsked whether a collection ran since it was last asked
   */
  HeapGiveBack(LongSupplier committed, BooleanSupplier collectedSinceAsked, Runnable collect) {
    this.committed = committed;
    this.collectedSinceAsked = collectedSinceAsked;
    this.collect = collect;
  }

  @Override
  public void run() {
    long total = committed.getAsLong();
    boolean busy = collectedSinceAsked.getAsBoolean();
    if (committedAfter < 0) {
      committedAfter = total; // the heap as the start left it
      return;
    }
    quiet = busy ? 0 : quiet + 1;
    if (quiet >= QUIET_PERIODS && total - committedAfter >= GROWN_BYTES) {
      collect.run();
      quiet = 0;
      collectedSinceAsked.getAsBoolean(); // this collection is not the next period's work
      committedAfter = committed.getAsLong();
    } else if (total < committedAfter) {
      committedAfter = total; // a collection of the JVM's own shrank it further
    }
  }

  /** An object held only weakly: any collection, the young one included, clears it. */
  static final class Canary implements BooleanSupplier {
    private WeakReference<Object> ref = new WeakReference<>(new Object());

    @Override
    public boolean getAsBoolean() {
      if (ref.get() != null) {
        return false;
      }
      ref = new WeakReference<>(new Object());
      return true;
    }
  }
}
