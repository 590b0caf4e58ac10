package io.nodeatlas.agent.run;

import io.fabric8.kubernetes.client.KubernetesClient;
import io.nodeatlas.agent.api.ApiConnection;
import io.nodeatlas.agent.api.Fabric8SliceApi;
import io.nodeatlas.agent.api.HttpSliceApi;
import io.nodeatlas.agent.api.SliceApi;
import io.nodeatlas.agent.claims.ApiClaimLookup;
import io.nodeatlas.agent.claims.ClaimLookup;
import io.nodeatlas.agent.kubeconfig.KubeconfigAuth;
import java.util.function.Supplier;

/**
 * The agent's ways to the API server: the ResourceSlice calls and the claim GET on the agent's own
 * client where the kubeconfig allows it (docs/design/api-client.md), and fabric8's client for the rare
 * paths that still use it (claims of an earlier boot, {@code --recover}, network status of a claim),
 * built on first use only. With fabric8's client alone (a kubeconfig only fabric8 serves, and tests), all
 * go through it.
 */
public final class ApiAccess implements AutoCloseable {

  private final SliceApi slices;
  private final ClaimLookup claims;
  private final String server;
  private final String credentials;
  private final Supplier<KubernetesClient> fabric8;
  private final Object lock = new Object();
  private volatile KubernetesClient client;

  private ApiAccess(SliceApi slices, ClaimLookup claims, String server, String credentials, Supplier<KubernetesClient> fabric8,
      KubernetesClient client) {
    this.slices = slices;
    this.claims = claims;
    this.server = server;
    this.credentials = credentials;
    this.fabric8 = fabric8;
    this.client = client;
  }

  /** Everything through fabric8's {@code client}. */
  public static ApiAccess of(KubernetesClient client) {
    Object described = client.getConfiguration().getAdditionalProperties().get(KubeconfigAuth.CREDENTIALS);
    return new ApiAccess(new Fabric8SliceApi(client), new ApiClaimLookup(client), client.getMasterUrl().toString(),
        described instanceof String d ? d : "the client configuration", () -> client, client);
  }

  /** Slices and claim GETs on {@code api}; fabric8's client from {@code fabric8} when a rare path needs it. */
  public static ApiAccess own(ApiConnection api, String credentials, Supplier<KubernetesClient> fabric8) {
    return new ApiAccess(new HttpSliceApi(api), new ApiClaimLookup(api, credentials, ApiClaimLookup.Limits.DEFAULT),
        api.base() + "/", credentials, fabric8, null);
  }

  public SliceApi slices() {
    return slices;
  }

  public ClaimLookup claims() {
    return claims;
  }

  /** The API server's URL. */
  public String server() {
    return server;
  }

  /** Where the credentials come from, for messages. */
  public String credentials() {
    return credentials;
  }

  /** fabric8's client, built now if it was not yet. */
  public KubernetesClient fabric8() {
    KubernetesClient c = client;
    if (c != null) {
      return c;
    }
    synchronized (lock) {
      if (client == null) {
        client = fabric8.get();
      }
      return client;
    }
  }

  /** Closes fabric8's client when this built it. */
  @Override
  public void close() {
    KubernetesClient c = client;
    if (c != null && !(slices instanceof Fabric8SliceApi)) {
      c.close();
    }
  }
}
