package io.nodeatlas.agent.status;

import static io.nodeatlas.agent.testing.FakeKubelet.claim;
import static io.nodeatlas.agent.testing.Eventually.await;
import static org.assertj.core.api.Assertions.assertThat;

import io.fabric8.kubernetes.api.model.resource.v1.AllocatedDeviceStatus;
import io.fabric8.kubernetes.api.model.resource.v1.AllocatedDeviceStatusBuilder;
import io.fabric8.kubernetes.api.model.resource.v1.ResourceClaim;
import io.fabric8.kubernetes.client.KubernetesClient;
import io.fabric8.kubernetes.client.KubernetesClientBuilder;
import io.fabric8.kubernetes.client.server.mock.EnableKubernetesMockClient;
import io.nodeatlas.agent.claims.AllocatedDevice;
import io.nodeatlas.agent.claims.ApiClaimLookup;
import io.nodeatlas.agent.claims.Checkpoint;
import io.nodeatlas.agent.claims.ClaimLookup;
import io.nodeatlas.agent.claims.ClaimPreparer;
import io.nodeatlas.agent.claims.ClaimSpecStore;
import io.nodeatlas.agent.claims.DeviceInventory;
import io.nodeatlas.agent.kubelet.KubeletPaths;
import io.nodeatlas.agent.kubelet.KubeletPluginServer;
import io.nodeatlas.agent.kubelet.api.dra.v1.NodePrepareResourcesResponse;
import io.nodeatlas.agent.testing.ApiObjects;
import io.nodeatlas.agent.testing.FakeKubelet;
import io.nodeatlas.agent.testing.TestDevices;
import io.nodeatlas.discovery.model.ContainerEdits;
import io.nodeatlas.discovery.model.Device;
import io.nodeatlas.discovery.model.Names;
import java.nio.file.Path;
import java.time.Duration;
import java.util.List;
import java.util.function.BooleanSupplier;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/** The claim status part of issue 12: networkData (KEP-4817) of prepared network devices, written through status. */
@EnableKubernetesMockClient(crud = true)
class ClaimNetworkStatusTest {

  static final String DRIVER = "nodeatlas.io";
  static final String NODE = "node-a";

  KubernetesClient client;

  @TempDir Path kubeletRoot;
  @TempDir Path cdiRoot;
  @TempDir Path stateDir;

  static Device nic() {
    return Device.builder("nic-0000-03-00-0", "nic-rdma")
        .attribute(Device.TYPE, "nic")
        .attribute(Names.ours("ifName"), "eno1")
        .attribute(Names.ours("mac"), "3c:ec:ef:00:00:01")
        .attribute(Names.ours("uplink"), false)
        .containerEdits(ContainerEdits.builder().netDevice(new ContainerEdits.NetDevice("eno1", "eno1")).build())
        .build();
  }

  private DeviceInventory inventory() {
    DeviceInventory inventory = new DeviceInventory(NODE);
    inventory.replace(List.of(nic(), TestDevices.gpu(0)));
    return inventory;
  }

  private NodePrepareResourcesResponse prepare(DeviceInventory inventory, ClaimLookup lookup, ClaimNetworkStatus status,
      String uid) throws Exception {
    ClaimPreparer preparer = new ClaimPreparer(DRIVER, inventory, lookup, new ClaimSpecStore(cdiRoot),
        Checkpoint.open(stateDir.resolve("checkpoint.json")), ClaimPreparer.Listener.NONE).onPrepared(status::prepared);
    KubeletPaths paths = new KubeletPaths(kubeletRoot, DRIVER);
    KubeletPluginServer server = KubeletPluginServer.start(paths, preparer);
    try (FakeKubelet kubelet = new FakeKubelet(paths.registrationSocket(), paths.draSocket())) {
      return kubelet.prepare(claim("default", "net", uid));
    } finally {
      server.shutdown(1000);
    }
  }

  @Test
  void aPreparedNicGetsItsNetworkDataAndOtherDriversEntriesStay() throws Exception {
    ResourceClaim created = ApiObjects.allocatedClaim(client, "default", "net", List.of(
        ApiObjects.result("nic", DRIVER, NODE, "nic-0000-03-00-0"),
        ApiObjects.result("gpu", DRIVER, NODE, "gpu-0")));
    AllocatedDeviceStatus other = new AllocatedDeviceStatusBuilder().withDriver("other.example.com").withPool("p")
        .withDevice("d").build();
    created.getStatus().setDevices(List.of(other));
    created = client.resource(created).updateStatus();
    String uid = created.getMetadata().getUid();
    DeviceInventory inventory = inventory();
    try (ClaimNetworkStatus status = new ClaimNetworkStatus(client, DRIVER, inventory)) {
      NodePrepareResourcesResponse r = prepare(inventory, new ApiClaimLookup(client), status, uid);
      assertThat(r.getClaimsMap().get(uid).getError()).isEmpty();
      await(() -> devices().size() == 2);
    }
    List<AllocatedDeviceStatus> devices = devices();
    assertThat(devices).filteredOn(d -> d.getDriver().equals("other.example.com")).hasSize(1);
    AllocatedDeviceStatus ours = devices.stream().filter(d -> d.getDriver().equals(DRIVER)).findFirst().orElseThrow();
    assertThat(ours.getPool()).isEqualTo(NODE);
    assertThat(ours.getDevice()).isEqualTo("nic-0000-03-00-0");
    assertThat(ours.getNetworkData().getInterfaceName()).isEqualTo("eno1");
    assertThat(ours.getNetworkData().getHardwareAddress()).isEqualTo("3c:ec:ef:00:00:01");
    assertThat(ours.getNetworkData().getIps()).isNullOrEmpty();
    // No entry for the GPU: it has no network interface.
    assertThat(devices).noneMatch(d -> "gpu-0".equals(d.getDevice()));
  }

  @Test
  void aStatusWriteThatFailsDoesNotFailPrepare() throws Exception {
    DeviceInventory inventory = inventory();
    ClaimLookup lookup = c -> List.of(new AllocatedDevice("nic", DRIVER, NODE, "nic-0000-03-00-0", false));
    // An API server that is not there: the status write fails, Prepare answers anyway.
    try (KubernetesClient down = new KubernetesClientBuilder().withConfig(new io.fabric8.kubernetes.client.ConfigBuilder()
            .withMasterUrl("http://127.0.0.1:9").withRequestRetryBackoffLimit(0).withConnectionTimeout(1000).build()).build();
        ClaimNetworkStatus status = new ClaimNetworkStatus(down, DRIVER, inventory)) {
      NodePrepareResourcesResponse r = prepare(inventory, lookup, status, "uid-1");
      assertThat(r.getClaimsMap().get("uid-1").getError()).isEmpty();
      assertThat(r.getClaimsMap().get("uid-1").getDevicesList()).hasSize(1);
    }
  }

  private List<AllocatedDeviceStatus> devices() {
    ResourceClaim c = client.resources(ResourceClaim.class).inNamespace("default").withName("net").get();
    return c.getStatus() == null || c.getStatus().getDevices() == null ? List.of() : c.getStatus().getDevices();
  }
}
