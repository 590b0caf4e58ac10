package io.nodeatlas.agent.kubelet;

import io.grpc.stub.StreamObserver;
import io.nodeatlas.agent.claims.ClaimPreparer;
import io.nodeatlas.agent.claims.ClaimRef;
import io.nodeatlas.agent.claims.ClaimResult;
import io.nodeatlas.agent.claims.PreparedDevice;
import io.nodeatlas.agent.kubelet.api.dra.v1beta1.Claim;
import io.nodeatlas.agent.kubelet.api.dra.v1beta1.DRAPluginGrpc;
import io.nodeatlas.agent.kubelet.api.dra.v1beta1.Device;
import io.nodeatlas.agent.kubelet.api.dra.v1beta1.NodePrepareResourceResponse;
import io.nodeatlas.agent.kubelet.api.dra.v1beta1.NodePrepareResourcesRequest;
import io.nodeatlas.agent.kubelet.api.dra.v1beta1.NodePrepareResourcesResponse;
import io.nodeatlas.agent.kubelet.api.dra.v1beta1.NodeUnprepareResourceResponse;
import io.nodeatlas.agent.kubelet.api.dra.v1beta1.NodeUnprepareResourcesRequest;
import io.nodeatlas.agent.kubelet.api.dra.v1beta1.NodeUnprepareResourcesResponse;
import java.util.List;
import java.util.Map;

/**
 * {@code k8s.io.kubelet.pkg.apis.dra.v1beta1.DRAPlugin} (dra-api.md §1.2; the v1 wire format without share_id, for kubelets that pick v1beta1). Only translates; the work is
 * in {@link ClaimPreparer}. A claim without UID fails that claim, never the whole call (an RPC error
 * would make the kubelet drop every claim's answer).
 */
final class DraV1beta1Service extends DRAPluginGrpc.DRAPluginImplBase {

  private final ClaimPreparer preparer;

  DraV1beta1Service(ClaimPreparer preparer) {
    this.preparer = preparer;
  }

  @Override
  public void nodePrepareResources(NodePrepareResourcesRequest request,
      StreamObserver<NodePrepareResourcesResponse> response) {
    NodePrepareResourcesResponse.Builder out = NodePrepareResourcesResponse.newBuilder();
    List<ClaimRef> refs = KubeletClaims.valid(request.getClaimsList(), Claim::getNamespace, Claim::getName, Claim::getUid,
        (uid, error) -> out.putClaims(uid, NodePrepareResourceResponse.newBuilder().setError(error).build()));
    for (Map.Entry<String, ClaimResult> e : preparer.prepare(refs).entrySet()) {
      NodePrepareResourceResponse.Builder r = NodePrepareResourceResponse.newBuilder().setError(e.getValue().error());
      for (PreparedDevice d : e.getValue().devices()) {
        r.addDevices(Device.newBuilder().addAllRequestNames(d.requestNames()).setPoolName(d.pool())
            .setDeviceName(d.device()).addAllCdiDeviceIds(d.cdiDeviceIds()));
      }
      out.putClaims(e.getKey(), r.build());
    }
    response.onNext(out.build());
    response.onCompleted();
  }

  @Override
  public void nodeUnprepareResources(NodeUnprepareResourcesRequest request,
      StreamObserver<NodeUnprepareResourcesResponse> response) {
    NodeUnprepareResourcesResponse.Builder out = NodeUnprepareResourcesResponse.newBuilder();
    List<ClaimRef> refs = KubeletClaims.valid(request.getClaimsList(), Claim::getNamespace, Claim::getName, Claim::getUid,
        (uid, error) -> out.putClaims(uid, NodeUnprepareResourceResponse.newBuilder().setError(error).build()));
    preparer.unprepare(refs).forEach((uid, error) ->
        out.putClaims(uid, NodeUnprepareResourceResponse.newBuilder().setError(error).build()));
    response.onNext(out.build());
    response.onCompleted();
  }
}
