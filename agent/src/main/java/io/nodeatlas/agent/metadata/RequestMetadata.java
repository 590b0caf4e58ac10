package io.nodeatlas.agent.metadata;

import io.nodeatlas.discovery.model.AttributeValue;
import io.nodeatlas.discovery.share.NetworkData;
import java.util.Collections;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.SortedMap;
import java.util.TreeMap;

/**
 * What one request's metadata file says (k8s.io/dynamic-resource-allocation {@code api/metadata}
 * {@code DeviceMetadata} with the one {@code DeviceMetadataRequest} of that request): the claim's
 * identity, the pod's name for a template-generated claim (empty for a claim the pod names directly),
 * the request (with its subrequest, {@code req/sub}, where the allocation names one) and its devices.
 */
public record RequestMetadata(String namespace, String claimName, String claimUid, long generation,
    String podClaimName, String request, List<DeviceEntry> devices) {

  public RequestMetadata {
    podClaimName = podClaimName == null ? "" : podClaimName;
    devices = List.copyOf(devices);
  }

  /**
   * One allocated device ({@code api/metadata} {@code Device}): its attributes as its ResourceSlice
   * publishes them (the format carries no capacities) and, for a network interface, the
   * {@code NetworkDeviceData} the agent knows.
   */
  public record DeviceEntry(String driver, String pool, String name, SortedMap<String, AttributeValue> attributes,
      Optional<NetworkData> networkData) {
    public DeviceEntry {
      attributes = Collections.unmodifiableSortedMap(new TreeMap<>(attributes == null ? Map.of() : attributes));
      networkData = networkData == null ? Optional.empty() : networkData;
    }
  }
}
