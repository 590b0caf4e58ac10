package io.nodeatlas.agent.health;

import io.grpc.stub.ServerCallStreamObserver;
import io.grpc.stub.StreamObserver;
import io.nodeatlas.agent.kubelet.api.health.v1alpha1.DRAResourceHealthGrpc;
import io.nodeatlas.agent.kubelet.api.health.v1alpha1.NodeWatchResourcesRequest;
import io.nodeatlas.agent.kubelet.api.health.v1alpha1.NodeWatchResourcesResponse;
import java.util.List;
import java.util.concurrent.CopyOnWriteArrayList;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * {@code v1alpha1.DRAResourceHealth} (KEP-4680, the kubelet's {@code dra-health/v1alpha1} proto): the
 * kubelet opens {@code NodeWatchResources} once per registered plugin and keeps it; every message
 * lists all of the driver's devices ({@code NodeWatchResourcesResponse.devices}). A new stream gets the
 * latest list at once, then each list {@link DeviceHealthMonitor} sends (on every poll, so the kubelet's
 * {@code health_check_timeout_seconds} never runs out while the agent lives).
 *
 * <p>A stream whose reader does not keep up ({@code isReady()} false) skips a message instead of
 * buffering it: the next one carries the whole state again.
 */
public final class ResourceHealthService extends DRAResourceHealthGrpc.DRAResourceHealthImplBase {

  private static final Logger LOG = LoggerFactory.getLogger(ResourceHealthService.class);

  /** What {@code supported_versions} advertises for this service (DRALIB {@code DRAResourceHealth} v1alpha1). */
  public static final String SUPPORTED_VERSION = "v1alpha1.DRAResourceHealth";

  /** Streams open at once; the kubelet opens one, a few more cover its reconnects. */
  static final int MAX_STREAMS = 8;

  private final List<ServerCallStreamObserver<NodeWatchResourcesResponse>> streams = new CopyOnWriteArrayList<>();
  private volatile NodeWatchResourcesResponse latest;

  @Override
  public void nodeWatchResources(NodeWatchResourcesRequest request, StreamObserver<NodeWatchResourcesResponse> response) {
    ServerCallStreamObserver<NodeWatchResourcesResponse> stream = (ServerCallStreamObserver<NodeWatchResourcesResponse>) response;
    if (streams.size() >= MAX_STREAMS) {
      stream.onError(io.grpc.Status.RESOURCE_EXHAUSTED.withDescription("too many health streams open").asRuntimeException());
      return;
    }
    stream.setOnCancelHandler(() -> streams.remove(stream));
    streams.add(stream);
    LOG.info("the kubelet watches device health streams={}", streams.size());
    NodeWatchResourcesResponse now = latest;
    if (now != null) {
      send(stream, now);
    }
  }

  /** Sends {@code message} to every open stream and keeps it for streams opened later. */
  public void publish(NodeWatchResourcesResponse message) {
    latest = message;
    for (ServerCallStreamObserver<NodeWatchResourcesResponse> s : streams) {
      if (s.isCancelled()) {
        streams.remove(s);
      } else if (s.isReady()) {
        send(s, message);
      }
    }
  }

  private void send(ServerCallStreamObserver<NodeWatchResourcesResponse> stream, NodeWatchResourcesResponse message) {
    synchronized (stream) {
      try {
        stream.onNext(message);
      } catch (RuntimeException e) {
        streams.remove(stream);
        LOG.debug("health stream closed err=\"{}\"", e.toString());
      }
    }
  }

  /** Ends every stream (the agent stops): the kubelet reconnects to the next instance. */
  public void shutdown() {
    for (ServerCallStreamObserver<NodeWatchResourcesResponse> s : streams) {
      synchronized (s) {
        try {
          s.onCompleted();
        } catch (RuntimeException e) {
          // already gone
        }
      }
    }
    streams.clear();
  }

  /** Open streams, for tests and metrics. */
  public int streams() {
    return streams.size();
  }
}
