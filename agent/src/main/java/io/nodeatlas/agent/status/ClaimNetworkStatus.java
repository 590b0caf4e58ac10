package io.nodeatlas.agent.status;

import io.fabric8.kubernetes.api.model.resource.v1.AllocatedDeviceStatus;
import io.fabric8.kubernetes.api.model.resource.v1.AllocatedDeviceStatusBuilder;
import io.fabric8.kubernetes.api.model.resource.v1.NetworkDeviceDataBuilder;
import io.fabric8.kubernetes.api.model.resource.v1.ResourceClaim;
import io.fabric8.kubernetes.api.model.resource.v1.ResourceClaimStatus;
import io.fabric8.kubernetes.client.KubernetesClient;
import io.fabric8.kubernetes.client.KubernetesClientException;
import io.nodeatlas.agent.claims.ClaimRef;
import io.nodeatlas.agent.claims.DeviceInventory;
import io.nodeatlas.agent.claims.PreparedDevice;
import io.nodeatlas.agent.shares.Families;
import io.nodeatlas.discovery.model.Device;
import io.nodeatlas.discovery.share.NetworkData;
import io.nodeatlas.discovery.share.SharePlacer;
import java.util.ArrayList;
import java.util.List;
import java.util.Objects;
import java.util.Optional;
import java.util.concurrent.ArrayBlockingQueue;
import java.util.concurrent.ThreadPoolExecutor;
import java.util.concurrent.TimeUnit;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * After a claim is prepared, writes the {@code status.devices[]} entry (KEP-4817, {@code AllocatedDeviceStatus}:
 * driver, pool, device, {@code networkData}) of each of its devices whose family states a network
 * interface ({@link io.nodeatlas.discovery.spi.DiscoverySource#networkData}): {@code interfaceName},
 * {@code hardwareAddress}, {@code ips} none: the kernel drops an interface's addresses when it moves
 * into the pod's namespace, so the driver knows of none the pod will have.
 *
 * <p>Written through the {@code status} subresource ({@code resourceclaims/status}, the only write the
 * RBAC grants on claims), off the Prepare path on one thread with a bounded queue: a failed or slow
 * write is logged and never fails or delays Prepare. Entries of other drivers are kept; ours for the
 * same device are replaced. A claim whose UID differs (deleted and re-created under the name) is left alone.
 */
public final class ClaimNetworkStatus implements AutoCloseable {

  private static final Logger LOG = LoggerFactory.getLogger(ClaimNetworkStatus.class);

  /** KEP-4817 limits: {@code interfaceName} ≤ 256, {@code hardwareAddress} ≤ 128 characters. */
  static final int MAX_INTERFACE_NAME = 256;
  static final int MAX_HARDWARE_ADDRESS = 128;
  static final int MAX_QUEUED = 1024;

  private final java.util.function.Supplier<KubernetesClient> client;
  private final String driver;
  private final DeviceInventory inventory;
  private final Families families;
  private final ThreadPoolExecutor writer;

  /** With the families installed on this class path. */
  public ClaimNetworkStatus(KubernetesClient client, String driver, DeviceInventory inventory) {
    this(() -> client, driver, inventory, Families.installed(ClaimNetworkStatus.class.getClassLoader(),
        new SharePlacer.Settings(io.nodeatlas.agent.claims.ClaimPreparer.DEFAULT_HOOK_PATH)));
  }

  public ClaimNetworkStatus(KubernetesClient client, String driver, DeviceInventory inventory, Families families) {
    this(() -> client, driver, inventory, families);
  }

  /** With fabric8's client built when a claim's status is first written (a rare path: network devices only). */
  public ClaimNetworkStatus(java.util.function.Supplier<KubernetesClient> client, String driver, DeviceInventory inventory,
      Families families) {
    this.families = families;
    this.client = client;
    this.driver = driver;
    this.inventory = inventory;
    this.writer = new ThreadPoolExecutor(1, 1, 30, TimeUnit.SECONDS, new ArrayBlockingQueue<>(MAX_QUEUED), r -> {
      Thread t = new Thread(r, "claim-status");
      t.setDaemon(true);
      return t;
    });
    writer.allowCoreThreadTimeOut(true);
  }

  /** Called after {@code claim} was prepared with {@code devices}; returns at once. */
  public void prepared(ClaimRef claim, List<PreparedDevice> devices) {
    List<AllocatedDeviceStatus> entries = entries(devices);
    if (entries.isEmpty()) {
      return;
    }
    try {
      writer.execute(() -> write(claim, entries));
    } catch (java.util.concurrent.RejectedExecutionException e) {
      LOG.warn("claim status not written: too many waiting claim={}", claim);
    }
  }

  List<AllocatedDeviceStatus> entries(List<PreparedDevice> devices) {
    List<AllocatedDeviceStatus> out = new ArrayList<>();
    for (PreparedDevice p : devices) {
      Optional<Device> d = inventory.device(p.device());
      Optional<NetworkData> data = d.flatMap(families::networkData);
      Optional<String> ifName = data.map(NetworkData::interfaceName).filter(n -> !n.isEmpty() && n.length() <= MAX_INTERFACE_NAME);
      if (ifName.isEmpty() || out.stream().anyMatch(e -> e.getDevice().equals(p.device()))) {
        continue;
      }
      NetworkDeviceDataBuilder network = new NetworkDeviceDataBuilder().withInterfaceName(ifName.get());
      data.map(NetworkData::hardwareAddress).filter(m -> !m.isEmpty() && m.length() <= MAX_HARDWARE_ADDRESS)
          .ifPresent(network::withHardwareAddress);
      out.add(new AllocatedDeviceStatusBuilder().withDriver(driver).withPool(p.pool()).withDevice(p.device())
          .withNetworkData(network.build()).build());
    }
    return out;
  }

  private void write(ClaimRef ref, List<AllocatedDeviceStatus> entries) {
    for (int attempt = 1; attempt <= 3; attempt++) {
      try {
        ResourceClaim claim = client.get().resources(ResourceClaim.class).inNamespace(ref.namespace()).withName(ref.name()).get();
        if (claim == null || !ref.uid().equals(claim.getMetadata().getUid())) {
          LOG.debug("claim status not written: the claim is gone claim={}", ref);
          return;
        }
        ResourceClaimStatus status = claim.getStatus() == null ? new ResourceClaimStatus() : claim.getStatus();
        List<AllocatedDeviceStatus> devices = new ArrayList<>();
        if (status.getDevices() != null) {
          for (AllocatedDeviceStatus s : status.getDevices()) {
            boolean replaced = entries.stream().anyMatch(e -> Objects.equals(e.getDriver(), s.getDriver())
                && Objects.equals(e.getPool(), s.getPool()) && Objects.equals(e.getDevice(), s.getDevice())
                && s.getShareID() == null);
            if (!replaced) {
              devices.add(s);
            }
          }
        }
        devices.addAll(entries);
        status.setDevices(devices);
        claim.setStatus(status);
        client.get().resource(claim).updateStatus();
        LOG.debug("claim status written claim={} devices={}", ref, entries.size());
        return;
      } catch (KubernetesClientException e) {
        if (e.getCode() == 409 && attempt < 3) {
          continue; // changed under us (the scheduler, another driver): read again
        }
        LOG.warn("claim status not written (Prepare is not affected) claim={} err=\"{}\"", ref,
            e.getCode() > 0 ? "HTTP " + e.getCode() + ": " + e.getMessage() : String.valueOf(e.getMessage()));
        return;
      } catch (RuntimeException e) {
        LOG.warn("claim status not written (Prepare is not affected) claim={} err=\"{}\"", ref, e.toString());
        return;
      }
    }
  }

  @Override
  public void close() {
    writer.shutdown();
  }
}
