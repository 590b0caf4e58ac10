package io.nodeatlas.agent.shares;

import static org.assertj.core.api.Assertions.assertThat;

import io.nodeatlas.agent.claims.AllocatedDevice;
import io.nodeatlas.agent.claims.Checkpoint;
import io.nodeatlas.agent.claims.ClaimLookupException;
import io.nodeatlas.agent.claims.ClaimPreparer;
import io.nodeatlas.agent.claims.ClaimRef;
import io.nodeatlas.agent.claims.ClaimResult;
import io.nodeatlas.agent.claims.ClaimSpecStore;
import io.nodeatlas.agent.claims.ClaimWorkers;
import io.nodeatlas.agent.claims.DeviceInventory;
import io.nodeatlas.discovery.model.ContainerEdits;
import io.nodeatlas.discovery.model.Device;
import io.nodeatlas.discovery.model.Quantity;
import io.nodeatlas.discovery.model.RequestPolicy;
import io.nodeatlas.discovery.share.ClaimDevice;
import io.nodeatlas.discovery.share.DevicePlacer;
import io.nodeatlas.discovery.share.Placement;
import io.nodeatlas.discovery.share.Share;
import io.nodeatlas.discovery.share.SharePlacer;
import io.nodeatlas.discovery.spi.DiscoveryResult;
import io.nodeatlas.discovery.spi.DiscoverySource;
import io.nodeatlas.discovery.host.HostContext;
import io.nodeatlas.discovery.topology.Topology;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.TreeSet;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * A device family the agent has never heard of, with claim-time placement: everything it needs is in this
 * one file (in a real module: its source, its placer and a line in cli's dependencies and the module
 * list). Its "slots" device hands out numbered slots; a share gets the lowest free ones, and its container
 * the environment {@code SLOTS=<list>}. The agent's real Prepare path checks, accounts, places, writes the
 * CDI spec and records the family's placement, opaque, in its checkpoint.
 */
class NewFamilyTest {

  static final String SLOTS = "example.com/slots";

  /** The family's claim-time side. */
  static final class SlotPlacer implements SharePlacer {
    @Override
    public Optional<DevicePlacer> forDevice(Device device, Topology topology) {
      int size = device.capacity().get(SLOTS).toBigDecimal().intValueExact();
      return Optional.of(new DevicePlacer() {
        @Override
        public String checkAmounts(java.util.SortedMap<String, java.math.BigDecimal> consumed) {
          return consumed.get(SLOTS).stripTrailingZeros().scale() > 0 ? "a share takes whole slots" : null;
        }

        @Override
        public Decision place(Share share, List<Share> others) {
          TreeSet<Integer> taken = new TreeSet<>();
          others.forEach(o -> taken.addAll(slots(o.placement())));
          List<Integer> mine = new ArrayList<>();
          for (int i = 0; i < size && mine.size() < share.consumed(SLOTS).intValue(); i++) {
            if (!taken.contains(i)) {
              mine.add(i);
            }
          }
          return Decision.of(new Placement(1, String.join(",", mine.stream().map(String::valueOf).toList())));
        }
      });
    }

    @Override
    public List<Device> containerEdits(List<ClaimDevice> claim) {
      List<Device> out = new ArrayList<>();
      for (ClaimDevice c : claim) {
        Device d = c.device();
        out.add(c.share().filter(s -> d.source().equals("slots")).map(s -> new Device(d.name(), d.source(), d.attributes(),
            d.capacity(), d.requestPolicies(), d.allowMultipleAllocations(),
            ContainerEdits.builder().env("SLOTS=" + s.placement().value()).build())).orElse(d));
      }
      return out;
    }

    static List<Integer> slots(Placement p) {
      return p.empty() ? List.of() : java.util.Arrays.stream(p.value().split(",")).map(Integer::valueOf).toList();
    }
  }

  /** Its discovery side, as ServiceLoader would find it. */
  static final class SlotSource implements DiscoverySource {
    @Override
    public String name() {
      return "slots";
    }

    @Override
    public DiscoveryResult discover(HostContext host) {
      return new DiscoveryResult.Builder(name()).build();
    }

    @Override
    public Optional<SharePlacer> sharePlacer(SharePlacer.Settings settings) {
      return Optional.of(new SlotPlacer());
    }
  }

  @TempDir Path dir;

  @Test
  void theAgentPreparesSharesOfAFamilyItDoesNotKnow() throws Exception {
    Device slots = Device.builder("slots-0", "slots").attribute(Device.TYPE, "slots").allowMultipleAllocations(true)
        .capacity(SLOTS, Quantity.of(4), RequestPolicy.range(Quantity.of(1), Quantity.of(1), Quantity.of(4), Quantity.of(1)))
        .build();
    DeviceInventory inventory = new DeviceInventory("node-a");
    inventory.replace(List.of(slots), Topology.EMPTY);
    SlotSource source = new SlotSource();
    Families families = new Families(Map.of("slots", source.sharePlacer(null).orElseThrow()), Map.of("slots", source));
    Map<String, String> amounts = Map.of("a", "2", "b", "2", "c", "1");
    ClaimPreparer preparer = new ClaimPreparer("nodeatlas.io", inventory, claim -> {
      String amount = amounts.get(claim.name());
      if (amount == null) {
        throw new ClaimLookupException("no claim " + claim);
      }
      return List.of(new AllocatedDevice("r", "nodeatlas.io", "node-a", "slots-0", false,
          "00000000-0000-4000-8000-00000000000" + claim.name().charAt(0) % 10, Map.of(SLOTS, amount)));
    }, new ClaimSpecStore(dir.resolve("cdi")), Checkpoint.open(dir.resolve("checkpoint.json")), ClaimPreparer.Listener.NONE,
        families, ClaimWorkers.inline());

    ClaimResult a = preparer.prepare(List.of(new ClaimRef("ns", "a", "uid-a"))).get("uid-a");
    ClaimResult b = preparer.prepare(List.of(new ClaimRef("ns", "b", "uid-b"))).get("uid-b");
    ClaimResult c = preparer.prepare(List.of(new ClaimRef("ns", "c", "uid-c"))).get("uid-c");

    assertThat(a.failed()).as(a.error()).isFalse();
    assertThat(a.devices().get(0).placementOrNone()).isEqualTo(new Placement(1, "0,1"));
    assertThat(b.devices().get(0).placementOrNone()).isEqualTo(new Placement(1, "2,3"));
    assertThat(c.error()).contains("the share no longer fits");
    String spec = Files.readString(Files.list(dir.resolve("cdi")).filter(p -> p.toString().contains("uid-b")).findFirst().orElseThrow());
    assertThat(spec).contains("SLOTS=2,3");
    assertThat(new String(Checkpoint.document(dir.resolve("checkpoint.json")), StandardCharsets.UTF_8)).contains("\"placement\":{\"value\":\"2,3\",\"version\":1}");
  }
}
