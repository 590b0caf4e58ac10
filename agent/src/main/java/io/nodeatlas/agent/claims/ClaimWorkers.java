package io.nodeatlas.agent.claims;

import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.ConcurrentLinkedQueue;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.Executor;
import java.util.concurrent.RejectedExecutionException;
import java.util.concurrent.SynchronousQueue;
import java.util.concurrent.ThreadPoolExecutor;
import java.util.concurrent.TimeUnit;
import java.util.function.Function;

/**
 * Runs the claims of one kubelet call in parallel, within the call's {@link CallBudget}. The calling
 * thread works on the call's claims itself and borrows up to {@code parallelism - 1} helpers from a
 * small shared pool; when the pool is busy with other calls the caller goes on alone, so every call
 * makes progress and the number of threads stays bounded whatever the kubelet sends. Claims the
 * caller says are quick (answered from the checkpoint, without the API server) are answered first, by
 * the calling thread, whatever the budget: a slow API server never costs them their answer. When the
 * budget ends, claims not finished get the {@code late} answer and no one starts another claim of
 * this call.
 */
public final class ClaimWorkers {

  private final Executor helpers;
  private final int parallelism;

  /** {@code helpers}: threads shared by every call; {@code parallelism}: claims of one call worked on at once. */
  public ClaimWorkers(Executor helpers, int parallelism) {
    if (parallelism < 1) {
      throw new IllegalArgumentException("parallelism " + parallelism);
    }
    this.helpers = helpers;
    this.parallelism = parallelism;
  }

  /**
   * A pool of {@code parallelism - 1} daemon threads that end when idle for 30 s, refusing work when
   * all are busy (the calling thread then does it); claims of one call run {@code parallelism} at once.
   */
  public static ClaimWorkers pooled(int parallelism) {
    int threads = Math.max(1, parallelism - 1);
    ThreadPoolExecutor pool = new ThreadPoolExecutor(threads, threads, 30, TimeUnit.SECONDS, new SynchronousQueue<>(),
        r -> {
          Thread t = new Thread(r, "claim-worker");
          t.setDaemon(true);
          return t;
        });
    pool.allowCoreThreadTimeOut(true);
    return new ClaimWorkers(pool, parallelism);
  }

  /** Every claim on the calling thread, one after another. */
  public static ClaimWorkers inline() {
    return new ClaimWorkers(Runnable::run, 1);
  }

  /**
   * One answer per distinct UID of {@code claims}, in request order: {@code task}'s, or {@code late}'s
   * for a claim not finished within {@code budget}. {@code quick} claims are answered first.
   */
  public <R> Map<String, R> run(List<ClaimRef> claims, CallBudget budget, java.util.function.Predicate<ClaimRef> quick,
      Function<ClaimRef, R> task, Function<ClaimRef, R> late) {
    Map<String, ClaimRef> distinct = new LinkedHashMap<>();
    claims.forEach(c -> distinct.putIfAbsent(c.uid(), c));
    Map<String, R> done = new ConcurrentHashMap<>();
    List<ClaimRef> order = new ArrayList<>();
    for (ClaimRef c : distinct.values()) {
      if (quick.test(c)) {
        done.put(c.uid(), task.apply(c));
      } else {
        order.add(c);
      }
    }
    ConcurrentLinkedQueue<ClaimRef> queue = new ConcurrentLinkedQueue<>(order);
    CountDownLatch finished = new CountDownLatch(order.size());
    Runnable drain = () -> {
      ClaimRef c;
      while (!budget.over() && (c = queue.poll()) != null) {
        try {
          done.put(c.uid(), task.apply(c));
        } finally {
          finished.countDown();
        }
      }
    };
    int wanted = Math.min(parallelism, order.size()) - 1;
    for (int i = 0; i < wanted; i++) {
      try {
        helpers.execute(drain);
      } catch (RejectedExecutionException busy) {
        break;
      }
    }
    drain.run();
    try {
      if (!finished.await(budget.remainingNanos(), TimeUnit.NANOSECONDS)) {
        budget.abandon(budget.why());
      }
    } catch (InterruptedException e) {
      Thread.currentThread().interrupt();
      budget.abandon("the call was interrupted");
    }
    Map<String, R> out = new LinkedHashMap<>();
    for (ClaimRef c : distinct.values()) {
      R r = done.get(c.uid());
      out.put(c.uid(), r != null ? r : late.apply(c));
    }
    return out;
  }
}
