package io.nodeatlas.cli.packaging;

import static org.assertj.core.api.Assertions.assertThat;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.dataformat.yaml.YAMLMapper;
import dev.cel.bundle.Cel;
import dev.cel.bundle.CelFactory;
import com.google.common.collect.ImmutableCollection;
import com.google.common.collect.ImmutableList;
import com.google.common.collect.ImmutableSet;
import dev.cel.common.types.CelType;
import dev.cel.common.types.CelTypeProvider;
import dev.cel.common.types.ListType;
import dev.cel.common.types.MapType;
import dev.cel.common.types.SimpleType;
import dev.cel.common.types.StructType;
import dev.cel.extensions.CelExtensions;
import dev.cel.extensions.CelOptionalLibrary;
import dev.cel.parser.CelStandardMacro;
import io.fabric8.kubernetes.api.model.HasMetadata;
import io.fabric8.kubernetes.api.model.Namespace;
import io.fabric8.kubernetes.api.model.ServiceAccount;
import io.fabric8.kubernetes.api.model.admissionregistration.v1.ValidatingAdmissionPolicy;
import io.fabric8.kubernetes.api.model.apps.DaemonSet;
import io.fabric8.kubernetes.api.model.rbac.ClusterRoleBinding;
import io.nodeatlas.cli.testing.Repo;
import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.stream.Stream;
import javax.xml.parsers.DocumentBuilderFactory;
import org.junit.jupiter.api.Test;
import org.w3c.dom.Element;

/**
 * deploy/kustomization.yaml as `kubectl apply -k deploy/` reads it: the image pinned at the jar's
 * version, every manifest listed, one namespace, and what follows the ServiceAccount when the namespace
 * is changed. The ValidatingAdmissionPolicy's CEL is evaluated with cel-java as the API server would.
 */
class KustomizationTest {

  static final Path DEPLOY = Repo.root().resolve("deploy");

  final JsonNode kustomization = new YAMLMapper().readTree(DEPLOY.resolve("kustomization.yaml").toFile());
  final List<HasMetadata> manifests = PackagingTest.manifests();
  final ServiceAccount agentAccount = only(ServiceAccount.class);

  KustomizationTest() throws IOException {}

  private <T> T only(Class<T> kind) {
    List<T> found = manifests.stream().filter(kind::isInstance).map(kind::cast).toList();
    assertThat(found).as(kind.getSimpleName()).hasSize(1);
    return found.get(0);
  }

  /** The project's version, as the jar's manifest carries it (the root pom's). */
  static String projectVersion() throws Exception {
    var doc = DocumentBuilderFactory.newInstance().newDocumentBuilder().parse(Repo.root().resolve("pom.xml").toFile());
    var children = doc.getDocumentElement().getChildNodes();
    for (int i = 0; i < children.getLength(); i++) {
      if (children.item(i) instanceof Element e && e.getTagName().equals("version")) {
        return e.getTextContent().trim();
      }
    }
    throw new AssertionError("no version in pom.xml");
  }

  @Test
  void theImageIsPinnedAtTheJarsVersion() throws Exception {
    JsonNode images = kustomization.path("images");
    assertThat(images.size()).as("images: entries").isEqualTo(1);
    String name = images.get(0).path("name").asText();
    assertThat(images.get(0).path("newTag").asText()).as("newTag").isEqualTo(projectVersion());
    DaemonSet ds = only(DaemonSet.class);
    var pod = ds.getSpec().getTemplate().getSpec();
    List<String> used = new ArrayList<>();
    pod.getInitContainers().forEach(c -> used.add(c.getImage()));
    pod.getContainers().forEach(c -> used.add(c.getImage()));
    // The entry rewrites every container's image (the name before the tag), and the file alone says the same.
    assertThat(used).isNotEmpty().allSatisfy(image -> assertThat(image).isEqualTo(name + ":" + projectVersion()));
  }

  @Test
  void everyManifestIsListed() throws IOException {
    List<String> listed = new ArrayList<>();
    kustomization.path("resources").forEach(r -> listed.add(r.asText()));
    try (Stream<Path> files = Files.list(DEPLOY)) {
      assertThat(listed).containsExactlyInAnyOrderElementsOf(files.map(p -> p.getFileName().toString())
          .filter(f -> f.endsWith(".yaml") && !f.equals("kustomization.yaml")).toList());
    }
  }

