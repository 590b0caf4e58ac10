package io.nodeatlas.cli.run;

import static org.assertj.core.api.Assertions.assertThat;

import io.nodeatlas.agent.testing.ClaimApiServer;
import io.nodeatlas.cli.Main;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * Issue 36, fewer classes in the agent: {@code run} with a plain kubeconfig (server, token) publishes its
 * ResourceSlices on its own client (docs/design/api-client.md) and loads no class of fabric8's client on
 * the way: fabric8's client is built only for the rare paths that still need it; nor the JDK's
 * {@code java.net.http} client.
 */
class OwnApiClientProcessTest {

  @TempDir Path dir;

  @Test
  void publishesWithoutLoadingFabric8sClient() throws Exception {
    try (ClaimApiServer api = new ClaimApiServer()) {
      Path kubeconfig = api.kubeconfig(dir.resolve("kubeconfig"));
      Path classes = dir.resolve("classes.log");
      Path hostRoot = Files.createDirectories(dir.resolve("host"));
      List<String> cmd = new ArrayList<>(List.of(Path.of(System.getProperty("java.home"), "bin", "java").toString(),
          "-Xmx96m", "--enable-native-access=ALL-UNNAMED", "-Xlog:class+load=info:file=" + classes,
          "-cp", System.getProperty("java.class.path"), Main.class.getName(),
          "run", "--kubeconfig", kubeconfig.toString(), "--node-name", "node-a", "--host-root", hostRoot.toString(),
          "--sources", "cpu-numa", "--cdi-root", dir.resolve("cdi").toString(), "--state-dir", dir.resolve("state").toString(),
          "--kubelet-root", dir.resolve("kubelet").toString()));
      Process p = new ProcessBuilder(cmd).redirectErrorStream(true).redirectOutput(dir.resolve("agent.log").toFile()).start();
      try {
        assertThat(api.awaitSlice(90)).as("a slice written within 90 s:\n" + Files.readString(dir.resolve("agent.log")))
            .isTrue();
        // The watch opens after the publish; give it its time, as an idle agent has.
        io.nodeatlas.agent.testing.Eventually.await("the slice watch opens", () -> {
          try {
            return Files.readString(classes).contains("io.nodeatlas.agent.api.HttpSliceApi$SliceWatch ");
          } catch (java.io.IOException e) {
            throw new java.io.UncheckedIOException(e);
          }
        });
      } finally {
        p.destroy();
        p.waitFor(30, TimeUnit.SECONDS);
      }
      List<String> loaded = Files.readAllLines(classes).stream().map(l -> l.replaceAll("^\\S+ (\\S+) .*$", "$1")).toList();
      assertThat(loaded).contains("io.nodeatlas.agent.api.HttpSliceApi", "io.nodeatlas.agent.api.HttpSliceApi$SliceWatch");
      assertThat(loaded).as("fabric8's client classes")
          .noneMatch(c -> c.startsWith("io.fabric8.kubernetes.client.impl.") || c.startsWith("io.fabric8.kubernetes.client.dsl.")
              || c.startsWith("io.fabric8.kubernetes.client.jdkhttp.") || c.equals("io.fabric8.kubernetes.client.Config"));
      assertThat(loaded).as("the JDK's java.net.http client: the agent's calls run on HttpURLConnection")
          .noneMatch(c -> c.startsWith("java.net.http.") || c.startsWith("jdk.internal.net.http."));
    }
  }
}
