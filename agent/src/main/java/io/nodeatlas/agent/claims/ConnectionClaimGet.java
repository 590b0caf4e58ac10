package io.nodeatlas.agent.claims;

import io.nodeatlas.agent.api.ApiConnection;
import io.nodeatlas.agent.api.ApiException;
import java.nio.ByteBuffer;
import java.time.Duration;
import java.util.List;

/** The claim GET on the agent's own {@link ApiConnection} (the JDK's HTTP client), on the calling thread. */
final class ConnectionClaimGet implements ClaimGet {

  private final ApiConnection api;
  private final int maxBytes;

  ConnectionClaimGet(ApiConnection api, int maxBytes) {
    this.api = api;
    this.maxBytes = maxBytes;
  }

  @Override
  public Answer fetch(String url, long limitNanos, CallBudget budget) {
    if (!url.startsWith(api.base() + "/")) {
      return Answer.failed("not a URL of " + api.base() + ": " + url, false);
    }
    long limit = Math.max(limitNanos, 1_000_000);
    try {
      ApiConnection.Answer a = api.exchange("GET", url.substring(api.base().length()), null, null, Duration.ofNanos(limit),
          maxBytes);
      return Answer.of(a.code(), List.of(ByteBuffer.wrap(a.body())));
    } catch (ApiException e) {
      if ("TooLarge".equals(e.reason())) {
        return Answer.tooLarge(maxBytes);
      }
      if (e.getMessage().contains(": timed out")) {
        return Answer.timedOut(limitNanos, limitNanos, budget);
      }
      return Answer.failed(e.getMessage(), true);
    }
  }
}