  /**
   * deploy/components/mps: the agent container patched by name to what an MPS daemon's own /dev/shm
   * needs (privileged, the state mount Bidirectional), and the pod that results still valid by the
   * API's rules (a privileged container may not forbid privilege escalation; Bidirectional
   * propagation only in a privileged container).
   */
  @Test
  void theMpsComponentMakesTheAgentPrivilegedWithABidirectionalStateMount() throws Exception {
    JsonNode component = new YAMLMapper().readTree(DEPLOY.resolve("components/mps/kustomization.yaml").toFile());
    assertThat(component.path("kind").asText()).isEqualTo("Component");
    JsonNode patch = component.path("patches").get(0);
    assertThat(patch.path("target").path("kind").asText()).isEqualTo("DaemonSet");
    DaemonSet base = only(DaemonSet.class);
    assertThat(patch.path("target").path("name").asText()).isEqualTo(base.getMetadata().getName());

    JsonNode patched = new YAMLMapper().readTree(patch.path("patch").asText())
        .path("spec").path("template").path("spec").path("containers").get(0);
    var agent = base.getSpec().getTemplate().getSpec().getContainers().stream()
        .filter(c -> c.getName().equals(patched.path("name").asText())).findFirst();
    assertThat(agent).as("the patch names the base's container").isPresent();
    JsonNode security = patched.path("securityContext");
    assertThat(security.path("$patch").asText()).as("the base's drop ALL and no-escalation go").isEqualTo("replace");
    assertThat(security.path("privileged").asBoolean()).isTrue();
    assertThat(security.has("allowPrivilegeEscalation") && !security.path("allowPrivilegeEscalation").asBoolean())
        .as("privileged with allowPrivilegeEscalation: false is refused by the API server").isFalse();
    assertThat(security.path("readOnlyRootFilesystem").asBoolean()).as("still a read-only root").isTrue();

    JsonNode mount = patched.path("volumeMounts").get(0);
    var state = agent.get().getVolumeMounts().stream().filter(m -> m.getName().equals(mount.path("name").asText()))
        .findFirst();
    assertThat(state).as("the patch names a mount of the base").isPresent();
    assertThat(mount.path("mountPath").asText()).as("the merge key matches the base's mount")
        .isEqualTo(state.get().getMountPath()).isEqualTo("/var/lib/nodeatlas");
    assertThat(mount.path("mountPropagation").asText()).isEqualTo("Bidirectional");
  }

  @Test
  void oneNamespaceForEveryNamespacedObject() {
    String ns = kustomization.path("namespace").asText();
    assertThat(only(Namespace.class).getMetadata().getName()).isEqualTo(ns);
    assertThat(manifests).filteredOn(m -> m.getMetadata().getNamespace() != null)
        .extracting(m -> m.getKind() + " " + m.getMetadata().getNamespace())
        .allSatisfy(s -> assertThat(s).endsWith(" " + ns))
        .anySatisfy(s -> assertThat(s).startsWith("ResourceQuota"));
  }

  @Test
  void theBindingsSubjectFollowsTheServiceAccount() {
    // kustomize's namespace transformer sets the namespace of binding subjects named "default" only
    // (api/filters/namespace, setRoleBindingSubjects: defaultOnly): a replacement must carry ours.
    ClusterRoleBinding binding = only(ClusterRoleBinding.class);
    assertThat(binding.getSubjects()).singleElement().satisfies(s -> {
      assertThat(s.getKind()).isEqualTo("ServiceAccount");
      assertThat(s.getName()).isEqualTo(agentAccount.getMetadata().getName()).isNotEqualTo("default");
    });
    assertThat(kustomization.path("replacements")).anySatisfy(r -> {
      assertThat(r.path("source").path("kind").asText()).isEqualTo("ServiceAccount");
      assertThat(r.path("source").path("name").asText()).isEqualTo(agentAccount.getMetadata().getName());
      assertThat(r.path("source").path("fieldPath").asText()).isEqualTo("metadata.namespace");
      assertThat(r.path("targets")).anySatisfy(t -> {
        assertThat(t.path("select").path("kind").asText()).isEqualTo("ClusterRoleBinding");
        assertThat(t.path("select").path("name").asText()).isEqualTo(binding.getMetadata().getName());
        assertThat(t.path("fieldPaths").get(0).asText())
            .isEqualTo("subjects.[name=" + agentAccount.getMetadata().getName() + "].namespace");
      });
    });
  }

