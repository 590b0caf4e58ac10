package io.nodeatlas.agent.testing;

import io.grpc.ManagedChannel;
import io.grpc.netty.shaded.io.netty.channel.EventLoopGroup;
import io.nodeatlas.agent.kubelet.UnixSocketServers;
import io.nodeatlas.agent.kubelet.api.dra.v1.Claim;
import io.nodeatlas.agent.kubelet.api.dra.v1.DRAPluginGrpc;
import io.nodeatlas.agent.kubelet.api.dra.v1.NodePrepareResourcesRequest;
import io.nodeatlas.agent.kubelet.api.dra.v1.NodePrepareResourcesResponse;
import io.nodeatlas.agent.kubelet.api.dra.v1.NodeUnprepareResourcesRequest;
import io.nodeatlas.agent.kubelet.api.dra.v1.NodeUnprepareResourcesResponse;
import io.nodeatlas.agent.kubelet.api.registration.RegistrationGrpc;
import java.nio.file.Path;
import java.util.concurrent.TimeUnit;

/** Plays the kubelet: dials the plugin's unix sockets exactly as kubelet does (plaintext HTTP/2). */
public final class FakeKubelet implements AutoCloseable {

  private final EventLoopGroup group = UnixSocketServers.newEventLoopGroup(2);
  private final ManagedChannel registration;
  private final ManagedChannel dra;

  public FakeKubelet(Path registrationSocket, Path draSocket) {
    registration = UnixSocketServers.channel(registrationSocket, group);
    dra = UnixSocketServers.channel(draSocket, group);
  }

  public RegistrationGrpc.RegistrationBlockingStub registration() {
    return RegistrationGrpc.newBlockingStub(registration).withDeadlineAfter(1, TimeUnit.SECONDS);
  }

  public DRAPluginGrpc.DRAPluginBlockingStub v1() {
    return DRAPluginGrpc.newBlockingStub(dra).withDeadlineAfter(45, TimeUnit.SECONDS);
  }

  public io.nodeatlas.agent.kubelet.api.dra.v1beta1.DRAPluginGrpc.DRAPluginBlockingStub v1beta1() {
    return io.nodeatlas.agent.kubelet.api.dra.v1beta1.DRAPluginGrpc.newBlockingStub(dra)
        .withDeadlineAfter(45, TimeUnit.SECONDS);
  }

  public static Claim claim(String namespace, String name, String uid) {
    return Claim.newBuilder().setNamespace(namespace).setName(name).setUid(uid).build();
  }

  public NodePrepareResourcesResponse prepare(Claim... claims) {
    return v1().nodePrepareResources(NodePrepareResourcesRequest.newBuilder().addAllClaims(java.util.List.of(claims)).build());
  }

  public NodeUnprepareResourcesResponse unprepare(Claim... claims) {
    return v1().nodeUnprepareResources(
        NodeUnprepareResourcesRequest.newBuilder().addAllClaims(java.util.List.of(claims)).build());
  }

  @Override
  public void close() throws InterruptedException {
    registration.shutdownNow().awaitTermination(2, TimeUnit.SECONDS);
    dra.shutdownNow().awaitTermination(2, TimeUnit.SECONDS);
    group.shutdownGracefully(0, 1, TimeUnit.SECONDS).await(2, TimeUnit.SECONDS);
  }
}
