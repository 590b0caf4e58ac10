package io.nodeatlas.agent.run;

import java.util.concurrent.atomic.AtomicInteger;
import sun.misc.Signal;
import sun.misc.SignalHandler;

/**
 * SIGHUP while {@code nodeatlas run} starts, before the agent's own handler is in place: counted
 * instead of ending the process. The JVM's own handler would end it with status 129 (its shutdown
 * handling of SIGHUP), and systemd's {@code ExecReload}, an operator's {@code kill -HUP} or a config
 * manager may send one at any time. Installed first thing in {@code main}; the agent's handler takes
 * over from it ({@link Signals#onHangup}) and acts once on what it counted.
 *
 * <p>A process started with SIGHUP ignored (the launcher does so, as {@code nohup} does, so that the
 * JVM's start-up is covered too) gets no handler from the JVM at all (HotSpot's
 * {@code JVM_RegisterSignal} refuses a signal whose disposition is {@code SIG_IGN}); {@link #hold}
 * then asks {@code unignore} to leave {@code SIG_IGN} first.
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
