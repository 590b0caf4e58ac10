package io.nodeatlas.agent.run;

import org.slf4j.Logger;
import org.slf4j.LoggerFactory;
import sun.misc.Signal;

/**
 * POSIX signal handling. A JVM stopped through its default SIGTERM handler exits 143; systemd and the
 * kubelet read a clean stop as exit 0, so the agent handles TERM and INT itself (stop the loop, drain,
 * return 0). {@code sun.misc.Signal} lives in {@code jdk.unsupported}, exported on every JDK.
 */
final class Signals {

  private static final Logger LOG = LoggerFactory.getLogger(Signals.class);

  private Signals() {}

  static void onTerminate(Runnable action) {
    handle("TERM", action);
    handle("INT", action);
  }

  static void onHangup(Runnable action) {
    handle("HUP", action);
  }

  private static void handle(String name, Runnable action) {
    try {
      Signal.handle(new Signal(name), s -> {
        LOG.info("received SIG{}", name);
        action.run();
      });
    } catch (IllegalArgumentException e) {
      LOG.warn("cannot handle SIG{} err=\"{}\"", name, e.getMessage());
    }
  }
}
