package io.nodeatlas.agent.run;

import java.util.concurrent.atomic.AtomicInteger;
import sun.misc.Signal;
import sun.misc.SignalHandler;

/**
 * Counts SIGHUP while {@code nodeatlas run} starts, before the agent's own handler is in place, instead
 * of letting the JVM end the process with status 129; {@link Signals#onHangup} acts once on what it counted.
 */
public final class EarlyHangup implements SignalHandler {

  private final AtomicInteger received = new AtomicInteger();

  private EarlyHangup() {}

  /**
   * Takes SIGHUP over for the start-up. {@code unignore} replaces an ignored disposition by a harmless
   * one (native code: Java cannot); when it cannot, SIGHUP stays ignored, and the agent says so.
   */
  public static EarlyHangup hold(Runnable unignore) {
    EarlyHangup early = new EarlyHangup();
    try {
      if (Signal.handle(new Signal("HUP"), early) == SignalHandler.SIG_IGN) {
        unignore.run();
        Signal.handle(new Signal("HUP"), early);
      }
    } catch (IllegalArgumentException e) {
      // The JVM keeps SIGHUP for itself (-Xrs): nothing to hold.
    }
    return early;
  }

  @Override
  public void handle(Signal sig) {
    received.incrementAndGet();
  }

  /** How many SIGHUPs came while this handler was in place. */
  public int received() {
    return received.get();
  }
}
