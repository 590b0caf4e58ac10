package io.nodeatlas.match;

import static org.assertj.core.api.Assertions.assertThat;

import io.nodeatlas.discovery.model.Device;
import io.nodeatlas.discovery.model.Names;
import io.nodeatlas.discovery.model.Quantity;
import io.nodeatlas.discovery.model.RequestPolicy;
import io.nodeatlas.match.MatchReport.AlternativeReport;
import io.nodeatlas.match.MatchReport.CapacityConsumption;
import io.nodeatlas.match.MatchReport.ClaimReport;
import io.nodeatlas.match.cel.DraCelEnvironment;
import io.nodeatlas.match.claims.ClaimDocumentParser;
import java.util.List;
import java.util.Optional;
import java.util.stream.Collectors;
import java.util.stream.IntStream;
import org.junit.jupiter.api.Test;

/**
 * Capacity requests against shared devices with request policies (KEP-5075, {@code resource.k8s.io/v1}
 * {@code DeviceCapacity.requestPolicy}): what the scheduler would make each request consume, and
 * whether the claim then fits. One device, {@code slice-0}, shares {@code nodeatlas.io/cores} (40,
 * default 10, from 10 in steps of 5 up to 30) and {@code nodeatlas.io/memory} (64, valid values 4, 8,
 * 16; default 4).
 */
class CapacityPolicyMatchTest {

  private static final String CORES = Names.ours("cores");
  private static final String MEMORY = Names.ours("memory");

  private static final String CLASS = """
      apiVersion: resource.k8s.io/v1
      kind: DeviceClass
      metadata: {name: slice.nodeatlas.io}
      spec:
        selectors:
        - cel: {expression: 'device.attributes["nodeatlas.io"].type == "slice"'}
      """;

  static Device slice(String name) {
    return Device.builder(name, "test")
        .attribute(Device.TYPE, "slice")
        .allowMultipleAllocations(true)
        .capacity(CORES, Quantity.of(40), RequestPolicy.range(Quantity.of(10), Quantity.of(10), Quantity.of(30), Quantity.of(5)))
        .capacity(MEMORY, Quantity.of(64), new RequestPolicy(Quantity.of(4), Optional.empty(),
            List.of(Quantity.of(4), Quantity.of(8), Quantity.of(16))))
        .build();
  }

  /** A claim of {@code requests} requests for the slice class, each with the given capacity requests ("" = none). */
  static ClaimReport claim(List<Device> node, String... capacity) throws Exception {
    String requests = IntStream.range(0, capacity.length).mapToObj(i -> """
            - name: r%d
              exactly:
                deviceClassName: slice.nodeatlas.io
        """.formatted(i) + (capacity[i].isEmpty() ? "" : "        capacity: {requests: {" + capacity[i] + "}}\n"))
        .collect(Collectors.joining());
    String claim = """
        apiVersion: resource.k8s.io/v1
        kind: ResourceClaim
        metadata: {name: c}
        spec:
          devices:
            requests:
        """ + requests;
    ClaimDocumentParser parser = new ClaimDocumentParser();
    MatchReport report = new ClaimMatcher(new DraCelEnvironment()).match("n", node,
        ClaimDocumentParser.merge(List.of(parser.parse("class.yaml", CLASS), parser.parse("claim.yaml", claim))));
    assertThat(report.claims()).hasSize(1);
    return report.claims().get(0);
  }

  static AlternativeReport first(ClaimReport c) {
    return c.requests().get(0).alternatives().get(0);
  }

  @Test
  void aRequestWithoutAnAmountConsumesThePolicyDefault() throws Exception {
    // Four requests of the default 10 cores fill the 40; a fifth does not fit.
    assertThat(claim(List.of(slice("slice-0")), "", "", "", "").satisfiable()).isTrue();
    ClaimReport five = claim(List.of(slice("slice-0")), "", "", "", "", "");
    assertThat(five.satisfiable()).isFalse();
    assertThat(first(five).consumption()).containsExactly(
        new CapacityConsumption("slice-0", CORES, null, "10", "not requested: the request policy's default"),
        new CapacityConsumption("slice-0", MEMORY, null, "4", "not requested: the request policy's default"));
  }

  @Test
  void anAmountIsRoundedUpToTheNextStepFromTheMinimum() throws Exception {
    // 12 cores consume 15: two fit in 40 (30), three do not (45), although 3 x 12 = 36 would.
    ClaimReport two = claim(List.of(slice("slice-0")), CORES + ": 12", CORES + ": 12");
    assertThat(two.satisfiable()).as(two.reason()).isTrue();
    assertThat(first(two).consumption()).contains(
        new CapacityConsumption("slice-0", CORES, "12", "15", "rounded up to the next step of 5 from 10"));
    assertThat(claim(List.of(slice("slice-0")), CORES + ": 12", CORES + ": 12", CORES + ": 12").satisfiable()).isFalse();
  }

