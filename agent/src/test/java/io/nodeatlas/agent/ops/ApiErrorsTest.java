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
    assertThat(ApiErrors.describe(e)).isEqualTo("no answer: ConnectException: Connection refused").doesNotContain("An error");
  }
}
