package io.nodeatlas.agent.slices;

import static org.assertj.core.api.Assertions.assertThat;

import io.fabric8.kubernetes.client.KubernetesClient;
import io.fabric8.kubernetes.client.server.mock.EnableKubernetesMockClient;
import io.nodeatlas.agent.testing.ApiObjects;
import io.nodeatlas.agent.testing.DroppingApiServer;
import io.nodeatlas.agent.testing.TestDevices;
import io.nodeatlas.discovery.model.Device;
import java.util.List;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.logging.Handler;
import java.util.logging.Level;
import java.util.logging.LogRecord;
import java.util.logging.Logger;
import org.junit.jupiter.api.Test;

/**
 * Whether the API server keeps the fields of shared devices is learnt from the slice it stores: the
 * answer to our write is read back and compared (an API server drops fields of a disabled feature gate
 * without an error, KEP-5075 {@code DRAConsumableCapacity}).
 */
@EnableKubernetesMockClient(crud = true)
class SharingReadBackTest {

  KubernetesClient client;

  static final List<Device> DEVICES = List.of(TestDevices.gpu(0), TestDevices.sharedCpus(0));

  @Test
  void aServerThatKeepsTheFieldsIsSeenToKeepThem() throws Exception {
    ApiObjects.node(client, "node-a");
    ResourceSlicePublisher publisher = new ResourceSlicePublisher(client, "nodeatlas.io", "node-a");
    assertThat(publisher.sharing()).isEqualTo(ResourceSlicePublisher.Sharing.UNKNOWN);
    publisher.sync(DEVICES);
    assertThat(publisher.sharing()).isEqualTo(ResourceSlicePublisher.Sharing.KEPT);
  }

  @Test
  void exclusiveDevicesAloneTellNothing() throws Exception {
    try (DroppingApiServer server = new DroppingApiServer(); KubernetesClient c = server.client()) {
      ResourceSlicePublisher publisher = new ResourceSlicePublisher(c, "nodeatlas.io", "node-a");
      publisher.sync(List.of(TestDevices.gpu(0)));
      assertThat(publisher.sharing()).isEqualTo(ResourceSlicePublisher.Sharing.UNKNOWN);
    }
  }

  @Test
  void aServerThatDropsTheFieldsIsNoticedOnTheFirstWriteWithAWarningNamingCauseAndFix() throws Exception {
    List<LogRecord> logged = new CopyOnWriteArrayList<>();
    Logger jul = Logger.getLogger(ResourceSlicePublisher.class.getName());
    Handler capture = new Handler() {
      @Override
      public void publish(LogRecord r) {
        logged.add(r);
      }

      @Override
      public void flush() {}

      @Override
      public void close() {}
    };
    jul.addHandler(capture);
    try (DroppingApiServer server = new DroppingApiServer(); KubernetesClient c = server.client()) {
      ResourceSlicePublisher publisher = new ResourceSlicePublisher(c, "nodeatlas.io", "node-a");
      PublishResult first = publisher.sync(DEVICES);

      assertThat(first.created()).isEqualTo(1);
      assertThat(publisher.sharing()).isEqualTo(ResourceSlicePublisher.Sharing.DROPPED);
      assertThat(logged).filteredOn(r -> r.getLevel() == Level.WARNING).singleElement()
          .satisfies(r -> assertThat(r.getMessage()).contains("dropped allowMultipleAllocations and requestPolicy")
              .contains("DRAConsumableCapacity feature gate is off").contains("Fix: enable the DRAConsumableCapacity"));
      // Published as the server keeps it from now on: nothing is rewritten on the next sync.
      PublishResult second = publisher.sync(DEVICES);
      assertThat(second.unchanged()).isTrue();
      assertThat(server.slices()).hasSize(1);
    } finally {
      jul.removeHandler(capture);
    }
  }
}
