package io.nodeatlas.agent.slices;

import io.fabric8.kubernetes.client.server.mock.EnableKubernetesMockClient;
import io.nodeatlas.agent.api.ApiConnection;
import io.nodeatlas.agent.api.HttpSliceApi;
import java.net.URI;

/** Every publisher test again, with the publisher on the agent's own client ({@link HttpSliceApi}) instead of fabric8's. */
@EnableKubernetesMockClient(https = false, crud = true)
class ResourceSlicePublisherOwnClientTest extends ResourceSlicePublisherTest {

  @Override
  ResourceSlicePublisher publisher(String node) {
    return new ResourceSlicePublisher(new HttpSliceApi(new ApiConnection(URI.create(client.getConfiguration().getMasterUrl()),
        null, null, () -> "test", ApiConnection.Limits.DEFAULT)), DRIVER, node);
  }
}
