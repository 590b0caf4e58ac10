package io.nodeatlas.match;

import static org.assertj.core.api.Assertions.assertThat;

import io.nodeatlas.discovery.model.CounterConsumption;
import io.nodeatlas.discovery.model.CounterSet;
import io.nodeatlas.discovery.model.Device;
import io.nodeatlas.discovery.model.Quantity;
import io.nodeatlas.match.cel.DraCelEnvironment;
import io.nodeatlas.match.claims.ClaimDocumentParser;
import java.util.ArrayList;
import java.util.List;
import java.util.TreeMap;
import org.junit.jupiter.api.Test;

/**
 * Partitionable devices (KEP-4815) in {@code match}: a GPU of 8 memory slices and 7 compute slices
 * published as one counter set, with MIG partitions that consume from it, as the {@code gpu} source's
 * {@code --gpu-mig-partitions} publishes an H200. What earlier claims' partitions consume is gone.
 */
class CounterMatchTest {

  private static final String CLASSES = """
      apiVersion: resource.k8s.io/v1
      kind: DeviceClass
      metadata: {name: mig.nodeatlas.io}
      spec:
        selectors:
        - cel: {expression: 'device.attributes["nodeatlas.io"].type == "mig"'}
      ---
      apiVersion: resource.k8s.io/v1
      kind: DeviceClass
      metadata: {name: gpu.nodeatlas.io}
      spec:
        selectors:
        - cel: {expression: 'device.attributes["nodeatlas.io"].type == "gpu"'}
      """;

  /** A partition of {@code slices} compute slices at memory slices {@code start .. start+size-1}. */
  private static Device partition(String profile, int slices, int start, int size) {
    TreeMap<String, Quantity> uses = new TreeMap<>();
    for (int s = start; s < start + size; s++) {
      uses.put("memory-slice-" + s, Quantity.of(1));
    }
    uses.put("compute-slices", Quantity.of(slices));
    return Device.builder("gpu-0-mig-" + profile + "-" + start, "gpu").attribute(Device.TYPE, "mig")
        .attribute("nodeatlas.io/profile", profile.replaceFirst("-", "."))
        .capacity("nodeatlas.io/multiprocessors", Quantity.of(slices * 16L)).build()
        .withCounters(List.of(), List.of(new CounterConsumption("gpu-0", uses)));
  }

  static List<Device> node() {
    TreeMap<String, Quantity> all = new TreeMap<>();
    for (int s = 0; s < 8; s++) {
      all.put("memory-slice-" + s, Quantity.of(1));
    }
    all.put("compute-slices", Quantity.of(7));
    CounterSet set = new CounterSet("gpu-0", all);
    List<Device> out = new ArrayList<>();
    out.add(Device.builder("gpu-0", "gpu").attribute(Device.TYPE, "gpu").build()
        .withCounters(List.of(set), List.of(new CounterConsumption("gpu-0", all))));
    for (int s = 0; s < 7; s++) {
      out.add(partition("1g-18gb", 1, s, 1));
    }
    out.add(partition("3g-71gb", 3, 0, 4));
    out.add(partition("3g-71gb", 3, 4, 4));
    out.add(partition("4g-71gb", 4, 0, 4));
    out.add(partition("7g-141gb", 7, 0, 8));
    return out;
  }

  static String claim(String name, String profile) {
    return """
        apiVersion: resource.k8s.io/v1
        kind: ResourceClaim
        metadata: {name: %s}
        spec:
          devices:
            requests:
            - name: mig
              exactly:
                deviceClassName: mig.nodeatlas.io
                selectors:
                - cel: {expression: 'device.attributes["nodeatlas.io"].profile == "%s"'}
        """.formatted(name, profile);
  }

  static MatchReport match(String... claims) throws Exception {
    ClaimDocumentParser parser = new ClaimDocumentParser();
    List<io.nodeatlas.match.claims.ClaimModel.Documents> docs = new ArrayList<>();
    docs.add(parser.parse("classes.yaml", CLASSES));
    for (int i = 0; i < claims.length; i++) {
      docs.add(parser.parse("claim" + i + ".yaml", claims[i]));
    }
    return new ClaimMatcher(new DraCelEnvironment()).match("h200", node(), ClaimDocumentParser.merge(docs));
  }

