package io.nodeatlas.agent.kubelet;

import com.google.protobuf.InvalidProtocolBufferException;
import io.grpc.Status;
import io.grpc.StatusRuntimeException;
import io.grpc.stub.StreamObserver;
import io.nodeatlas.agent.kubelet.api.dra.v1.NodePrepareResourcesRequest;
import io.nodeatlas.agent.kubelet.api.dra.v1.NodeUnprepareResourcesRequest;
import io.nodeatlas.agent.kubelet.api.dra.v1beta1.DRAPluginGrpc;
import io.nodeatlas.agent.kubelet.api.dra.v1beta1.NodePrepareResourcesResponse;
import io.nodeatlas.agent.kubelet.api.dra.v1beta1.NodeUnprepareResourcesResponse;

/**
 * {@code k8s.io.kubelet.pkg.apis.dra.v1beta1.DRAPlugin}, for kubelets that pick v1beta1. The v1beta1
 * messages are the v1 messages without {@code Device.share_id} (field 5), with the same field
 * numbers (kubelet DRA plugin API {@code v1beta1} and {@code v1}), so a request is re-read as v1 and served by {@link DraV1Service}, and the
 * answer re-read as v1beta1: one translation of claims, not two. We never set {@code share_id}, so
 * nothing is lost on the way back.
 */
final class DraV1beta1Service extends DRAPluginGrpc.DRAPluginImplBase {

  private final DraV1Service v1;

  DraV1beta1Service(DraV1Service v1) {
    this.v1 = v1;
  }

  @Override
  public void nodePrepareResources(io.nodeatlas.agent.kubelet.api.dra.v1beta1.NodePrepareResourcesRequest request,
      StreamObserver<NodePrepareResourcesResponse> response) {
    v1.answer(response, () -> {
      try {
        NodePrepareResourcesRequest asV1 = NodePrepareResourcesRequest.parseFrom(request.toByteString());
        return NodePrepareResourcesResponse.parseFrom(v1.prepare(asV1).toByteString());
      } catch (InvalidProtocolBufferException e) {
        throw disagree(e);
      }
    });
  }

  @Override
  public void nodeUnprepareResources(io.nodeatlas.agent.kubelet.api.dra.v1beta1.NodeUnprepareResourcesRequest request,
      StreamObserver<NodeUnprepareResourcesResponse> response) {
    v1.answer(response, () -> {
      try {
        NodeUnprepareResourcesRequest asV1 = NodeUnprepareResourcesRequest.parseFrom(request.toByteString());
        return NodeUnprepareResourcesResponse.parseFrom(v1.unprepare(asV1).toByteString());
      } catch (InvalidProtocolBufferException e) {
        throw disagree(e);
      }
    });
  }

  private static StatusRuntimeException disagree(InvalidProtocolBufferException e) {
    return Status.INTERNAL.withDescription("v1beta1 and v1 messages disagree: " + e.getMessage()).asRuntimeException();
  }
}
