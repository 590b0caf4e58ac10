package io.nodeatlas.agent.kubelet;

import io.grpc.Status;
import io.grpc.stub.StreamObserver;
import io.nodeatlas.agent.kubelet.api.registration.InfoRequest;
import io.nodeatlas.agent.kubelet.api.registration.PluginInfo;
import io.nodeatlas.agent.kubelet.api.registration.RegistrationGrpc;
import io.nodeatlas.agent.kubelet.api.registration.RegistrationStatus;
import io.nodeatlas.agent.kubelet.api.registration.RegistrationStatusResponse;
import java.util.List;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * {@code pluginregistration.Registration} on the registration socket (kubelet plugin watcher, {@code pluginregistration/v1}). The
 * kubelet gives GetInfo one second, so it answers from fields only.
 */
final class RegistrationService extends RegistrationGrpc.RegistrationImplBase {

  private static final Logger LOG = LoggerFactory.getLogger(RegistrationService.class);

  /** pluginregistration/v1/constants.go {@code DRAPlugin}. */
  static final String PLUGIN_TYPE = "DRAPlugin";

  private final PluginInfo info;
  private final RegistrationState state;

  RegistrationService(String driverName, String endpoint, List<String> supportedVersions, RegistrationState state) {
    this.info = PluginInfo.newBuilder().setType(PLUGIN_TYPE).setName(driverName).setEndpoint(endpoint)
        .addAllSupportedVersions(supportedVersions).build();
    this.state = state;
  }

  @Override
  public void getInfo(InfoRequest request, StreamObserver<PluginInfo> response) {
    response.onNext(info);
    response.onCompleted();
  }

  @Override
  public void notifyRegistrationStatus(RegistrationStatus request, StreamObserver<RegistrationStatusResponse> response) {
    state.record(request.getPluginRegistered(), request.getError());
    if (request.getPluginRegistered()) {
      LOG.info("registered with the kubelet driver={} endpoint={}", info.getName(), info.getEndpoint());
      response.onNext(RegistrationStatusResponse.getDefaultInstance());
      response.onCompleted();
    } else {
      LOG.error("the kubelet refused the registration driver={} err=\"{}\"", info.getName(), request.getError());
      // As the upstream helper does: answering with an error makes the refusal visible in the kubelet's log too.
      response.onError(Status.INTERNAL.withDescription("plugin registration failed: " + request.getError())
          .asRuntimeException());
    }
  }
}
