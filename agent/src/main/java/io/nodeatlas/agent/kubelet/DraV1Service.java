package io.nodeatlas.agent.kubelet;

import io.grpc.Context;
import io.grpc.Deadline;
import io.grpc.stub.StreamObserver;
import io.nodeatlas.agent.claims.CallBudget;
import io.nodeatlas.agent.claims.ClaimPreparer;
import io.nodeatlas.agent.claims.ClaimRef;
import io.nodeatlas.agent.claims.ClaimResult;
import io.nodeatlas.agent.claims.PreparedDevice;
import io.nodeatlas.agent.kubelet.api.dra.v1.Claim;
import io.nodeatlas.agent.kubelet.api.dra.v1.DRAPluginGrpc;
import io.nodeatlas.agent.kubelet.api.dra.v1.Device;
import io.nodeatlas.agent.kubelet.api.dra.v1.NodePrepareResourceResponse;
import io.nodeatlas.agent.kubelet.api.dra.v1.NodePrepareResourcesRequest;
import io.nodeatlas.agent.kubelet.api.dra.v1.NodePrepareResourcesResponse;
import io.nodeatlas.agent.kubelet.api.dra.v1.NodeUnprepareResourceResponse;
import io.nodeatlas.agent.kubelet.api.dra.v1.NodeUnprepareResourcesRequest;
import io.nodeatlas.agent.kubelet.api.dra.v1.NodeUnprepareResourcesResponse;
import java.time.Duration;
import java.util.List;
import java.util.Map;
import java.util.concurrent.TimeUnit;
import java.util.function.Function;

/**
 * {@code k8s.io.kubelet.pkg.apis.dra.v1.DRAPlugin}. Only translates; the work is
 * in {@link ClaimPreparer}. A claim without UID fails that claim, never the whole call (an RPC error
 * would make the kubelet drop every claim's answer).
 *
 * <p>Each call gets a {@link CallBudget} from its gRPC deadline (the kubelet's DRA plugin client sets
 * 45 s on every NodePrepareResources / NodeUnprepareResources), less a margin for the answer to travel,
 * and at most {@link ClaimPreparer#DEFAULT_CALL_BUDGET}: the answer leaves before the kubelet gives up,
 * with an error for each claim not done by then. A call the kubelet cancels (or whose deadline passes)
 * abandons its budget at once, so no claim of it is started or carried on afterwards.
 */
final class DraV1Service extends DRAPluginGrpc.DRAPluginImplBase {

  private final ClaimPreparer preparer;

  DraV1Service(ClaimPreparer preparer) {
    this.preparer = preparer;
  }

  @Override
  public void nodePrepareResources(NodePrepareResourcesRequest request,
      StreamObserver<NodePrepareResourcesResponse> response) {
    response.onNext(prepare(request));
    response.onCompleted();
  }

  @Override
  public void nodeUnprepareResources(NodeUnprepareResourcesRequest request,
      StreamObserver<NodeUnprepareResourcesResponse> response) {
    response.onNext(unprepare(request));
    response.onCompleted();
  }

  /** The answer's margin before the caller's deadline: a tenth of the time left, at most 2 s. */
  static final Duration ANSWER_MARGIN = Duration.ofSeconds(2);

  /** Runs {@code work} with the budget of the current gRPC call. */
  static <T> T withBudget(Function<CallBudget, T> work) {
    Context context = Context.current();
    long nanos = ClaimPreparer.DEFAULT_CALL_BUDGET.toNanos();
    Deadline deadline = context.getDeadline();
    if (deadline != null) {
      long left = deadline.timeRemaining(TimeUnit.NANOSECONDS);
      nanos = Math.min(nanos, left - Math.min(ANSWER_MARGIN.toNanos(), left / 10));
    }
    CallBudget budget = CallBudget.after(Duration.ofNanos(Math.max(0, nanos)));
    Context.CancellationListener cancelled = c -> budget.abandon(
        c.getDeadline() != null && c.getDeadline().isExpired() ? "the kubelet's deadline passed" : "the kubelet cancelled the call");
    context.addListener(cancelled, Runnable::run);
    try {
      return work.apply(budget);
    } finally {
      context.removeListener(cancelled);
    }
  }

  NodePrepareResourcesResponse prepare(NodePrepareResourcesRequest request) {
    NodePrepareResourcesResponse.Builder out = NodePrepareResourcesResponse.newBuilder();
    List<ClaimRef> refs = KubeletClaims.valid(request.getClaimsList(), Claim::getNamespace, Claim::getName, Claim::getUid,
        (uid, error) -> out.putClaims(uid, NodePrepareResourceResponse.newBuilder().setError(error).build()));
    Map<String, ClaimResult> results = withBudget(budget -> preparer.prepare(refs, budget));
    for (Map.Entry<String, ClaimResult> e : results.entrySet()) {
      NodePrepareResourceResponse.Builder r = NodePrepareResourceResponse.newBuilder().setError(e.getValue().error());
      for (PreparedDevice d : e.getValue().devices()) {
        Device.Builder device = Device.newBuilder().addAllRequestNames(d.requestNames()).setPoolName(d.pool())
            .setDeviceName(d.device()).addAllCdiDeviceIds(d.cdiDeviceIds());
        if (d.isShare()) {
          // v1 Device.share_id (field 5, kubelet 1.35+, KEP-5075): which share of a multiply allocated device this is.
          device.setShareId(d.shareId());
        }
        r.addDevices(device);
      }
      out.putClaims(e.getKey(), r.build());
    }
    return out.build();
  }

  NodeUnprepareResourcesResponse unprepare(NodeUnprepareResourcesRequest request) {
    NodeUnprepareResourcesResponse.Builder out = NodeUnprepareResourcesResponse.newBuilder();
    List<ClaimRef> refs = KubeletClaims.valid(request.getClaimsList(), Claim::getNamespace, Claim::getName, Claim::getUid,
        (uid, error) -> out.putClaims(uid, NodeUnprepareResourceResponse.newBuilder().setError(error).build()));
    withBudget(budget -> preparer.unprepare(refs, budget)).forEach((uid, error) ->
        out.putClaims(uid, NodeUnprepareResourceResponse.newBuilder().setError(error).build()));
    return out.build();
  }
}
