package io.nodeatlas.agent.claims;

import java.nio.ByteBuffer;
import java.util.List;
import java.util.concurrent.TimeUnit;

/**
 * One try of a ResourceClaim GET for {@link ApiClaimLookup}: the answer's status and body, or why there
 * is none. Two ways, with the same answers: {@link BlockingClaimGet} on the calling thread where the
 * client's configuration allows it, {@link Fabric8ClaimGet} through fabric8's HTTP client everywhere else.
 */
interface ClaimGet {

  /**
   * One GET of {@code url} that ends within {@code limitNanos} (one read's time more at worst, see
   * {@link BlockingClaimGet}) or when {@code budget} is abandoned, and reads at most the lookup's bound.
   */
  Answer fetch(String url, long limitNanos, CallBudget budget);

  /** A status and a body, or a failure and whether another try may help. */
  record Answer(int code, List<ByteBuffer> body, String failure, boolean retryable) {
    static Answer failed(String why, boolean retryable) {
      return new Answer(0, List.of(), why, retryable);
    }

    /** The failure for an answer over {@code maxBytes}: not worth another try. */
    static Answer tooLarge(int maxBytes) {
      return failed("the answer is larger than " + maxBytes + " bytes, more than the API server "
          + "stores for one object; the claim is refused", false);
    }

    /**
     * A try that ran out of its {@code limitNanos}: the call's budget when that is what cut the try
     * short, else the try's own limit of {@code attemptTimeoutNanos}. Another try may help.
     */
    static Answer timedOut(long limitNanos, long attemptTimeoutNanos, CallBudget budget) {
      return failed(budget.over() && limitNanos < attemptTimeoutNanos ? budget.why()
          : "no complete answer within " + TimeUnit.NANOSECONDS.toMillis(attemptTimeoutNanos) + " ms", true);
    }

    /** A status and body as read: a 5xx or 429 may pass with another try, nothing else does. */
    static Answer of(int code, List<ByteBuffer> body) {
      return new Answer(code, body, null, code >= 500 || code == 429);
    }
  }

  /** The exception's class and message, for a failure line. */
  static String describe(Throwable t) {
    String m = t.getMessage();
    String name = t.getClass().getSimpleName();
    return m == null || m.isBlank() ? name : name + ": " + m;
  }
}
