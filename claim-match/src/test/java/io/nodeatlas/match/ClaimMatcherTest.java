package io.nodeatlas.match;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import io.nodeatlas.match.MatchReport.AlternativeReport;
import io.nodeatlas.match.MatchReport.ClaimReport;
import io.nodeatlas.match.MatchReport.Rejection;
import io.nodeatlas.match.cel.DraCelEnvironment;
import io.nodeatlas.match.cel.SelectorResult;
import io.nodeatlas.match.claims.ClaimDocumentParser;
import io.nodeatlas.match.claims.ClaimInputException;
import java.util.List;
import java.util.Map;
import org.junit.jupiter.api.Test;

/** Whole claims against the synthetic HGX node: counts, All, constraints, firstAvailable, capacity, errors. */
class ClaimMatcherTest {

  static final String CLASSES = NodeFixtures.DEVICE_CLASSES;

  static MatchReport match(String claims) throws ClaimInputException {
    ClaimDocumentParser parser = new ClaimDocumentParser();
    return new ClaimMatcher(new DraCelEnvironment()).match("hgx", NodeFixtures.hgxNode(),
        ClaimDocumentParser.merge(List.of(parser.parse("classes.yaml", CLASSES), parser.parse("claims.yaml", claims))));
  }

  static ClaimReport only(MatchReport report) {
    assertThat(report.claims()).hasSize(1);
    return report.claims().get(0);
  }

  @Test
  void classesListTheirDevices() throws Exception {
    MatchReport report = match("");
    assertThat(report.classes()).extracting(MatchReport.ClassReport::name, c -> c.devices().size())
        .containsExactly(org.assertj.core.groups.Tuple.tuple("gpu.nodeatlas.io", 8),
            org.assertj.core.groups.Tuple.tuple("rdma.nodeatlas.io", 19),
            org.assertj.core.groups.Tuple.tuple("cpu.nodeatlas.io", 2),
            org.assertj.core.groups.Tuple.tuple("hugepages.nodeatlas.io", 4));
    assertThat(report.allSatisfiable()).isTrue();
  }

  @Test
  void gpusAndNicOnOnePcieRoot() throws Exception {
    ClaimReport claim = only(match("""
        apiVersion: resource.k8s.io/v1
        kind: ResourceClaim
        metadata: {name: train, namespace: ml}
        spec:
          devices:
            requests:
            - name: gpus
              exactly: {deviceClassName: gpu.nodeatlas.io, count: 2}
            - name: nic
              exactly:
                deviceClassName: rdma.nodeatlas.io
                selectors:
                - cel: {expression: '!device.attributes["nodeatlas.io"].isSriovVf'}
            constraints:
            - matchAttribute: resource.kubernetes.io/pcieRoot
        """));
    assertThat(claim.satisfiable()).isTrue();
    assertThat(claim.allocation()).containsExactly(Map.entry("gpus", List.of("gpu-0", "gpu-1")),
        Map.entry("nic", List.of("rdma-mlx5-0")));
  }

  @Test
  void backtracksToTheRootThatHasANic() throws Exception {
    ClaimReport claim = only(match("""
        apiVersion: resource.k8s.io/v1
        kind: ResourceClaim
        metadata: {name: ib}
        spec:
          devices:
            requests:
            - name: gpus
              exactly: {deviceClassName: gpu.nodeatlas.io, count: 2}
            - name: nic
              exactly:
                deviceClassName: rdma.nodeatlas.io
                selectors:
                - cel: {expression: 'device.attributes["nodeatlas.io"].linkLayer == "infiniband"'}
            constraints:
            - matchAttribute: resource.kubernetes.io/pcieRoot
        """));
    assertThat(claim.allocation()).containsExactly(Map.entry("gpus", List.of("gpu-2", "gpu-3")),
        Map.entry("nic", List.of("rdma-mlx5-1")));
  }

  @Test
  void matchAttributeThatNoRootCanMeet() throws Exception {
    ClaimReport claim = only(match("""
        apiVersion: resource.k8s.io/v1
        kind: ResourceClaim
        metadata: {name: three}
        spec:
          devices:
            requests:
            - name: gpus
              exactly: {deviceClassName: gpu.nodeatlas.io, count: 3}
            constraints:
            - matchAttribute: resource.kubernetes.io/pcieRoot
        """));
    assertThat(claim.satisfiable()).isFalse();
    assertThat(claim.reason()).contains("matchAttribute resource.kubernetes.io/pcieRoot");
    assertThat(claim.requests().get(0).alternatives().get(0).devices()).hasSize(8);
  }

