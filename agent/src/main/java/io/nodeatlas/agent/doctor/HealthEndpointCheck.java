package io.nodeatlas.agent.doctor;

import io.nodeatlas.discovery.doctor.DoctorCheck;
import io.nodeatlas.discovery.doctor.DoctorContext;
import io.nodeatlas.discovery.doctor.Finding;
import io.nodeatlas.discovery.host.Excerpt;
import java.io.IOException;
import java.io.InputStream;
import java.net.HttpURLConnection;
import java.net.URI;
import java.util.List;

/** Whether the running agent answers its {@code /healthz} (and {@code /readyz}) with 200, within two seconds. */
public final class HealthEndpointCheck implements DoctorCheck {

  static final int TIMEOUT_MILLIS = 2_000;

  @Override
  public String name() {
    return "agent.health";
  }

  @Override
  public List<Finding> run(DoctorContext context) {
    if (context.layout().healthUrl().isEmpty()) {
      return List.of(Finding.ok("agent.health", "not asked: no --http-port given to doctor"));
    }
    URI healthz = context.layout().healthUrl().get();
    URI readyz = healthz.resolve("/readyz");
    Answer health = get(healthz);
    if (health.status != 200) {
      return List.of(Finding.fail("agent.health", healthz + ": " + health.text,
          "is the agent running? systemctl status nodeatlas, or kubectl -n nodeatlas logs the node's pod"));
    }
    Answer ready = get(readyz);
    if (ready.status != 200) {
      return List.of(Finding.warn("agent.health", healthz + " answers 200, but " + readyz + " " + ready.text,
          "the agent is up but not serving claims yet: read its log for the reason"));
    }
    return List.of(Finding.ok("agent.health", healthz + " and " + readyz + " answer 200"));
  }

  private record Answer(int status, String text) {}

  private static Answer get(URI uri) {
    try {
      HttpURLConnection c = (HttpURLConnection) uri.toURL().openConnection(java.net.Proxy.NO_PROXY);
      c.setConnectTimeout(TIMEOUT_MILLIS);
      c.setReadTimeout(TIMEOUT_MILLIS);
      int status = c.getResponseCode();
      InputStream body = status >= 400 ? c.getErrorStream() : c.getInputStream();
      String text = "";
      if (body != null) {
        try (body) {
          text = new String(body.readNBytes(512), java.nio.charset.StandardCharsets.UTF_8).strip();
        }
      }
      c.disconnect();
      return new Answer(status, "answers " + status + (text.isEmpty() ? "" : ": " + Excerpt.scrub(text)));
    } catch (IOException | RuntimeException e) {
      String why = e.getMessage() == null || e.getMessage().isBlank() ? "no connection" : e.getMessage();
      return new Answer(-1, "no answer: " + Excerpt.scrub(why.toLowerCase(java.util.Locale.ROOT)));
    }
  }
}
