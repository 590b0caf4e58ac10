package io.nodeatlas.discovery.engine;

import io.nodeatlas.discovery.report.DiscoveryWarning;
import io.nodeatlas.discovery.spi.Availability;
import io.nodeatlas.discovery.spi.DiscoveryResult;
import io.nodeatlas.discovery.spi.DiscoverySource;
import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import io.nodeatlas.discovery.host.HostContext;
import io.nodeatlas.discovery.host.HostFs;
import io.nodeatlas.discovery.model.Device;
import io.nodeatlas.discovery.report.NodeReport;
import io.nodeatlas.discovery.report.SourceStatus;
import io.nodeatlas.discovery.testing.FixtureTree;
import java.nio.file.Path;
import java.util.List;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

class NodeDiscoveryTest {

  @TempDir Path root;

  record FixedSource(String name, Availability availability, List<Device> devices, RuntimeException crash)
      implements DiscoverySource {
    @Override
    public Availability availability(HostContext host) {
      return availability;
    }

    @Override
    public DiscoveryResult discover(HostContext host) {
      if (crash != null) {
        throw crash;
      }
      return DiscoveryResult.of(devices, List.of(new DiscoveryWarning(name, "one fact missing")));
    }
  }

  private static Device device(String name, String source) {
    return Device.builder(name, source).attribute(Device.TYPE, "x").build();
  }

  @Test
  void aCrashingSourceFailsAloneAndTheOthersStillReport() {
    List<DiscoverySource> sources = List.of(
        new FixedSource("cpu-numa", Availability.ok(), List.of(device("cpu-numa0", "cpu-numa")), null),
        new FixedSource("gpu", Availability.ok(), List.of(), new IllegalStateException("boom")),
        new FixedSource("nic-rdma", Availability.ok(), List.of(device("nic-a", "nic-rdma")), null));
    NodeReport report = NodeDiscovery.run(sources, HostContext.of(HostFs.of(root)));
    assertThat(report.devices()).extracting(Device::name).containsExactly("cpu-numa0", "nic-a");
    assertThat(report.sources()).containsEntry("gpu", SourceStatus.failed("java.lang.IllegalStateException: boom")).containsEntry("cpu-numa", SourceStatus.OK);
    assertThat(report.anySourceFailed()).isTrue();
    assertThat(report.warnings()).extracting(DiscoveryWarning::message)
        .contains("source failed: java.lang.IllegalStateException: boom", "one fact missing");
  }

  @Test
  void anUnavailableSourceIsAWarningNotAFailure() {
    NodeReport report = NodeDiscovery.run(
        List.of(new FixedSource("gpu", Availability.unavailable("libnvidia-ml.so.1 not found"), List.of(), null)),
        HostContext.of(HostFs.of(root)));
    assertThat(report.anySourceFailed()).isFalse();
    assertThat(report.sources()).containsEntry("gpu", SourceStatus.unavailable("libnvidia-ml.so.1 not found"));
    assertThat(report.warnings()).containsExactly(
        new DiscoveryWarning("gpu", "source unavailable: libnvidia-ml.so.1 not found"));
  }

  @Test
  void duplicateDeviceNamesKeepTheFirstAndWarn() {
    NodeReport report = NodeDiscovery.run(List.of(
        new FixedSource("a", Availability.ok(), List.of(device("same", "a")), null),
        new FixedSource("b", Availability.ok(), List.of(device("same", "b")), null)), HostContext.of(HostFs.of(root)));
    assertThat(report.devices()).extracting(Device::source).containsExactly("a");
    assertThat(report.warnings()).extracting(DiscoveryWarning::message)
        .contains("device same left out: source a already published a device of that name");
  }

  @Test
  void hostIdentityComesFromTheHostRoot() {
    FixtureTree.at(root).value("proc/sys/kernel/hostname", "node-17").value("proc/sys/kernel/osrelease", "6.8.0-45");
    NodeReport report = NodeDiscovery.run(List.of(), HostContext.of(HostFs.of(root)));
    assertThat(report.host().hostname()).isEqualTo("node-17");
    assertThat(report.host().kernel()).isEqualTo("6.8.0-45");
    assertThat(report.host().hostRoot()).isEqualTo(root.toString());
  }

  @Test
  void registrySelectsWithNfdSyntax() {
    DiscoverySources registry = DiscoverySources.of(List.of(
        new FixedSource("cpu-numa", Availability.ok(), List.of(), null),
        new FixedSource("gpu", Availability.ok(), List.of(), null),
        new FixedSource("nic-rdma", Availability.ok(), List.of(), null)));
    assertThat(registry.select("all,-gpu")).extracting(DiscoverySource::name).containsExactly("cpu-numa", "nic-rdma");
    assertThat(registry.select("nic-rdma,cpu-numa")).extracting(DiscoverySource::name)
        .containsExactly("cpu-numa", "nic-rdma");
    assertThatThrownBy(() -> registry.select("all,tpu")).hasMessageContaining("unknown source 'tpu'")
        .hasMessageContaining("cpu-numa, gpu, nic-rdma");
    assertThatThrownBy(() -> registry.select("")).hasMessageContaining("--sources is empty");
  }

