package io.nodeatlas.match;

import static org.assertj.core.api.Assertions.assertThat;

import io.nodeatlas.match.MatchReport.ClaimReport;
import io.nodeatlas.match.MatchReport.Consumed;
import io.nodeatlas.match.cel.DraCelEnvironment;
import io.nodeatlas.match.claims.ClaimDocumentParser;
import java.util.ArrayList;
import java.util.List;
import org.junit.jupiter.api.Test;

/**
 * Several claims in one run are allocated in order against one node, as the scheduler allocates them:
 * what an earlier claim holds is gone for the later ones. The node is {@link NodeFixtures#hgxNode()}:
 * two shared {@code cpu-numaN} devices of 64 CPUs, 8 exclusive GPUs.
 */
class ClaimsInOrderTest {

  static String cpuClaim(String name, int numa, int cpus) {
    return """
        apiVersion: resource.k8s.io/v1
        kind: ResourceClaim
        metadata: {name: %s}
        spec:
          devices:
            requests:
            - name: cpus
              exactly:
                deviceClassName: cpu.nodeatlas.io
                selectors:
                - cel: {expression: 'device.attributes["resource.kubernetes.io"].numaNode == %d'}
                capacity: {requests: {nodeatlas.io/cpu: "%d"}}
        """.formatted(name, numa, cpus);
  }

  static String gpuClaim(String name, int count) {
    return """
        apiVersion: resource.k8s.io/v1
        kind: ResourceClaim
        metadata: {name: %s}
        spec: {devices: {requests: [{name: gpus, exactly: {deviceClassName: gpu.nodeatlas.io, count: %d}}]}}
        """.formatted(name, count);
  }

  static MatchReport match(String... claims) throws Exception {
    ClaimDocumentParser parser = new ClaimDocumentParser();
    List<io.nodeatlas.match.claims.ClaimModel.Documents> docs = new ArrayList<>();
    docs.add(parser.parse("classes.yaml", NodeFixtures.DEVICE_CLASSES));
    for (int i = 0; i < claims.length; i++) {
      docs.add(parser.parse("claim" + i + ".yaml", claims[i]));
    }
    return new ClaimMatcher(new DraCelEnvironment()).match("hgx-01", NodeFixtures.hgxNode(), ClaimDocumentParser.merge(docs));
  }

  @Test
  void sharedCpusAreConsumedAcrossClaimsAndNeverOverTheDevice() throws Exception {
    MatchReport r = match(cpuClaim("a", 0, 30), cpuClaim("b", 0, 24), cpuClaim("c", 0, 16), cpuClaim("d", 1, 16));

    List<ClaimReport> c = r.claims();
    assertThat(c.get(0).satisfiable()).isTrue();
    assertThat(c.get(0).consumed()).containsExactly(new Consumed("cpus", "cpu-numa0", "nodeatlas.io/cpu", "30", "34", "64"));
    assertThat(c.get(1).satisfiable()).isTrue();
    assertThat(c.get(1).consumed()).containsExactly(new Consumed("cpus", "cpu-numa0", "nodeatlas.io/cpu", "24", "10", "64"));
    assertThat(c.get(2).satisfiable()).as("16 CPUs do not fit in the 10 left on NUMA node 0").isFalse();
    assertThat(c.get(2).reason()).isEqualTo("request cpus needs 1 device, but earlier claims hold what matches: "
        + "cpu-numa0 has 10 of 16 requested nodeatlas.io/cpu left (54 of 64 allocated to earlier claims)");
    assertThat(c.get(2).consumed()).isEmpty();
    assertThat(c.get(3).satisfiable()).as("NUMA node 1 is untouched").isTrue();
    assertThat(r.allSatisfiable()).isFalse();
  }

  @Test
  void aClaimThatDoesNotFitTakesNothing() throws Exception {
    MatchReport r = match(cpuClaim("too-big", 0, 65), cpuClaim("all", 0, 64));

    assertThat(r.claims().get(0).satisfiable()).isFalse();
    assertThat(r.claims().get(1).satisfiable()).isTrue();
    assertThat(r.claims().get(1).consumed().get(0).left()).isEqualTo("0");
  }

  @Test
  void anExclusiveDeviceServesOneClaimOnly() throws Exception {
    MatchReport r = match(gpuClaim("six", 6), gpuClaim("two", 2), gpuClaim("one-more", 1));

    assertThat(r.claims().get(0).allocation().get("gpus")).containsExactly("gpu-0", "gpu-1", "gpu-2", "gpu-3", "gpu-4", "gpu-5");
    assertThat(r.claims().get(0).consumed()).allSatisfy(x -> assertThat(x.exclusive()).isTrue());
    assertThat(r.claims().get(1).allocation().get("gpus")).containsExactly("gpu-6", "gpu-7");
    ClaimReport last = r.claims().get(2);
    assertThat(last.satisfiable()).isFalse();
    assertThat(last.reason()).startsWith("request gpus needs 1 device, but earlier claims hold what matches: "
        + "gpu-0 is allocated to ResourceClaim six;").endsWith("gpu-7 is allocated to ResourceClaim two");
  }

  @Test
  void explainShowsWhatEachRequestConsumedAndWhatIsLeft() throws Exception {
    MatchReport r = match(cpuClaim("a", 1, 10), gpuClaim("g", 1), cpuClaim("b", 1, 60));

    String table = MatchReportWriter.table(r, true);
    assertThat(table).contains("    cpus on cpu-numa1: consumes 10 nodeatlas.io/cpu, 54 of 64 left\n")
        .contains("    gpus on gpu-0: the whole device (exclusive)\n")
        .contains("  reason: request cpus needs 1 device, but earlier claims hold what matches: cpu-numa1 has 54 of 60 "
            + "requested nodeatlas.io/cpu left (10 of 64 allocated to earlier claims)\n");
    assertThat(MatchReportWriter.table(r, false)).doesNotContain("54 of 64 left");
    assertThat(MatchReportWriter.json(r)).contains("\"capacity\" : \"nodeatlas.io/cpu\"").contains("\"left\" : \"54\"")
        .contains("\"exclusive\" : true");
  }

  @Test
  void requestsOfOneClaimShareADeviceWithinItsCapacity() throws Exception {
    String twoRequests = """
        apiVersion: resource.k8s.io/v1
        kind: ResourceClaim
        metadata: {name: two}
        spec:
          devices:
            requests:
            - name: first
              exactly: {deviceClassName: cpu.nodeatlas.io, capacity: {requests: {nodeatlas.io/cpu: "40"}}}
            - name: second
              exactly: {deviceClassName: cpu.nodeatlas.io, capacity: {requests: {nodeatlas.io/cpu: "40"}}}
        """;
    MatchReport r = match(twoRequests);
    assertThat(r.claims().get(0).allocation()).containsEntry("first", List.of("cpu-numa0"))
        .containsEntry("second", List.of("cpu-numa1"));
  }
}
