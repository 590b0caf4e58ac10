package io.nodeatlas.agent.kubelet;

import io.grpc.stub.StreamObserver;
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
import java.util.List;
import java.util.Map;

/**
 * {@code k8s.io.kubelet.pkg.apis.dra.v1.DRAPlugin}. Only translates; the work is
 * in {@link ClaimPreparer}. A claim without UID fails that claim, never the whole call (an RPC error
 * would make the kubelet drop every claim's answer).
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

  NodePrepareResourcesResponse prepare(NodePrepareResourcesRequest request) {
    NodePrepareResourcesResponse.Builder out = NodePrepareResourcesResponse.newBuilder();
    List<ClaimRef> refs = KubeletClaims.valid(request.getClaimsList(), Claim::getNamespace, Claim::getName, Claim::getUid,
        (uid, error) -> out.putClaims(uid, NodePrepareResourceResponse.newBuilder().setError(error).build()));
    for (Map.Entry<String, ClaimResult> e : preparer.prepare(refs).entrySet()) {
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
    preparer.unprepare(refs).forEach((uid, error) ->
        out.putClaims(uid, NodeUnprepareResourceResponse.newBuilder().setError(error).build()));
    return out.build();
  }
}