  @Test
  void aSourceNotInstalledIsNamedWithTheInstalledOnes() {
    DiscoverySources registry = DiscoverySources.of(List.of(new FixedSource("cpu-numa", Availability.ok(), List.of(), null)));
    assertThatThrownBy(() -> registry.select("gpu")).hasMessage("unknown source 'gpu'; installed sources: all, cpu-numa");
  }

  @Test
  void onlyExclusionsStartFromAll() {
    DiscoverySources registry = DiscoverySources.of(List.of(
        new FixedSource("cpu-numa", Availability.ok(), List.of(), null),
        new FixedSource("gpu", Availability.ok(), List.of(), null),
        new FixedSource("nic-rdma", Availability.ok(), List.of(), null)));
    assertThat(registry.select("-gpu")).extracting(DiscoverySource::name).containsExactly("cpu-numa", "nic-rdma");
    assertThat(registry.select("-gpu,-nic-rdma")).extracting(DiscoverySource::name).containsExactly("cpu-numa");
    assertThat(registry.select("cpu-numa,-gpu")).extracting(DiscoverySource::name).containsExactly("cpu-numa");
  }

  @Test
  void duplicateSourceNamesFailFast() {
    assertThatThrownBy(() -> DiscoverySources.of(List.of(
        new FixedSource("gpu", Availability.ok(), List.of(), null),
        new FixedSource("gpu", Availability.ok(), List.of(), null))))
        .isInstanceOf(IllegalStateException.class).hasMessageContaining("two discovery sources are named \"gpu\"");
  }

  /**
   * A source that waits for {@code await} (at most 60 s; {@code gateOpened} says whether it opened in
   * time), publishes {@code devices}, then opens {@code done}: two of them, the first waiting for the
   * second, finish out of order.
   */
  record GatedSource(String name, java.util.concurrent.CountDownLatch await, java.util.concurrent.CountDownLatch done,
      List<String> devices, java.util.concurrent.atomic.AtomicBoolean gateOpened) implements DiscoverySource {
    @Override
    public Availability availability(HostContext host) {
      return Availability.ok();
    }

    @Override
    public DiscoveryResult discover(HostContext host) {
      try {
        gateOpened.set(await.await(60, java.util.concurrent.TimeUnit.SECONDS));
      } catch (InterruptedException e) {
        Thread.currentThread().interrupt();
      }
      done.countDown();
      return DiscoveryResult.of(devices.stream().map(d -> device(d, name)).toList(),
          List.of(new DiscoveryWarning(name, name + " warning")));
    }
  }

  @Test
  void sourcesThatFinishOutOfOrderAreMergedInTheGivenOrder() {
    // The first source waits for the second: with sources run at once the second finishes first, and
    // the report must still read as if they had run one after the other (devices, duplicate rule, warnings).
    java.util.concurrent.CountDownLatch secondDone = new java.util.concurrent.CountDownLatch(1);
    java.util.concurrent.CountDownLatch open = new java.util.concurrent.CountDownLatch(0);
    java.util.concurrent.atomic.AtomicBoolean aRanWithB = new java.util.concurrent.atomic.AtomicBoolean();
    NodeReport report = NodeDiscovery.run(List.of(
        new GatedSource("a", secondDone, new java.util.concurrent.CountDownLatch(1), List.of("late0"), aRanWithB),
        new GatedSource("b", open, secondDone, List.of("early0", "late0"), new java.util.concurrent.atomic.AtomicBoolean()),
        new FixedSource("c", Availability.unavailable("no such hardware"), List.of(), null)), HostContext.of(HostFs.of(root)));
    // late0 is a's, though b published one of that name first in time.
    assertThat(report.devices()).extracting(d -> d.name() + "@" + d.source()).containsExactlyInAnyOrder("late0@a", "early0@b");
    assertThat(report.warnings()).extracting(DiscoveryWarning::message).containsExactlyInAnyOrder(
        "a warning", "b warning", "device late0 left out: source a already published a device of that name",
        "source unavailable: no such hardware");
    assertThat(report.sources()).containsEntry("a", SourceStatus.OK).containsEntry("b", SourceStatus.OK);
    if (Runtime.getRuntime().availableProcessors() > 1) {
      // Run one after the other, a would have waited out its 60 s for b.
      assertThat(aRanWithB).as("a's wait ended because b ran meanwhile").isTrue();
    }
  }

  @Test
  void anErrorInASourceStillEscapesAsItWouldInline() {
    assertThatThrownBy(() -> NodeDiscovery.run(List.of(
        new FixedSource("ok", Availability.ok(), List.of(), null),
        new ErrorSource()), HostContext.of(HostFs.of(root))))
        .isInstanceOf(OutOfMemoryError.class).hasMessage("test: heap exhausted");
  }

  record ErrorSource() implements DiscoverySource {
    @Override
    public String name() {
      return "oom";
    }

    @Override
    public Availability availability(HostContext host) {
      return Availability.ok();
    }

    @Override
    public DiscoveryResult discover(HostContext host) {
      throw new OutOfMemoryError("test: heap exhausted");
    }
  }
}
