package io.nodeatlas.agent.claims;

import static org.assertj.core.api.Assertions.assertThat;

import io.fabric8.kubernetes.client.Config;
import io.fabric8.kubernetes.client.ConfigBuilder;
import io.fabric8.kubernetes.client.KubernetesClient;
import io.fabric8.kubernetes.client.KubernetesClientBuilder;
import io.fabric8.kubernetes.client.jdkhttp.JdkHttpClientFactory;
import java.util.Optional;
import java.util.function.UnaryOperator;
import org.junit.jupiter.api.Test;

/**
 * Which client configurations the claim GET serves on the calling thread, and which it leaves to
 * fabric8's client (what each way then does is {@link ApiClaimLookupTest}'s).
 */
class BlockingClaimGetTest {

  @Test
  void takesPlainAndVerifiedTlsConnectionsWithAnyCredentials() {
    assertThat(way(b -> b.withMasterUrl("http://127.0.0.1:6443"))).isPresent();
    assertThat(way(b -> b.withMasterUrl("https://127.0.0.1:6443").withOauthToken("t"))).isPresent();
    assertThat(way(b -> b.withMasterUrl("https://api.example:6443").withUsername("u").withPassword("p"))).isPresent();
    assertThat(way(b -> b.withMasterUrl("https://api.example:6443").withImpersonateUsername("someone"))).isPresent();
  }

  @Test
  void leavesProxiesAndUncheckedTlsToFabric8sClient() {
    assertThat(way(b -> b.withMasterUrl("http://127.0.0.1:6443").withHttpProxy("http://proxy:3128"))).isEmpty();
    assertThat(way(b -> b.withMasterUrl("https://127.0.0.1:6443").withHttpsProxy("http://proxy:3128"))).isEmpty();
    assertThat(way(b -> b.withMasterUrl("https://127.0.0.1:6443").withTrustCerts(true))).isEmpty();
    assertThat(way(b -> b.withMasterUrl("https://127.0.0.1:6443").withDisableHostnameVerification(true))).isEmpty();
    assertThat(way(b -> b.withMasterUrl("https://127.0.0.1:6443").withTlsServerName("api.internal"))).isEmpty();
  }

  private static Optional<ClaimGet> way(UnaryOperator<ConfigBuilder> settings) {
    Config config = settings.apply(new ConfigBuilder(Config.empty())).build();
    try (KubernetesClient client = new KubernetesClientBuilder().withConfig(config)
        .withHttpClientFactory(new JdkHttpClientFactory()).build()) {
      return BlockingClaimGet.of(config, config.getRequestConfig(),
          new JdkHttpClientFactory(), client.getHttpClient(), 5_000_000_000L, 1 << 20);
    }
  }
}
