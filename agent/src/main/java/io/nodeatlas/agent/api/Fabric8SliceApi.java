package io.nodeatlas.agent.api;

import io.fabric8.kubernetes.api.model.Node;
import io.fabric8.kubernetes.api.model.resource.v1.ResourceSlice;
import io.fabric8.kubernetes.client.KubernetesClient;
import io.fabric8.kubernetes.client.KubernetesClientException;
import io.fabric8.kubernetes.client.Watcher;
import io.fabric8.kubernetes.client.WatcherException;
import io.nodeatlas.agent.ops.ApiErrors;
import java.util.List;
import java.util.Map;
import java.util.Optional;

/**
 * {@link SliceApi} on fabric8's client: for a kubeconfig that needs what only fabric8 serves
 * ({@code KubeconfigConnection}), and for tests that hand the agent fabric8's mock client. Failures read
 * as {@link HttpSliceApi}'s do ({@link ApiErrors}' lines); the watch is fabric8's.
 */
public final class Fabric8SliceApi implements SliceApi {

  private final KubernetesClient client;

  public Fabric8SliceApi(KubernetesClient client) {
    this.client = client;
  }

  @Override
  public String server() {
    return client.getMasterUrl().toString();
  }

  @Override
  public Listed list(Map<String, String> labels) throws ApiException {
    try {
      var l = client.resources(ResourceSlice.class).withLabels(labels).list();
      return new Listed(l.getItems() == null ? List.of() : List.copyOf(l.getItems()),
          l.getMetadata() == null ? null : l.getMetadata().getResourceVersion());
    } catch (KubernetesClientException e) {
      throw failure(e);
    }
  }

  @Override
  public ResourceSlice create(ResourceSlice slice) throws ApiException {
    try {
      return client.resource(slice).create();
    } catch (KubernetesClientException e) {
      throw failure(e);
    }
  }

  @Override
  public ResourceSlice update(ResourceSlice slice) throws ApiException {
    try {
      return client.resource(slice).update();
    } catch (KubernetesClientException e) {
      throw failure(e);
    }
  }

  @Override
  public void delete(String name) throws ApiException {
    try {
      client.resources(ResourceSlice.class).withName(name).delete();
    } catch (KubernetesClientException e) {
      throw failure(e);
    }
  }

  @Override
  public Optional<String> nodeUid(String name) throws ApiException {
    try {
      Node node = client.nodes().withName(name).get();
      return node == null ? Optional.empty() : Optional.ofNullable(node.getMetadata().getUid());
    } catch (KubernetesClientException e) {
      throw failure(e);
    }
  }

  @Override
  public Watch watch(Map<String, String> labels, Listener listener) {
    io.fabric8.kubernetes.client.Watch w = client.resources(ResourceSlice.class).withLabels(labels).watch(new Watcher<>() {
      @Override
      public void eventReceived(Action action, ResourceSlice resource) {
        if (action == Action.DELETED) {
          listener.deleted(resource.getMetadata().getName());
        }
      }

      @Override
      public void onClose(WatcherException cause) {
        listener.closed(new ApiException(0, null, ApiErrors.describe(cause, client.getMasterUrl()), cause));
      }
    });
    return w::close;
  }

  private ApiException failure(KubernetesClientException e) {
    return new ApiException(Math.max(e.getCode(), 0), e.getStatus() == null ? null : e.getStatus().getReason(),
        ApiErrors.describe(e, client.getMasterUrl()), e);
  }
}
