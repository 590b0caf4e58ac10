package io.nodeatlas.agent.claims;

import static org.assertj.core.api.Assertions.assertThat;

import io.fabric8.kubernetes.client.Config;
import io.fabric8.kubernetes.client.KubernetesClient;
import io.fabric8.kubernetes.client.KubernetesClientBuilder;
import io.fabric8.kubernetes.client.jdkhttp.JdkHttpClientFactory;
import io.nodeatlas.agent.testing.ClaimApiServer;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.List;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * The claim reads use an HTTP client of their own (built from the agent's client configuration): what
 * the API server sees of them must be what it sees of the agent's other calls.
 */
class ApiClaimLookupTest {

  @TempDir Path dir;

  @Test
  void readsClaimsWithTheCredentialsOfTheAgentsKubeconfigCallAfterCall() throws Exception {
    try (ClaimApiServer api = new ClaimApiServer()) {
      api.claim("train", new ClaimApiServer.Answer("uid-train", List.of("gpu-0", "gpu-1"), 0));
      // The kubeconfig's user has the bearer token "test".
      Path kubeconfig = api.kubeconfig(dir.resolve("kubeconfig"));
      Config config = Config.fromKubeconfig(null, Files.readString(kubeconfig), kubeconfig.toString());
      try (KubernetesClient client = new KubernetesClientBuilder().withConfig(config)
              .withHttpClientFactory(new JdkHttpClientFactory()).build()) {
        ApiClaimLookup lookup = new ApiClaimLookup(client);
        for (int i = 0; i < 3; i++) {
          assertThat(lookup.allocation(new ClaimRef("default", "train", "uid-train")))
              .extracting(AllocatedDevice::driver, AllocatedDevice::pool, AllocatedDevice::device)
              .containsExactly(org.assertj.core.groups.Tuple.tuple("nodeatlas.io", "node-a", "gpu-0"),
                  org.assertj.core.groups.Tuple.tuple("nodeatlas.io", "node-a", "gpu-1"));
        }
        assertThat(api.claimRequests()).isEqualTo(3);
        assertThat(api.claimAuthorization()).isEqualTo("Bearer test");
      }
    }
  }
}
