package io.nodeatlas.cli.fleet;

import static org.assertj.core.api.Assertions.assertThat;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.MappingIterator;
import com.fasterxml.jackson.dataformat.yaml.YAMLMapper;
import io.nodeatlas.cli.testing.Repo;
import java.nio.file.Files;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.regex.Matcher;
import java.util.regex.Pattern;
import org.junit.jupiter.api.Test;

/** The ClusterRole of docs/fleet.md lets a user make every list call of {@code --cluster}, and grants no write. */
class FleetRbacDocTest {

  @Test
  void theDocumentedRoleGrantsEveryListCallAndNothingThatWrites() throws Exception {
    String doc = Files.readString(Repo.root().resolve("docs/fleet.md"));
    Matcher m = Pattern.compile("## RBAC for a read-only user.*?```yaml\n(.*?)```", Pattern.DOTALL).matcher(doc);
    assertThat(m.find()).isTrue();
    List<JsonNode> objects = new ArrayList<>();
    try (MappingIterator<JsonNode> it = new YAMLMapper().readerFor(JsonNode.class).readValues(m.group(1))) {
      it.forEachRemaining(objects::add);
    }
    JsonNode role = objects.stream().filter(o -> o.path("kind").asText().equals("ClusterRole")).findFirst().orElseThrow();
    List<String> granted = new ArrayList<>();
    for (JsonNode rule : role.path("rules")) {
      List<String> verbs = new ArrayList<>();
      rule.path("verbs").forEach(v -> verbs.add(v.asText()));
      assertThat(verbs).as("read-only").isSubsetOf("get", "list", "watch");
      if (verbs.contains("list")) {
        rule.path("apiGroups").forEach(g -> rule.path("resources").forEach(r -> granted.add(g.asText() + "/" + r.asText())));
      }
    }
    for (Map.Entry<String, String> call : FleetOptions.LIST_CALLS.entrySet()) {
      // /api/v1/nodes -> "/nodes"; /apis/resource.k8s.io/v1/resourceslices -> "resource.k8s.io/resourceslices"
      String[] parts = call.getKey().split("/");
      String group = parts[1].equals("api") ? "" : parts[2];
      assertThat(granted).as(call.getKey()).contains(group + "/" + parts[parts.length - 1]);
    }
    JsonNode binding = objects.stream().filter(o -> o.path("kind").asText().equals("ClusterRoleBinding")).findFirst().orElseThrow();
    assertThat(binding.path("roleRef").path("name").asText()).isEqualTo(role.path("metadata").path("name").asText());
  }
}