  @Test
  void distinctAttributeSpreadsOverRoots() throws Exception {
    ClaimReport claim = only(match("""
        apiVersion: resource.k8s.io/v1
        kind: ResourceClaim
        metadata: {name: spread}
        spec:
          devices:
            requests:
            - name: gpus
              exactly: {deviceClassName: gpu.nodeatlas.io, count: 4}
            constraints:
            - distinctAttribute: resource.kubernetes.io/pcieRoot
        """));
    assertThat(claim.allocation()).containsExactly(Map.entry("gpus", List.of("gpu-0", "gpu-2", "gpu-4", "gpu-6")));
    ClaimReport five = only(match("""
        apiVersion: resource.k8s.io/v1
        kind: ResourceClaim
        metadata: {name: spread}
        spec:
          devices:
            requests:
            - name: gpus
              exactly: {deviceClassName: gpu.nodeatlas.io, count: 5}
            constraints:
            - distinctAttribute: resource.kubernetes.io/pcieRoot
        """));
    assertThat(five.satisfiable()).isFalse();
  }

  @Test
  void allocationModeAllAndCountsBeyondTheNode() throws Exception {
    ClaimReport all = only(match("""
        apiVersion: resource.k8s.io/v1
        kind: ResourceClaim
        metadata: {name: all}
        spec:
          devices:
            requests:
            - name: gpus
              exactly: {deviceClassName: gpu.nodeatlas.io, allocationMode: All}
        """));
    assertThat(all.allocation().get("gpus")).hasSize(8);
    ClaimReport allNone = only(match("""
        apiVersion: resource.k8s.io/v1
        kind: ResourceClaim
        metadata: {name: none}
        spec:
          devices:
            requests:
            - name: gpus
              exactly:
                deviceClassName: gpu.nodeatlas.io
                allocationMode: All
                selectors:
                - cel: {expression: 'device.attributes["nodeatlas.io"].architecture == "blackwell"'}
        """));
    assertThat(allNone.satisfiable()).isFalse();
    assertThat(allNone.reason()).contains("all matching devices (at least one)");
    assertThat(allNone.requests().get(0).alternatives().get(0).selectors().get(0).neverMatches()).isTrue();
    ClaimReport nine = only(match("""
        apiVersion: resource.k8s.io/v1
        kind: ResourceClaim
        metadata: {name: nine}
        spec:
          devices:
            requests:
            - name: gpus
              exactly: {deviceClassName: gpu.nodeatlas.io, count: 9}
        """));
    assertThat(nine.reason()).isEqualTo("request gpus needs 9 devices, this node has 8 matching devices");
  }

  @Test
  void requestsDoNotShareExclusiveDevices() throws Exception {
    ClaimReport claim = only(match("""
        apiVersion: resource.k8s.io/v1
        kind: ResourceClaim
        metadata: {name: two}
        spec:
          devices:
            requests:
            - name: a
              exactly: {deviceClassName: gpu.nodeatlas.io, count: 5}
            - name: b
              exactly: {deviceClassName: gpu.nodeatlas.io, count: 4}
        """));
    assertThat(claim.satisfiable()).isFalse();
    assertThat(claim.reason()).contains("not enough distinct devices");
  }

  @Test
  void firstAvailableFallsBackInOrder() throws Exception {
    ClaimReport claim = only(match("""
        apiVersion: resource.k8s.io/v1
        kind: ResourceClaim
        metadata: {name: fallback}
        spec:
          devices:
            requests:
            - name: gpu
              firstAvailable:
              - name: sixteen
                deviceClassName: gpu.nodeatlas.io
                count: 16
              - name: hopper-numa1
                deviceClassName: gpu.nodeatlas.io
                count: 2
                selectors:
                - cel: {expression: 'device.attributes["resource.kubernetes.io"].numaNode == 1'}
        """));
    assertThat(claim.allocation()).containsExactly(Map.entry("gpu/hopper-numa1", List.of("gpu-4", "gpu-5")));
  }

