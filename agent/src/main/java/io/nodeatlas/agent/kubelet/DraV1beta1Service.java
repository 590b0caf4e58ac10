package io.nodeatlas.agent.kubelet;

import io.grpc.BindableService;
import io.grpc.ServerServiceDefinition;
import io.grpc.stub.ServerCalls;
import io.nodeatlas.agent.kubelet.api.dra.v1beta1.DRAPluginGrpc;

/**
 * {@code k8s.io.kubelet.pkg.apis.dra.v1beta1.DRAPlugin}, for kubelets that pick v1beta1. The v1beta1
 * messages are the v1 messages without {@code Device.share_id} (field 5), with the same field numbers
 * (kubelet DRA plugin API {@code v1beta1} and {@code v1}), so a request is read as v1 and served by
 * {@link DraV1Service}, whose answer is sent as it is: a v1beta1 kubelet skips field 5 as unknown.
 */
final class DraV1beta1Service implements BindableService {

  private final DraV1Service v1;

  DraV1beta1Service(DraV1Service v1) {
    this.v1 = v1;
  }

  @Override
  public ServerServiceDefinition bindService() {
    return ServerServiceDefinition.builder(DRAPluginGrpc.SERVICE_NAME)
        .addMethod(AnswerWire.answering(DRAPluginGrpc.getNodePrepareResourcesMethod(),
                io.nodeatlas.agent.kubelet.api.dra.v1.DRAPluginGrpc.getNodePrepareResourcesMethod()),
            ServerCalls.asyncUnaryCall((request, response) -> v1.answer(response, () -> v1.prepare(request))))
        .addMethod(AnswerWire.answering(DRAPluginGrpc.getNodeUnprepareResourcesMethod(),
                io.nodeatlas.agent.kubelet.api.dra.v1.DRAPluginGrpc.getNodeUnprepareResourcesMethod()),
            ServerCalls.asyncUnaryCall((request, response) -> v1.answer(response, () -> v1.unprepare(request))))
        .build();
  }
}
