package io.nodeatlas.match.claims;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import io.nodeatlas.match.claims.ClaimModel.AllocationMode;
import io.nodeatlas.match.claims.ClaimModel.Claim;
import io.nodeatlas.match.claims.ClaimModel.ConstraintKind;
import io.nodeatlas.match.claims.ClaimModel.Documents;
import java.math.BigDecimal;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.CsvSource;

class ClaimDocumentParserTest {

  private final ClaimDocumentParser parser = new ClaimDocumentParser();

  @Test
  void readsAllThreeKindsFromOneYamlStream() throws Exception {
    Documents docs = parser.parse("in.yaml", """
        apiVersion: resource.k8s.io/v1
        kind: DeviceClass
        metadata: {name: gpu.nodeatlas.io}
        spec:
          selectors:
          - cel:
              expression: |-
                device.driver == "nodeatlas.io" &&
                device.attributes["nodeatlas.io"].type == "gpu"
        ---
        # an empty document is skipped
        ---
        apiVersion: resource.k8s.io/v1
        kind: ResourceClaimTemplate
        metadata: {name: t, namespace: ns}
        spec:
          spec:
            devices:
              requests:
              - name: cpus
                exactly:
                  deviceClassName: cpu.nodeatlas.io
                  capacity: {requests: {nodeatlas.io/cpu: 500m}}
              constraints:
              - requests: [cpus]
                distinctAttribute: resource.kubernetes.io/numaNode
        ---
        apiVersion: resource.k8s.io/v1beta1
        kind: ResourceClaim
        metadata: {name: old}
        spec:
          devices:
            requests:
            - name: all
              deviceClassName: gpu.nodeatlas.io
              allocationMode: All
        """);
    assertThat(docs.deviceClasses()).singleElement().satisfies(c -> {
      assertThat(c.selectors()).containsExactly("device.driver == \"nodeatlas.io\" &&\ndevice.attributes[\"nodeatlas.io\"].type == \"gpu\"");
      assertThat(c.origin().toString()).isEqualTo("in.yaml#1");
    });
    Claim template = docs.claims().get(0);
    assertThat(template.displayName()).isEqualTo("ResourceClaimTemplate ns/t");
    assertThat(template.origin().document()).isEqualTo(3);
    assertThat(template.requests().get(0).alternatives().get(0).capacityRequests())
        .containsEntry("nodeatlas.io/cpu", new BigDecimal("0.500"));
    assertThat(template.constraints().get(0).kind()).isEqualTo(ConstraintKind.DISTINCT_ATTRIBUTE);
    Claim old = docs.claims().get(1);
    assertThat(old.requests().get(0).alternatives().get(0).allocationMode()).isEqualTo(AllocationMode.ALL);
  }

  @Test
  void readsJsonAndLists() throws Exception {
    Documents docs = parser.parse("in.json", """
        {"apiVersion": "v1", "kind": "List", "items": [
          {"apiVersion": "resource.k8s.io/v1", "kind": "DeviceClass", "metadata": {"name": "a"}},
          {"apiVersion": "resource.k8s.io/v1", "kind": "ResourceClaim", "metadata": {"name": "c"},
           "spec": {"devices": {"requests": [{"name": "r", "exactly": {"deviceClassName": "a", "count": 2}}]}}}
        ]}
        """);
    assertThat(docs.deviceClasses()).extracting(ClaimModel.DeviceClass::name).containsExactly("a");
    assertThat(docs.claims().get(0).requests().get(0).alternatives().get(0).count()).isEqualTo(2);
  }

  @ParameterizedTest
  @CsvSource(delimiter = '|', value = {
      "apiVersion: apps/v1\\nkind: Deployment\\nmetadata: {name: p}|kind \"Deployment\" is not supported",
      "apiVersion: v1\\nkind: Pod\\nmetadata: {name: p}\\nspec: {resourceClaims: [{name: x}]}|exactly one of resourceClaimName",
      "apiVersion: resource.k8s.io/v2\\nkind: DeviceClass\\nmetadata: {name: p}|apiVersion \"resource.k8s.io/v2\"",
      "apiVersion: resource.k8s.io/v1\\nkind: DeviceClass\\nmetadata: {}|without metadata.name",
      "- just\\n- a list|expected a Kubernetes object",
      "key: [unclosed|not valid YAML at line",
      "apiVersion: resource.k8s.io/v1\\nkind: ResourceClaim\\nmetadata: {name: c}\\nspec: {devices: {requests: [{name: Bad_Name, exactly: {deviceClassName: a}}]}}|is not a DNS label",
      "apiVersion: resource.k8s.io/v1\\nkind: ResourceClaim\\nmetadata: {name: c}\\nspec: {devices: {requests: [{name: r}]}}|exactly one of exactly or firstAvailable",
      "apiVersion: resource.k8s.io/v1\\nkind: ResourceClaim\\nmetadata: {name: c}\\nspec: {devices: {requests: [{name: r, exactly: {deviceClassName: a, count: 0}}]}}|count: must be greater than zero",
      "apiVersion: resource.k8s.io/v1\\nkind: ResourceClaim\\nmetadata: {name: c}\\nspec: {devices: {requests: [{name: r, exactly: {deviceClassName: a, allocationMode: All, count: 2}}]}}|must not be specified when allocationMode is All",
      "apiVersion: resource.k8s.io/v1\\nkind: ResourceClaim\\nmetadata: {name: c}\\nspec: {devices: {requests: [{name: r, exactly: {deviceClassName: a, allocationMode: Some}}]}}|is not ExactCount or All",
      "apiVersion: resource.k8s.io/v1\\nkind: ResourceClaim\\nmetadata: {name: c}\\nspec: {devices: {requests: [{name: r, exactly: {deviceClassName: a}}], constraints: [{matchAttribute: pcieRoot}]}}|must be fully qualified",
      "apiVersion: resource.k8s.io/v1\\nkind: ResourceClaim\\nmetadata: {name: c}\\nspec: {devices: {requests: [{name: r, exactly: {deviceClassName: a}}], constraints: [{requests: [x], matchAttribute: a.io/b}]}}|\"x\" is not a request of this claim",
      "apiVersion: resource.k8s.io/v1\\nkind: ResourceClaim\\nmetadata: {name: c}\\nspec: {devices: {requests: [{name: r, exactly: {deviceClassName: a, selectors: [{cel: {}}]}}]}}|cel.expression is required",
      "apiVersion: resource.k8s.io/v1\\nkind: ResourceClaim\\nmetadata: {name: c}\\nspec: {devices: {requests: [{name: r, exactly: {deviceClassName: a, capacity: {requests: {nodeatlas.io/cpu: 8K}}}}]}}|is not a Kubernetes quantity",
  })
  void rejectsWhatTheApiRejects(String yaml, String message) {
    assertThatThrownBy(() -> parser.parse("bad.yaml", yaml.replace("\\n", "\n")))
        .isInstanceOf(ClaimInputException.class).hasMessageContaining(message).hasMessageStartingWith("bad.yaml");
  }
}
