package io.nodeatlas.agent.ops;

import static org.assertj.core.api.Assertions.assertThat;

import io.nodeatlas.agent.claims.ClaimRef;
import io.prometheus.metrics.model.snapshots.HistogramSnapshot;
import java.nio.charset.StandardCharsets;
import org.junit.jupiter.api.Test;

/** Each claim's outcome and time reach {@code /metrics}: a counter by operation and result, classic buckets by operation. */
class AgentMetricsClaimsTest {

  private static final ClaimRef CLAIM = new ClaimRef("ns", "claim", "uid-1");

  @Test
  void everyClaimSeriesIsThereBeforeTheFirstClaim() throws Exception {
    String text = new String(new AgentMetrics("test").scrape(), StandardCharsets.UTF_8);
    // Present at zero from the start, so rate() and increase() see the first claim.
    assertThat(text).contains(
        "nodeatlas_claim_operations_total{operation=\"prepare\",result=\"success\"} 0.0",
        "nodeatlas_claim_operations_total{operation=\"prepare\",result=\"error\"} 0.0",
        "nodeatlas_claim_operations_total{operation=\"unprepare\",result=\"success\"} 0.0",
        "nodeatlas_claim_operations_total{operation=\"unprepare\",result=\"error\"} 0.0",
        "nodeatlas_claim_operation_duration_seconds_count{operation=\"prepare\"} 0");
  }

  @Test
  void outcomesAndTimesAreCountedByOperation() throws Exception {
    AgentMetrics metrics = new AgentMetrics("test");
    metrics.prepared(CLAIM, true, 3_000_000);
    metrics.prepared(CLAIM, false, 700_000);
    metrics.prepared(CLAIM, true, 20_000_000_000L);
    metrics.unprepared(CLAIM, true, 100_000);
    String text = new String(metrics.scrape(), StandardCharsets.UTF_8);
    assertThat(text).contains(
        "nodeatlas_claim_operations_total{operation=\"prepare\",result=\"success\"} 2.0",
        "nodeatlas_claim_operations_total{operation=\"prepare\",result=\"error\"} 1.0",
        "nodeatlas_claim_operations_total{operation=\"unprepare\",result=\"success\"} 1.0",
        "nodeatlas_claim_operations_total{operation=\"unprepare\",result=\"error\"} 0.0",
        "nodeatlas_claim_operation_duration_seconds_bucket{operation=\"prepare\",le=\"0.001\"} 1",
        "nodeatlas_claim_operation_duration_seconds_bucket{operation=\"prepare\",le=\"0.005\"} 2",
        "nodeatlas_claim_operation_duration_seconds_bucket{operation=\"prepare\",le=\"10.0\"} 2",
        "nodeatlas_claim_operation_duration_seconds_bucket{operation=\"prepare\",le=\"45.0\"} 3",
        "nodeatlas_claim_operation_duration_seconds_count{operation=\"prepare\"} 3",
        "nodeatlas_claim_operation_duration_seconds_bucket{operation=\"unprepare\",le=\"5.0E-4\"} 1",
        "nodeatlas_claim_operation_duration_seconds_count{operation=\"unprepare\"} 1");
  }

  @Test
  void theDurationsKeepClassicBucketsOnly() {
    AgentMetrics metrics = new AgentMetrics("test");
    metrics.prepared(CLAIM, true, 3_000_000);
    // The text format served has no native histograms: none is kept (each would cost every claim an update).
    HistogramSnapshot h = (HistogramSnapshot) metrics.snapshots().stream()
        .filter(s -> s.getMetadata().getPrometheusName().equals("nodeatlas_claim_operation_duration_seconds"))
        .findFirst().orElseThrow();
    assertThat(h.getDataPoints()).allSatisfy(p -> {
      assertThat(p.hasClassicHistogramData()).isTrue();
      assertThat(p.hasNativeHistogramData()).isFalse();
    });
  }
}
