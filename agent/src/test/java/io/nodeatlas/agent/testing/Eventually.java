package io.nodeatlas.agent.testing;

import java.time.Duration;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.Executors;
import java.util.concurrent.ScheduledExecutorService;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicReference;
import java.util.function.BooleanSupplier;
import java.util.function.Supplier;

/**
 * The one way tests wait for something the system under test does on its own threads or in another
 * process: the condition is checked on a small scheduler and the test thread waits on a latch that
 * the first true answer releases, bounded generously so that a loaded 2-core machine still passes.
 * A condition that throws ends the wait with that failure (a process that died, for instance).
 */
public final class Eventually {

  /** Generous on purpose: what the tests wait for takes milliseconds on an idle machine. */
  public static final Duration BOUND = Duration.ofSeconds(60);

  private static final long CHECK_EVERY_MILLIS = 20;

  private Eventually() {}

  public static void await(BooleanSupplier condition) throws InterruptedException {
    await("condition", BOUND, condition, () -> "");
  }

  public static void await(String what, BooleanSupplier condition) throws InterruptedException {
    await(what, BOUND, condition, () -> "");
  }

  /** Waits for {@code condition}; on timeout fails naming {@code what}, followed by {@code context} (a log). */
  public static void await(String what, Duration bound, BooleanSupplier condition, Supplier<String> context)
      throws InterruptedException {
    CountDownLatch met = new CountDownLatch(1);
    AtomicReference<Throwable> failure = new AtomicReference<>();
    ScheduledExecutorService checker = Executors.newSingleThreadScheduledExecutor(r -> {
      Thread t = new Thread(r, "eventually");
      t.setDaemon(true);
      return t;
    });
    try {
      checker.scheduleWithFixedDelay(() -> {
        try {
          if (condition.getAsBoolean()) {
            met.countDown();
          }
        } catch (Throwable t) {
          failure.set(t);
          met.countDown();
        }
      }, 0, CHECK_EVERY_MILLIS, TimeUnit.MILLISECONDS);
      boolean released = met.await(bound.toMillis(), TimeUnit.MILLISECONDS);
      if (failure.get() != null) {
        throw failure.get() instanceof AssertionError a ? a : new AssertionError(what + ": " + failure.get(), failure.get());
      }
      if (!released) {
        String more = context.get();
        throw new AssertionError(what + ": not within " + bound.toSeconds() + " s" + (more.isEmpty() ? "" : "\n" + more));
      }
    } finally {
      checker.shutdownNow();
    }
  }
}
