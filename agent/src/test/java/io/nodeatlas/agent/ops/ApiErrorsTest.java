package io.nodeatlas.agent.ops;

import static org.assertj.core.api.Assertions.assertThat;

import io.fabric8.kubernetes.api.model.StatusBuilder;
import io.fabric8.kubernetes.client.KubernetesClientException;
import java.net.ConnectException;
import org.junit.jupiter.api.Test;

/** Issue 12 case 12: API errors say what happened, not fabric8's "An error has occurred.". */
class ApiErrorsTest {

  @Test
  void anAnswerOfTheApiServerIsNamedByStatusReasonAndMessage() {
    KubernetesClientException e = new KubernetesClientException(new StatusBuilder().withCode(403).withReason("Forbidden")
        .withMessage("resourceslices is forbidden: User \"system:serviceaccount:x:y\" cannot list").build());
    assertThat(ApiErrors.describe(e))
        .isEqualTo("HTTP 403 Forbidden: resourceslices is forbidden: User \"system:serviceaccount:x:y\" cannot list");
  }

  @Test
  void noAnswerIsNamedByItsCause() {
    KubernetesClientException e = new KubernetesClientException("An error has occurred.",
        new java.io.IOException("wrapped", new ConnectException("Connection refused")));
    assertThat(ApiErrors.describe(e)).isEqualTo("no answer: connection refused").doesNotContain("An error");
  }

  @Test
  void anUnreachableServerIsNamedByItsUrlAndNoJavaClassName() throws Exception {
    java.net.URL server = java.net.URI.create("https://10.0.0.1:6443/").toURL();
    KubernetesClientException refused = new KubernetesClientException("An error has occurred.",
        new java.io.IOException("wrapped", new ConnectException("Connection refused")));
    assertThat(ApiErrors.describe(refused, server)).isEqualTo("no answer from https://10.0.0.1:6443/: connection refused");
    KubernetesClientException closed = new KubernetesClientException("An error has occurred.",
        new java.nio.channels.ClosedChannelException());
    assertThat(ApiErrors.describe(closed, server)).isEqualTo("no answer from https://10.0.0.1:6443/: connection closed");
    KubernetesClientException unknown = new KubernetesClientException("An error has occurred.",
        new java.net.UnknownHostException("api.example.invalid"));
    assertThat(ApiErrors.describe(unknown, server)).isEqualTo("no answer from https://10.0.0.1:6443/: unknown host api.example.invalid");
  }
}