  @Test
  void cpuClaimWithCapacityRequestsAndPerNumaSelectors() throws Exception {
    String claim = """
        apiVersion: resource.k8s.io/v1
        kind: ResourceClaimTemplate
        metadata: {name: pinned, namespace: hpc}
        spec:
          spec:
            devices:
              requests:
              - name: cpus-numa0
                exactly:
                  deviceClassName: cpu.nodeatlas.io
                  selectors:
                  - cel: {expression: 'device.attributes["resource.kubernetes.io"].numaNode == 0'}
                  capacity: {requests: {nodeatlas.io/cpu: "%s"}}
              - name: more-numa0
                exactly:
                  deviceClassName: cpu.nodeatlas.io
                  selectors:
                  - cel: {expression: 'device.attributes["resource.kubernetes.io"].numaNode == 0'}
                  capacity: {requests: {nodeatlas.io/cpu: "%s"}}
              - name: pages
                exactly:
                  deviceClassName: hugepages.nodeatlas.io
                  selectors:
                  - cel: {expression: 'device.capacity["nodeatlas.io"].pageSize == quantity("1Gi")'}
              constraints:
              - matchAttribute: resource.kubernetes.io/numaNode
        """;
    ClaimReport fits = only(match(claim.formatted("32", "16")));
    assertThat(fits.satisfiable()).as(fits.reason()).isTrue();
    // The CPU device allows multiple allocations: both requests share cpu-numa0 (32 + 16 <= 64).
    assertThat(fits.allocation()).containsExactly(Map.entry("cpus-numa0", List.of("cpu-numa0")),
        Map.entry("more-numa0", List.of("cpu-numa0")), Map.entry("pages", List.of("hugepages-1gi-numa0")));

    ClaimReport tooMuchTogether = only(match(claim.formatted("48", "32")));
    assertThat(tooMuchTogether.satisfiable()).isFalse();

    ClaimReport tooMuchAlone = only(match(claim.formatted("80", "1")));
    AlternativeReport first = tooMuchAlone.requests().get(0).alternatives().get(0);
    assertThat(first.devices()).isEmpty();
    assertThat(first.rejected()).filteredOn(r -> r.device().equals("cpu-numa0")).singleElement()
        .satisfies(r -> assertThat(r.detail()).isEqualTo("requested 80 but the device has 64"));
  }

  @Test
  void runtimeErrorFailsTheClaimWithTheError() throws Exception {
    ClaimReport claim = only(match("""
        apiVersion: resource.k8s.io/v1
        kind: ResourceClaim
        metadata: {name: unguarded}
        spec:
          devices:
            requests:
            - name: nic
              exactly:
                deviceClassName: rdma.nodeatlas.io
                selectors:
                - cel: {expression: 'device.attributes["nodeatlas.io"].architecture == "hopper"'}
        """));
    assertThat(claim.satisfiable()).isFalse();
    assertThat(claim.reason()).contains("CEL run-time error").contains("architecture").contains("aborts the allocation");
    List<Rejection> errors = claim.requests().get(0).alternatives().get(0).errors();
    assertThat(errors).hasSize(19).allSatisfy(e -> assertThat(e.outcome()).isEqualTo(SelectorResult.Outcome.ERROR));
  }

  @Test
  void explanationNamesTheFailingSelectorAndValues() throws Exception {
    MatchReport report = match("""
        apiVersion: resource.k8s.io/v1
        kind: ResourceClaim
        metadata: {name: numa1}
        spec:
          devices:
            requests:
            - name: gpu
              exactly:
                deviceClassName: gpu.nodeatlas.io
                selectors:
                - cel: {expression: 'device.attributes["resource.kubernetes.io"].numaNode == 1'}
        """);
    AlternativeReport alt = only(report).requests().get(0).alternatives().get(0);
    assertThat(alt.devices()).containsExactly("gpu-4", "gpu-5", "gpu-6", "gpu-7");
    Rejection gpu0 = alt.rejected().stream().filter(r -> r.device().equals("gpu-0")).findFirst().orElseThrow();
    assertThat(gpu0.failedAt()).isEqualTo("request selector #1");
    assertThat(gpu0.observed()).extracting(SelectorResult.Observed::value).containsExactly("0");
    Rejection cpu = alt.rejected().stream().filter(r -> r.device().equals("cpu-numa1")).findFirst().orElseThrow();
    assertThat(cpu.failedAt()).isEqualTo("DeviceClass gpu.nodeatlas.io selector #1");
    assertThat(MatchReportWriter.table(report, true))
        .contains("gpu-0: request selector #1 evaluated to false: device.attributes[\"resource.kubernetes.io\"].numaNode == 1")
        .contains("device.attributes[\"resource.kubernetes.io\"].numaNode = 0");
  }

  @Test
  void invalidSelectorsAndUnknownClassesAreInputErrors() {
    assertThatThrownBy(() -> match("""
        apiVersion: resource.k8s.io/v1
        kind: ResourceClaim
        metadata: {name: typo}
        spec:
          devices:
            requests:
            - name: gpu
              exactly:
                deviceClassName: gpu.nodeatlas.io
                selectors:
                - cel: {expression: 'device.attributes["nodeatlas.io/type"] == "gpu"'}
        """)).isInstanceOf(ClaimInputException.class)
        .hasMessageContaining("request gpu: selector #1 is invalid: compilation failed: line 1, column 40")
        .hasMessageContaining("did you mean: device.attributes[\"nodeatlas.io\"].type == \"gpu\"")
        .hasMessageContaining("\n  " + " ".repeat(39) + "^");
    assertThatThrownBy(() -> match("""
        apiVersion: resource.k8s.io/v1
        kind: ResourceClaim
        metadata: {name: missing}
        spec:
          devices:
            requests:
            - name: gpu
              exactly: {deviceClassName: gpu.example.com}
        """)).isInstanceOf(ClaimInputException.class).hasMessageContaining("\"gpu.example.com\", which is not in the input");
  }
}
