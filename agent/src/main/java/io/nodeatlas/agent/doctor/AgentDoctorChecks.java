package io.nodeatlas.agent.doctor;

import io.nodeatlas.discovery.doctor.DoctorCheck;
import java.util.List;

/** The agent's own doctor checks: its state and specs, the kubelet it registers with, its health endpoint. */
public final class AgentDoctorChecks {

  private AgentDoctorChecks() {}

  public static List<DoctorCheck> all() {
    return List.of(new AgentStateCheck(), new KubeletCheck(), new HealthEndpointCheck());
  }
}
