package io.nodeatlas.agent.claims;

import java.time.Duration;
import java.util.concurrent.CancellationException;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.TimeoutException;

/**
 * The time one kubelet call may take, and whether its caller is still waiting. The kubelet gives each
 * NodePrepareResources / NodeUnprepareResources call a gRPC deadline (45 s in the kubelet's DRA
 * plugin client) and drops the whole answer when it passes, so the answer must leave before it, with
 * what is done by then: a claim not finished in time gets an error of its own and the kubelet asks
 * again. {@link #abandon} ends the budget early (the caller cancelled, or the answer is being sent);
 * work that sees {@link #over()} stops before its next step.
 */
public final class CallBudget {

  private final long deadlineNanos;
  private final CompletableFuture<String> abandoned = new CompletableFuture<>();

  private CallBudget(long deadlineNanos) {
    this.deadlineNanos = deadlineNanos;
  }

  /** A budget ending {@code time} from now ({@link System#nanoTime()} clock). */
  public static CallBudget after(Duration time) {
    return new CallBudget(System.nanoTime() + Math.max(0, time.toNanos()));
  }

  /** Nanoseconds left; 0 once over or abandoned. */
  public long remainingNanos() {
    if (abandoned.isDone()) {
      return 0;
    }
    return Math.max(0, deadlineNanos - System.nanoTime());
  }

  public boolean over() {
    return remainingNanos() == 0;
  }

  /** Ends the budget now; the first reason given is kept. */
  public void abandon(String reason) {
    abandoned.complete(reason);
  }

  /** Completes (with the reason) when the budget is abandoned; it does not complete when time runs out. */
  public CompletableFuture<String> abandoned() {
    return abandoned;
  }

  /**
   * {@code f}'s value, waiting until {@code endNanos} ({@link System#nanoTime()} clock) at most: a
   * {@link TimeoutException} then, and a {@link CancellationException} with {@link #why()} as soon as
   * the budget is abandoned. {@code f} itself is left as it is.
   */
  public <T> T await(CompletableFuture<T> f, long endNanos)
      throws TimeoutException, InterruptedException, ExecutionException {
    CompletableFuture.anyOf(f, abandoned).get(Math.max(0, endNanos - System.nanoTime()), TimeUnit.NANOSECONDS);
    if (!f.isDone()) {
      throw new CancellationException(why());
    }
    return f.get();
  }

  /** Why work stopped: the abandon reason, or that the call's time ran out. */
  public String why() {
    return abandoned.isDone() ? abandoned.join() : "the call's time ran out before the kubelet's deadline";
  }
}
