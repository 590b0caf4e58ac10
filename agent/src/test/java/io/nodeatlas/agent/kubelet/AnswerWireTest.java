package io.nodeatlas.agent.kubelet;

import static org.assertj.core.api.Assertions.assertThat;

import io.nodeatlas.agent.claims.PreparedDevice;
import io.nodeatlas.agent.kubelet.api.dra.v1.Device;
import io.nodeatlas.agent.kubelet.api.dra.v1.NodePrepareResourceResponse;
import io.nodeatlas.agent.kubelet.api.dra.v1.NodePrepareResourcesResponse;
import io.nodeatlas.agent.kubelet.api.dra.v1.NodeUnprepareResourceResponse;
import io.nodeatlas.agent.kubelet.api.dra.v1.NodeUnprepareResourcesResponse;
import java.util.List;
import java.util.Map;
import org.junit.jupiter.api.Test;

/** The answers' wire bytes read by the generated v1 and v1beta1 messages, as the kubelet reads them. */
class AnswerWireTest {

  private static final PreparedDevice GPU = new PreparedDevice(List.of("gpu", "extra"), "node-a", "gpu-0",
      List.of("nodeatlas.io/claim=uid-1-gpu-0", "nodeatlas.io/claim=uid-1-metadata_gpu"));
  private static final PreparedDevice SHARE = new PreparedDevice(List.of("share"), "node-a", "gpu-1",
      List.of("nodeatlas.io/claim=uid-1-gpu-1"), "6f1c2a7e-share", Map.of("memory", "4Gi"), null);

  @Test
  void preparedClaimsReadAsTheGeneratedMessagesWriteThem() throws Exception {
    AnswerWire.Claims claims = new AnswerWire.Claims();
    claims.prepared("uid-1", "", List.of(GPU, SHARE));
    claims.prepared("uid-2", "claim uid-2 not found: check that it exists", List.of());
    claims.prepared("", "claim without UID", List.of());

    NodePrepareResourcesResponse read = NodePrepareResourcesResponse.parseFrom(claims.toBytes());

    NodePrepareResourcesResponse expected = NodePrepareResourcesResponse.newBuilder()
        .putClaims("uid-1", NodePrepareResourceResponse.newBuilder()
            .addDevices(Device.newBuilder().addRequestNames("gpu").addRequestNames("extra").setPoolName("node-a")
                .setDeviceName("gpu-0").addCdiDeviceIds("nodeatlas.io/claim=uid-1-gpu-0")
                .addCdiDeviceIds("nodeatlas.io/claim=uid-1-metadata_gpu"))
            .addDevices(Device.newBuilder().addRequestNames("share").setPoolName("node-a").setDeviceName("gpu-1")
                .addCdiDeviceIds("nodeatlas.io/claim=uid-1-gpu-1").setShareId("6f1c2a7e-share"))
            .build())
        .putClaims("uid-2", NodePrepareResourceResponse.newBuilder()
            .setError("claim uid-2 not found: check that it exists").build())
        .putClaims("", NodePrepareResourceResponse.newBuilder().setError("claim without UID").build())
        .build();
    assertThat(read).isEqualTo(expected);
    assertThat(read.getUnknownFields().asMap()).isEmpty();
    assertThat(read.getClaimsOrThrow("uid-1").getDevices(0).hasShareId()).as("an exclusive device has no share_id").isFalse();
    assertThat(read.getClaimsOrThrow("uid-1").getDevices(1).hasShareId()).isTrue();
  }

  @Test
  void aLaterAnswerForTheSameUidReplacesTheEarlierOne() throws Exception {
    AnswerWire.Claims claims = new AnswerWire.Claims();
    claims.prepared("uid-1", "not valid", List.of());
    claims.prepared("uid-1", "", List.of(GPU));

    NodePrepareResourcesResponse read = NodePrepareResourcesResponse.parseFrom(claims.toBytes());

    assertThat(read.getClaimsMap()).containsOnlyKeys("uid-1");
    assertThat(read.getClaimsOrThrow("uid-1").getError()).isEmpty();
    assertThat(read.getClaimsOrThrow("uid-1").getDevicesList()).hasSize(1);
  }

  @Test
  void unpreparedClaimsReadAsTheGeneratedMessagesWriteThem() throws Exception {
    AnswerWire.Claims claims = new AnswerWire.Claims();
    claims.unprepared("uid-1", "");
    claims.unprepared("uid-2", "cannot remove the CDI spec: read-only file system");

    NodeUnprepareResourcesResponse read = NodeUnprepareResourcesResponse.parseFrom(claims.toBytes());

    assertThat(read).isEqualTo(NodeUnprepareResourcesResponse.newBuilder()
        .putClaims("uid-1", NodeUnprepareResourceResponse.getDefaultInstance())
        .putClaims("uid-2", NodeUnprepareResourceResponse.newBuilder()
            .setError("cannot remove the CDI spec: read-only file system").build())
        .build());
  }

  @Test
  void anAnswerWithoutClaimsIsTheEmptyMessage() throws Exception {
    assertThat(new AnswerWire.Claims().toBytes()).isEmpty();
    assertThat(NodePrepareResourcesResponse.parseFrom(new AnswerWire.Claims().toBytes()).getClaimsMap()).isEmpty();
  }

  @Test
  void aV1beta1KubeletReadsTheSameAnswerAndSkipsTheShareId() throws Exception {
    AnswerWire.Claims claims = new AnswerWire.Claims();
    claims.prepared("uid-1", "", List.of(GPU, SHARE));

    var read = io.nodeatlas.agent.kubelet.api.dra.v1beta1.NodePrepareResourcesResponse.parseFrom(claims.toBytes());

    var devices = read.getClaimsOrThrow("uid-1").getDevicesList();
    assertThat(devices).extracting(io.nodeatlas.agent.kubelet.api.dra.v1beta1.Device::getDeviceName)
        .containsExactly("gpu-0", "gpu-1");
    assertThat(devices.get(1).getCdiDeviceIdsList()).containsExactly("nodeatlas.io/claim=uid-1-gpu-1");
  }
}
