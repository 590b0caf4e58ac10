package io.nodeatlas.cli.run;

import com.sun.jna.Function;
import com.sun.jna.NativeLibrary;
import com.sun.jna.Platform;
import com.sun.jna.Pointer;
import io.nodeatlas.agent.run.EarlyHangup;

/** What {@code nodeatlas run} does with signals before anything else ({@link EarlyHangup}). */
public final class StartSignals {

  /** SIGHUP on Linux, every architecture (signal(7)). */
  private static final int SIGHUP = 1;

  private StartSignals() {}

  /** Holds SIGHUP for the start-up, leaving an ignored disposition (the launcher's) first. */
  public static void holdHangup() {
    EarlyHangup.hold(StartSignals::leaveIgnored);
  }

  /**
   * signal(2) with libc's {@code getpid} as the handler: async-signal-safe and without effect, it only
   * stands in for the microseconds until the JVM installs its own handler over it, which it does once
   * the disposition is no longer {@code SIG_IGN}.
   */
  private static void leaveIgnored() {
    try {
      NativeLibrary libc = NativeLibrary.getInstance(Platform.C_LIBRARY_NAME);
      Function signal = libc.getFunction("signal");
      Function placeholder = libc.getFunction("getpid");
      signal.invoke(Pointer.class, new Object[] {SIGHUP, placeholder});
    } catch (UnsatisfiedLinkError | RuntimeException e) {
      // SIGHUP stays ignored: the agent says so when it installs its handler.
    }
  }
}