  @Test
  void anAmountBelowTheMinimumConsumesTheMinimum() throws Exception {
    ClaimReport c = claim(List.of(slice("slice-0")), CORES + ": 3");
    assertThat(first(c).consumption()).contains(
        new CapacityConsumption("slice-0", CORES, "3", "10", "raised to the valid range's minimum 10"));
    // Four of them fill the device: each takes 10, not 3.
    assertThat(claim(List.of(slice("slice-0")), CORES + ": 3", CORES + ": 3", CORES + ": 3", CORES + ": 3", CORES + ": 3")
        .satisfiable()).isFalse();
  }

  @Test
  void anAmountAboveTheMaximumIsRefused() throws Exception {
    ClaimReport c = claim(List.of(slice("slice-0")), CORES + ": 31");
    assertThat(c.satisfiable()).isFalse();
    assertThat(first(c).devices()).isEmpty();
    assertThat(first(c).rejected()).singleElement().satisfies(r -> {
      assertThat(r.failedAt()).isEqualTo("capacity request " + CORES);
      assertThat(r.detail()).isEqualTo("requested 31 of " + CORES
          + ": rounded up to the next step of 5 from 10, above the request policy's maximum 30");
    });
  }

  @Test
  void anAmountIsRoundedUpToTheNextValidValueAndRefusedAboveTheLast() throws Exception {
    ClaimReport five = claim(List.of(slice("slice-0")), MEMORY + ": 5");
    assertThat(five.satisfiable()).isTrue();
    assertThat(first(five).consumption()).contains(
        new CapacityConsumption("slice-0", MEMORY, "5", "8", "rounded up to the next valid value 8"));
    ClaimReport exact = claim(List.of(slice("slice-0")), MEMORY + ": 16");
    assertThat(first(exact).consumption()).noneMatch(c -> c.capacity().equals(MEMORY));

    ClaimReport tooMuch = claim(List.of(slice("slice-0")), MEMORY + ": 17");
    assertThat(tooMuch.satisfiable()).isFalse();
    assertThat(first(tooMuch).rejected()).singleElement().satisfies(r ->
        assertThat(r.detail()).isEqualTo("requested 17 of " + MEMORY + ": above the largest valid value 16"));
  }

  @Test
  void aSharedCapacityWithoutPolicyIsTakenWholeWhenNotRequested() throws Exception {
    Device pool = Device.builder("pool-0", "test").attribute(Device.TYPE, "slice").allowMultipleAllocations(true)
        .capacity(CORES, 8).build();
    // Named amounts share the pool; a request that names none takes all of it, as the scheduler counts it.
    assertThat(claim(List.of(pool), CORES + ": 4", CORES + ": 4").satisfiable()).isTrue();
    ClaimReport whole = claim(List.of(pool), CORES + ": 4", "");
    assertThat(whole.satisfiable()).isFalse();
    assertThat(whole.requests().get(1).alternatives().get(0).consumption()).containsExactly(
        new CapacityConsumption("pool-0", CORES, null, "8", "not requested and no request policy: the whole capacity"));
  }

  @Test
  void anExclusiveDeviceOnlyNeedsTheAmountAndServesOneRequest() throws Exception {
    Device gpu = Device.builder("gpu-0", "test").attribute(Device.TYPE, "slice").capacity(CORES, 40).build();
    ClaimReport one = claim(List.of(gpu), CORES + ": 12");
    assertThat(one.satisfiable()).isTrue();
    assertThat(first(one).consumption()).isEmpty();
    assertThat(claim(List.of(gpu), CORES + ": 12", CORES + ": 12").satisfiable()).isFalse();
  }

  @Test
  void explainSaysWhatEachRequestConsumesAndWhy() throws Exception {
    ClaimReport c = claim(List.of(slice("slice-0")), CORES + ": 12");
    String table = MatchReportWriter.table(new MatchReport("n", List.of(), List.of(c)), true);
    assertThat(table).contains("    slice-0: consumes 15 of nodeatlas.io/cores (requested 12): "
        + "rounded up to the next step of 5 from 10\n")
        .contains("    slice-0: consumes 4 of nodeatlas.io/memory: not requested: the request policy's default\n");
    assertThat(MatchReportWriter.table(new MatchReport("n", List.of(), List.of(c)), false)).doesNotContain("consumes");
    assertThat(MatchReportWriter.json(new MatchReport("n", List.of(), List.of(c))))
        .contains("\"consumes\" : \"15\"").contains("\"requested\" : \"12\"");
  }
}
