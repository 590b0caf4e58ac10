package io.nodeatlas.agent.claims;

import io.nodeatlas.agent.api.ApiConnection;
import java.net.URI;

/**
 * The claim GET with the agent's own {@link ApiConnection}'s TLS material and token, on the calling
 * thread ({@code HttpURLConnection}, as {@link BlockingClaimGet}: no hand-off between threads, see
 * docs/design/speed-paths.md): the try's time bounds the whole exchange (a timer closes a connection
 * that dribbles), the answer is read up to the bound, a 401 is tried once more when the token changed.
 */
final class ConnectionClaimGet implements ClaimGet {

  private final ApiConnection api;
  private final UrlConnectionTry tries;

  ConnectionClaimGet(ApiConnection api, long attemptTimeoutNanos, int maxBytes) {
    this.api = api;
    this.tries = new UrlConnectionTry(attemptTimeoutNanos, maxBytes);
  }

  @Override
  public Answer fetch(String url, long limitNanos, CallBudget budget) {
    if (!url.startsWith(api.base() + "/")) {
      return Answer.failed("not a URL of " + api.base() + ": " + url, false);
    }
    long end = System.nanoTime() + limitNanos;
    String token = api.token();
    Answer a = send(url, token, end, limitNanos, budget);
    if (a.failure() == null && a.code() == 401) {
      String again = api.token();
      if (again != null && !again.equals(token) && !budget.over()) {
        return send(url, again, end, limitNanos, budget); // rotated since: once more with the new one
      }
    }
    return a;
  }

  private Answer send(String url, String token, long end, long limitNanos, CallBudget budget) {
    URI uri;
    try {
      uri = URI.create(url);
    } catch (IllegalArgumentException e) {
      return Answer.failed(ClaimGet.describe(e), false);
    }
    return tries.send(uri, conn -> api.authorize(conn, token), end, limitNanos, budget);
  }
}
