package io.nodeatlas.agent.ops;

import static org.assertj.core.api.Assertions.assertThat;

import java.nio.charset.StandardCharsets;
import java.util.Map;
import org.junit.jupiter.api.Test;

/** What the families' upkeep did (an MPS daemon started again) reaches {@code /metrics} as one counter by action. */
class AgentMetricsUpkeepTest {

  @Test
  void upkeepActionsAreCountedByAction() throws Exception {
    AgentMetrics metrics = new AgentMetrics("test");
    metrics.upkeep(Map.of());
    metrics.upkeep(Map.of("gpu_mps_daemon_restarted", 1));
    metrics.upkeep(Map.of("gpu_mps_daemon_restarted", 1, "gpu_mps_daemon_stopped", 1));
    String text = new String(metrics.scrape(), StandardCharsets.UTF_8);
    assertThat(text).contains("# TYPE nodeatlas_device_upkeep_actions_total counter",
        "nodeatlas_device_upkeep_actions_total{action=\"gpu_mps_daemon_restarted\"} 2.0",
        "nodeatlas_device_upkeep_actions_total{action=\"gpu_mps_daemon_stopped\"} 1.0");
  }
}
