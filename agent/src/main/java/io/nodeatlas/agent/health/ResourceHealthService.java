package io.nodeatlas.agent.health;

import com.google.protobuf.InvalidProtocolBufferException;
import io.grpc.BindableService;
import io.grpc.stub.ServerCallStreamObserver;
import io.grpc.stub.StreamObserver;
import io.nodeatlas.agent.kubelet.api.health.v1.DRAResourceHealthGrpc;
import io.nodeatlas.agent.kubelet.api.health.v1.NodeWatchResourcesRequest;
import io.nodeatlas.agent.kubelet.api.health.v1.NodeWatchResourcesResponse;
import java.util.List;
import java.util.concurrent.CopyOnWriteArrayList;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * The kubelet's device health stream (KEP-4680), served as {@code v1.DRAResourceHealth} (k8s.io/kubelet
 * {@code pkg/apis/dra-health/v1}, Kubernetes 1.37) and, for kubelets of 1.34 to 1.36, as
 * {@code v1alpha1.DRAResourceHealth} ({@code pkg/apis/dra-health/v1alpha1}); both are advertised in
 * {@code supported_versions}, v1 first ({@link #SUPPORTED_VERSIONS}). The kubelet opens
 * {@code NodeWatchResources} once per registered plugin and keeps it; every message lists all of the
 * driver's devices. A new stream gets the latest list at once, then each list {@link DeviceHealthMonitor}
 * sends (on every poll, so the kubelet's {@code health_check_timeout_seconds} never runs out while the
 * agent lives).
 *
 * <p>The two protos are the same schema under two packages (the kubelet's own {@code v1/conversion.go}
 * copies field by field), so a v1alpha1 message is the v1 message's bytes read as v1alpha1, made once
 * per publish. A stream whose reader does not keep up ({@code isReady()} false) skips a message instead
 * of buffering it: the next one carries the whole state again.
 */
public final class ResourceHealthService {

  private static final Logger LOG = LoggerFactory.getLogger(ResourceHealthService.class);

  /** {@code supported_versions} of the v1 service: k8s.io/kubelet {@code dra-health/v1} {@code DRAResourceHealthService}. */
  public static final String V1 = "v1.DRAResourceHealth";
  /** {@code supported_versions} of the v1alpha1 service (kubelets 1.34 to 1.36). */
  public static final String V1ALPHA1 = "v1alpha1.DRAResourceHealth";
  /** What registration advertises for the health stream, newest first (the 1.37 kubelet prefers v1). */
  public static final List<String> SUPPORTED_VERSIONS = List.of(V1, V1ALPHA1);

  /** Streams open at once, per version; the kubelet opens one, a few more cover its reconnects. */
  static final int MAX_STREAMS = 8;

  private final Streams<NodeWatchResourcesResponse> v1 = new Streams<>("v1");
  private final Streams<io.nodeatlas.agent.kubelet.api.health.v1alpha1.NodeWatchResourcesResponse> v1alpha1 =
      new Streams<>("v1alpha1");

  /** The gRPC services to serve on the DRA socket: v1 and v1alpha1. */
  public List<BindableService> services() {
    return List.of(new DRAResourceHealthGrpc.DRAResourceHealthImplBase() {
      @Override
      public void nodeWatchResources(NodeWatchResourcesRequest request, StreamObserver<NodeWatchResourcesResponse> response) {
        v1.open(response);
      }
    }, new io.nodeatlas.agent.kubelet.api.health.v1alpha1.DRAResourceHealthGrpc.DRAResourceHealthImplBase() {
      @Override
      public void nodeWatchResources(io.nodeatlas.agent.kubelet.api.health.v1alpha1.NodeWatchResourcesRequest request,
          StreamObserver<io.nodeatlas.agent.kubelet.api.health.v1alpha1.NodeWatchResourcesResponse> response) {
        v1alpha1.open(response);
      }
    });
  }

  /** Sends {@code message} to every open stream of either version and keeps it for streams opened later. */
  public void publish(NodeWatchResourcesResponse message) {
    v1.publish(message);
    try {
      v1alpha1.publish(io.nodeatlas.agent.kubelet.api.health.v1alpha1.NodeWatchResourcesResponse.parseFrom(message.toByteString()));
    } catch (InvalidProtocolBufferException e) {
      throw new IllegalStateException("the v1 and v1alpha1 health messages differ: " + e.getMessage(), e);
    }
  }

  /** Ends every stream (the agent stops): the kubelet reconnects to the next instance. */
  public void shutdown() {
    v1.shutdown();
    v1alpha1.shutdown();
  }

  /** Open streams of both versions, for tests and metrics. */
  public int streams() {
    return v1.streams.size() + v1alpha1.streams.size();
  }

  /** The open streams of one version and the latest message sent on them. */
  private static final class Streams<M> {
    private final String version;
    private final List<ServerCallStreamObserver<M>> streams = new CopyOnWriteArrayList<>();
    private volatile M latest;

    Streams(String version) {
      this.version = version;
    }

    void open(StreamObserver<M> response) {
      ServerCallStreamObserver<M> stream = (ServerCallStreamObserver<M>) response;
      if (streams.size() >= MAX_STREAMS) {
        stream.onError(io.grpc.Status.RESOURCE_EXHAUSTED.withDescription("too many health streams open").asRuntimeException());
        return;
      }
      stream.setOnCancelHandler(() -> streams.remove(stream));
      streams.add(stream);
      LOG.info("the kubelet watches device health version={} streams={}", version, streams.size());
      M now = latest;
      if (now != null) {
        send(stream, now);
      }
    }

    void publish(M message) {
      latest = message;
      for (ServerCallStreamObserver<M> s : streams) {
        if (s.isCancelled()) {
          streams.remove(s);
        } else if (s.isReady()) {
          send(s, message);
        }
      }
    }

    private void send(ServerCallStreamObserver<M> stream, M message) {
      synchronized (stream) {
        try {
          stream.onNext(message);
        } catch (RuntimeException e) {
          streams.remove(stream);
          LOG.debug("health stream closed version={} err=\"{}\"", version, e.toString());
        }
      }
    }

    void shutdown() {
      for (ServerCallStreamObserver<M> s : streams) {
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
  }
}