  @Test
  void twoClaimsThatFillTheGpuFitAndAThirdDoesNotForTheCounterThatRanOut() throws Exception {
    MatchReport r = match(claim("a", "4g.71gb"), claim("b", "3g.71gb"), claim("c", "1g.18gb"));
    assertThat(r.claims().get(0).satisfiable()).isTrue();
    assertThat(r.claims().get(0).allocation()).containsEntry("mig", List.of("gpu-0-mig-4g-71gb-0"));
    // The first 3g placement shares memory slices 0..3 with the 4g one: the second placement is taken.
    assertThat(r.claims().get(1).satisfiable()).isTrue();
    assertThat(r.claims().get(1).allocation()).containsEntry("mig", List.of("gpu-0-mig-3g-71gb-4"));
    assertThat(r.claims().get(2).satisfiable()).isFalse();
    assertThat(r.claims().get(2).reason()).contains("earlier claims hold what matches")
        .contains("gpu-0-mig-1g-18gb-0 needs 1 of counter compute-slices in counter set gpu-0, which has 0 of 7 left")
        .contains("consumed by gpu-0-mig-4g-71gb-0 (ResourceClaim a), gpu-0-mig-3g-71gb-4 (ResourceClaim b)");
  }

  @Test
  void overlappingPlacementsNeverGoTogetherAndTheWholeGpuExcludesEveryPartition() throws Exception {
    MatchReport r = match(claim("a", "1g.18gb"), claim("b", "7g.141gb"));
    assertThat(r.claims().get(0).allocation()).containsEntry("mig", List.of("gpu-0-mig-1g-18gb-0"));
    assertThat(r.claims().get(1).satisfiable()).isFalse();
    assertThat(r.claims().get(1).reason()).contains("gpu-0-mig-7g-141gb-0 needs 7 of counter compute-slices")
        .contains("6 of 7 left").doesNotContain("memory-slice-0 in counter set gpu-0, which has 0");

    String wholeGpu = """
        apiVersion: resource.k8s.io/v1
        kind: ResourceClaim
        metadata: {name: whole}
        spec: {devices: {requests: [{name: gpu, exactly: {deviceClassName: gpu.nodeatlas.io}}]}}
        """;
    MatchReport w = match(claim("a", "1g.18gb"), wholeGpu);
    assertThat(w.claims().get(1).satisfiable()).isFalse();
    assertThat(w.claims().get(1).reason()).contains("gpu-0 needs 7 of counter compute-slices");

    // Seven 1g slices fill the compute slices; an eighth 1g (there is no eighth placement) does not fit.
    List<String> seven = new ArrayList<>();
    for (int i = 0; i < 8; i++) {
      seven.add(claim("s" + i, "1g.18gb"));
    }
    MatchReport s = match(seven.toArray(String[]::new));
    assertThat(s.claims().subList(0, 7)).allMatch(MatchReport.ClaimReport::satisfiable);
    assertThat(s.claims().get(7).satisfiable()).isFalse();
  }

  @Test
  void withinOneClaimTwoRequestsCannotShareAMemorySlice() throws Exception {
    String both = """
        apiVersion: resource.k8s.io/v1
        kind: ResourceClaim
        metadata: {name: both}
        spec:
          devices:
            requests:
            - name: big
              exactly:
                deviceClassName: mig.nodeatlas.io
                selectors: [{cel: {expression: 'device.attributes["nodeatlas.io"].profile == "4g.71gb"'}}]
            - name: small
              exactly:
                deviceClassName: mig.nodeatlas.io
                selectors: [{cel: {expression: 'device.attributes["nodeatlas.io"].profile == "1g.18gb"'}}]
        """;
    MatchReport r = match(both);
    assertThat(r.claims().get(0).satisfiable()).isTrue();
    assertThat(r.claims().get(0).allocation()).containsEntry("big", List.of("gpu-0-mig-4g-71gb-0"))
        .containsEntry("small", List.of("gpu-0-mig-1g-18gb-4"));
  }
}