  @Test
  void theAdmissionPolicyBindsTheAgentInWhicheverNamespace() throws Exception {
    ValidatingAdmissionPolicy vap = only(ValidatingAdmissionPolicy.class);
    String condition = vap.getSpec().getMatchConditions().get(0).getExpression();
    String name = agentAccount.getMetadata().getName();
    String home = agentAccount.getMetadata().getNamespace();

    assertThat(evaluate(condition, request("system:serviceaccount:" + home + ":" + name, "n1"), Map.of())).isEqualTo(true);
    assertThat(evaluate(condition, request("system:serviceaccount:gpu-system:" + name, "n1"), Map.of())).isEqualTo(true);
    assertThat(evaluate(condition, request("system:serviceaccount:gpu-system:default", "n1"), Map.of())).isEqualTo(false);
    assertThat(evaluate(condition, request("system:serviceaccount:gpu-system:" + name + "-other", "n1"), Map.of()))
        .isEqualTo(false);
    assertThat(evaluate(condition, request("system:node:n1", "n1"), Map.of())).isEqualTo(false);
  }

  @Test
  void theAdmissionPolicyKeepsTheAgentToItsNode() throws Exception {
    ValidatingAdmissionPolicy vap = only(ValidatingAdmissionPolicy.class);
    assertThat(allowed(vap, "n1", "n1")).isTrue();
    assertThat(allowed(vap, "n1", "n2")).isFalse();
    assertThat(allowed(vap, null, "n1")).as("a token without the node claim").isFalse();
  }

  /** The policy's variables, then its validations, for a CREATE of a slice of {@code sliceNode}. */
  private boolean allowed(ValidatingAdmissionPolicy vap, String tokenNode, String sliceNode) throws Exception {
    Map<String, Object> request = request("system:serviceaccount:gpu-system:nodeatlas", tokenNode);
    Map<String, Object> object = Map.of("spec", Map.of("nodeName", sliceNode));
    Map<String, Object> variables = new HashMap<>();
    for (var v : vap.getSpec().getVariables()) {
      variables.put(v.getName(), evaluate(v.getExpression(), request, object, variables));
    }
    for (var v : vap.getSpec().getValidations()) {
      if (!Boolean.TRUE.equals(evaluate(v.getExpression(), request, object, variables))) {
        return false;
      }
    }
    return true;
  }

  private static Map<String, Object> request(String user, String node) {
    Map<String, Object> extra = node == null ? Map.of() : Map.of("authentication.kubernetes.io/node-name", List.of(node));
    return Map.of("operation", "CREATE", "userInfo", Map.of("username", user, "extra", extra));
  }

  private static Object evaluate(String expression, Map<String, Object> request, Map<String, Object> variables)
      throws Exception {
    return evaluate(expression, request, Map.of(), variables);
  }

  private static Object evaluate(String expression, Map<String, Object> request, Map<String, Object> object,
      Map<String, Object> variables) throws Exception {
    return CEL.createProgram(CEL.compile(expression).getAst())
        .eval(Map.of("request", request, "object", object, "oldObject", Map.of(), "variables", variables));
  }

  // The parts of the admission request, the ResourceSlice and the policy's variables the expressions use,
  // typed as the API server types them (its OpenAPI schemas), so that overloads such as the optional
  // index resolve as they do there.
  private static final StructType USER_INFO = struct("k8s.UserInfo", Map.of("username", SimpleType.STRING,
      "extra", MapType.create(SimpleType.STRING, ListType.create(SimpleType.STRING))));
  private static final StructType REQUEST = struct("k8s.AdmissionRequest",
      Map.of("operation", SimpleType.STRING, "userInfo", USER_INFO));
  private static final StructType SLICE_SPEC = struct("k8s.ResourceSliceSpec", Map.of("nodeName", SimpleType.STRING));
  private static final StructType SLICE = struct("k8s.ResourceSlice", Map.of("spec", SLICE_SPEC));
  private static final StructType VARIABLES = struct("k8s.Variables",
      Map.of("userNodeName", SimpleType.STRING, "objectNodeName", SimpleType.STRING));
  private static final Cel CEL = CelFactory.standardCelBuilder().setStandardMacros(CelStandardMacro.STANDARD_MACROS)
      .setTypeProvider(new CelTypeProvider() {
        @Override
        public ImmutableCollection<CelType> types() {
          return ImmutableList.of(USER_INFO, REQUEST, SLICE_SPEC, SLICE, VARIABLES);
        }

        @Override
        public Optional<CelType> findType(String name) {
          return types().stream().filter(t -> t.name().equals(name)).findFirst();
        }
      })
      .addVar("request", REQUEST).addVar("object", SLICE).addVar("oldObject", SLICE).addVar("variables", VARIABLES)
      .addCompilerLibraries(CelOptionalLibrary.INSTANCE, CelExtensions.strings())
      .addRuntimeLibraries(CelOptionalLibrary.INSTANCE, CelExtensions.strings())
      .build();

  private static StructType struct(String name, Map<String, CelType> fields) {
    return StructType.create(name, ImmutableSet.copyOf(fields.keySet()), f -> Optional.ofNullable(fields.get(f)));
  }
}
