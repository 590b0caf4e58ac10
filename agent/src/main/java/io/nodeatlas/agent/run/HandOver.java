package io.nodeatlas.agent.run;

import io.nodeatlas.agent.claims.ClaimPreparer;
import io.nodeatlas.agent.kubelet.KubeletPluginServer;
import java.io.IOException;
import java.time.Clock;
import java.util.function.BooleanSupplier;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * What happens when a second instance starts on the same state directory: who holds its
 * {@link StateLock} (and so publishes and keeps the claims), and what the older instance gives up to the
 * newer one, everything with fixed socket names, only the lock in a rolling update (kubeletplugin
 * {@code RollingUpdate}, kubelet 1.33+), where both serve until the older pod is deleted.
 */
final class HandOver implements AutoCloseable {

  private static final Logger LOG = LoggerFactory.getLogger(Agent.class);

  static final String HANDED_OVER = "handed over to a newer instance (rolling update); this one only waits to be stopped";

  private final AgentSettings settings;
  private final StateLock lock;
  private final boolean rolling;
  private volatile boolean requested;
  private volatile boolean handedOver;
  private volatile boolean leading;
  private Thread watch;

  private HandOver(AgentSettings settings, StateLock lock, boolean rolling) {
    this.settings = settings;
    this.lock = lock;
    this.rolling = rolling;
    this.leading = lock.held();
  }

  /**
   * Takes the state directory. With fixed socket names it waits for its holder to hand over ({@code stopped}
   * ends the wait: SIGTERM); in a rolling update it never waits: it asks, and {@link #watch} takes the lock
   * when the holder lets it go.
   */
  static HandOver acquire(AgentSettings settings, Clock clock, BooleanSupplier stopped) throws IOException {
    if (!settings.rollingUpdate()) {
      try {
        return new HandOver(settings, StateLock.acquire(settings.lockFile(), settings.lockWait(), clock, stopped), false);
      } catch (InterruptedException e) {
        Thread.currentThread().interrupt();
        throw new IOException("interrupted while waiting for the lock " + settings.lockFile(), e);
      }
    }
    StateLock lock = StateLock.open(settings.lockFile());
    try {
      if (lock.tryLock()) {
        LOG.info("holding the state directory: publishing ResourceSlices and keeping claims lock={}", settings.lockFile());
      } else {
        lock.requestHandover();
        LOG.info("another instance holds the state directory: serving beside it (rolling update), asked it to hand "
            + "over publishing lock={}", settings.lockFile());
      }
    } catch (IOException | RuntimeException e) {
      lock.close();
      throw e;
    }
    return new HandOver(settings, lock, true);
  }

  /**
   * Polls, every 250 ms, for a newer instance asking for the state directory and, in a rolling update,
   * for the lock coming free (the holder handed over or died); runs {@code wake} on either.
   */
  void watch(Runnable wake) {
    watch = new Thread(() -> {
      while (!Thread.currentThread().isInterrupted()) {
        if (poll()) {
          wake.run();
          if (!rolling) {
            return;
          }
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

  /** One look; true when the loop has something to do. */
  private synchronized boolean poll() {
    if (leading) {
      if (!requested && lock.handoverRequested()) {
        requested = true;
        return true;
      }
      return false;
    }
    if (!rolling || (!lock.requesting() && lock.handoverRequested())) {
      return false; // a newer instance waits for the lock: it is its turn, not ours
    }
    try {
      if (lock.tryLock()) {
        leading = true;
        LOG.info("holding the state directory: publishing ResourceSlices and keeping claims lock={}", settings.lockFile());
        return true;
      }
    } catch (IOException e) {
      LOG.warn("cannot take the lock {} err=\"{}\"", settings.lockFile(), e.getMessage());
    }
    return false;
  }

  /** Whether a newer instance asked and this one still holds the state directory. */
  boolean due() {
    return requested && leading;
  }

  /** Whether this instance publishes and keeps the claims (it holds the state directory's lock). */
  boolean leading() {
    return leading;
  }

  /** Whether this instance gave everything up (fixed socket names) and only waits to be stopped. */
  boolean handedOver() {
    return handedOver;
  }

  /**
   * Lets the newer instance have the state directory. With fixed socket names: stops taking claims, lets
   * the calls in flight finish, removes the sockets so the kubelet turns to the new instance. In a rolling
   * update the sockets stay and both instances serve, their calls serialised by {@link CallLock}.
   */
  synchronized void handOver(ClaimPreparer preparer, SliceSync slices, KubeletPluginServer kubelet) {
    LOG.info("a newer instance asks for the state directory; handing over");
    if (!rolling) {
      handedOver = true;
      preparer.refusePrepare(HANDED_OVER);
    }
    slices.closeWatch();
    if (!rolling) {
      kubelet.shutdown(settings.drainTimeout().toMillis());
    }
    leading = false;
    requested = false;
    try {
      lock.release();
      LOG.info(rolling ? "handed over publishing, still serving the kubelet until stopped: lock released lock={}"
          : "handed over: lock released lock={}", settings.lockFile());
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
