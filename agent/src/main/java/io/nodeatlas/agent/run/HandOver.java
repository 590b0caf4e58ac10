package io.nodeatlas.agent.run;

import io.nodeatlas.agent.claims.ClaimPreparer;
import io.nodeatlas.agent.kubelet.KubeletPluginServer;
import java.io.IOException;
import java.time.Clock;
import java.util.function.BooleanSupplier;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * What happens when a second instance starts on the same state directory: this instance holds the
 * state directory's {@link StateLock}, watches for a newer instance's request and, when one comes,
 * stops taking claims, removes its sockets and releases the lock to it.
 */
final class HandOver implements AutoCloseable {

  private static final Logger LOG = LoggerFactory.getLogger(Agent.class);

  static final String HANDED_OVER = "handed over to a newer instance (rolling update); this one only waits to be stopped";

  private final AgentSettings settings;
  private final StateLock lock;
  private volatile boolean requested;
  private volatile boolean handedOver;
  private Thread watch;

  private HandOver(AgentSettings settings, StateLock lock) {
    this.settings = settings;
    this.lock = lock;
  }

  /** Takes the state directory, waiting for its holder to hand over; {@code stopped} ends the wait (SIGTERM). */
  static HandOver acquire(AgentSettings settings, Clock clock, BooleanSupplier stopped) throws IOException {
    try {
      return new HandOver(settings, StateLock.acquire(settings.lockFile(), settings.lockWait(), clock, stopped));
    } catch (InterruptedException e) {
      Thread.currentThread().interrupt();
      throw new IOException("interrupted while waiting for the lock " + settings.lockFile(), e);
    }
  }

  /** Polls for a newer instance asking for the state directory and runs {@code wake} when one does. */
  void watch(Runnable wake) {
    watch = new Thread(() -> {
      while (!Thread.currentThread().isInterrupted()) {
        if (lock.handoverRequested()) {
          requested = true;
          wake.run();
          return;
        }
        try {
          Thread.sleep(250);
        } catch (InterruptedException e) {
          return;
        }
      }
    }, "handover-watch");
    watch.setDaemon(true);
    watch.start();
  }

  /** Whether a newer instance asked and this one has not handed over yet. */
  boolean due() {
    return requested && !handedOver;
  }

  boolean handedOver() {
    return handedOver;
  }

  /**
   * Stops taking claims, lets the calls in flight finish (the checkpoint is durable after each),
   * removes this instance's sockets so the kubelet turns to the new instance, and releases the lock.
   */
  void handOver(ClaimPreparer preparer, SliceSync slices, KubeletPluginServer kubelet) {
    LOG.info("a newer instance asks for the state directory; handing over");
    handedOver = true;
    preparer.refusePrepare(HANDED_OVER);
    slices.closeWatch();
    kubelet.shutdown(settings.drainTimeout().toMillis());
    try {
      lock.close();
      LOG.info("handed over: lock released lock={}", settings.lockFile());
    } catch (IOException e) {
      LOG.error("cannot release the lock {} err=\"{}\"", settings.lockFile(), e.getMessage());
    }
  }

  @Override
  public void close() {
    if (watch != null) {
      watch.interrupt();
    }
    try {
      lock.close();
    } catch (IOException e) {
      LOG.warn("cannot release the lock {} err=\"{}\"", settings.lockFile(), e.getMessage());
    }
  }
}
