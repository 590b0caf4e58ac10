package io.nodeatlas.agent.run;

import org.slf4j.Logger;
import org.slf4j.LoggerFactory;
import sun.misc.Signal;

/**
 * POSIX signal handling: TERM and INT stop the agent cleanly (exit 0, which systemd and the kubelet read
 * as a clean stop, where the JVM's own handler exits 143), HUP re-reads the configuration.
 */
final class Signals {

  private static final Logger LOG = LoggerFactory.getLogger(Signals.class);

  private Signals() {}

  static void onTerminate(Runnable action) {
    handle("TERM", action);
    handle("INT", action);
  }

  /**
   * SIGHUP runs {@code action}; one that came while the process started ({@link EarlyHangup} held it)
   * runs it once now.
   */
  static void onHangup(Runnable action) {
    sun.misc.SignalHandler before = handle("HUP", action);
    if (before instanceof EarlyHangup early && early.received() > 0) {
      LOG.info("received SIGHUP while starting count={}; acting on it now", early.received());
      action.run();
    } else if (before == sun.misc.SignalHandler.SIG_IGN) {
      LOG.warn("SIGHUP is ignored in this process (started with it ignored, as under nohup), so it cannot re-read"
          + " the configuration; restart the agent to apply a changed one");
    }
  }

  /** Installs the handler; returns the one it replaced (null when none could be installed). */
  private static sun.misc.SignalHandler handle(String name, Runnable action) {
    try {
      return Signal.handle(new Signal(name), s -> {
        LOG.info("received SIG{}", name);
        action.run();
      });
    } catch (IllegalArgumentException e) {
      LOG.warn("cannot handle SIG{} err=\"{}\"", name, e.getMessage());
      return null;
    }
  }
}
