package io.nodeatlas.agent.claims;

import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.locks.LockSupport;

/**
 * The ends of the claim GETs in flight, watched by one thread that sleeps until the earliest and then
 * expires what is due. A new try wakes the thread only when its end comes before the one the thread
 * sleeps until, or when it sleeps without one: the tries of one client share a time limit, so a try
 * started later ends later, and a stream of GETs costs a wake per time limit rather than per GET (a
 * {@code ScheduledThreadPoolExecutor} with remove-on-cancel made each new deadline the head of an
 * emptied queue, and so woke its thread once per GET). Without tries for {@link #KEEP_ALIVE_NANOS}
 * the thread ends; the next try starts another.
 */
final class TryDeadlines {

  /** How long the thread waits for a try before it ends. */
  static final long KEEP_ALIVE_NANOS = TimeUnit.SECONDS.toNanos(10);

  /** What a try does when its end comes. */
  interface Expiring {
    void expire();
  }

  private final String threadName;
  private final Map<Expiring, Long> inFlight = new ConcurrentHashMap<>();
  /** Guarded by this: the watching thread, null when none runs. */
  private Thread watcher;
  /** Guarded by this: the end the watcher sleeps until, when {@link #timed}. */
  private long wakeAt;
  /** Guarded by this: whether the watcher sleeps until {@link #wakeAt} (else it waits for a try). */
  private boolean timed;
  /** Wakes of the watcher, for tests that prove a stream of tries does not wake it each time. */
  final java.util.concurrent.atomic.AtomicLong wakes = new java.util.concurrent.atomic.AtomicLong();

  TryDeadlines(String threadName) {
    this.threadName = threadName;
  }

  /** Calls {@code x.expire()} at {@code end} ({@link System#nanoTime()}) unless {@link #done} comes first. */
  void watch(Expiring x, long end) {
    inFlight.put(x, end);
    synchronized (this) {
      if (watcher == null) {
        timed = true;
        wakeAt = end;
        watcher = new Thread(this::run, threadName);
        watcher.setDaemon(true);
        watcher.start();
      } else if (!timed || end - wakeAt < 0) {
        timed = true;
        wakeAt = end;
        LockSupport.unpark(watcher);
      }
    }
  }

  /** The try is over: its end no longer matters (the watcher is not woken for it). */
  void done(Expiring x) {
    inFlight.remove(x);
  }

  private void run() {
    long idleSince = System.nanoTime();
    while (true) {
      long now = System.nanoTime();
      List<Expiring> due = new ArrayList<>();
      long sleep;
      synchronized (this) {
        boolean any = false;
        long next = 0;
        for (Map.Entry<Expiring, Long> e : inFlight.entrySet()) {
          long end = e.getValue();
          if (end - now <= 0) {
            due.add(e.getKey());
          } else if (!any || end - next < 0) {
            next = end;
            any = true;
          }
        }
        due.forEach(inFlight::remove);
        if (any) {
          timed = true;
          wakeAt = next;
          sleep = next - now;
          idleSince = now;
        } else if (now - idleSince >= KEEP_ALIVE_NANOS && due.isEmpty()) {
          watcher = null;
          return;
        } else {
          timed = false;
          sleep = KEEP_ALIVE_NANOS - (now - idleSince);
        }
      }
      due.forEach(Expiring::expire);
      if (due.isEmpty()) {
        LockSupport.parkNanos(this, Math.max(1, sleep));
        wakes.incrementAndGet();
      }
    }
  }
}
