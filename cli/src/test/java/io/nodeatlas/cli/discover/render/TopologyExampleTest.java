package io.nodeatlas.cli.discover.render;

import static org.assertj.core.api.Assertions.assertThat;

import io.nodeatlas.cli.testing.Repo;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import org.junit.jupiter.api.Test;

/**
 * {@code docs/topology-example.svg} is {@code discover -o svg} of the synthetic two-socket node of
 * {@link RenderFixtures} (8 GPUs behind 4 switches, 4 NICs, a CXL memory node). The test fails when the
 * file is stale; {@code -Dnodeatlas.render.write=true} rewrites it.
 */
class TopologyExampleTest {

  static final Path FILE = Repo.root().resolve("docs/topology-example.svg");

  static final String HOW_TO_REGENERATE = "regenerate it with ./mvnw -pl cli -am verify -Dnodeatlas.render.write=true "
      + "-Dtest=TopologyExampleTest -Dsurefire.failIfNoSpecifiedTests=false";

  @Test
  void theExampleInDocsIsWhatTheRendererDrawsToday() throws Exception {
    String rendered = new SvgRenderer(false).render(RenderFixtures.twoSocketNode());
    if (Boolean.getBoolean("nodeatlas.render.write")) {
      Files.createDirectories(FILE.getParent());
      Files.writeString(FILE, rendered, StandardCharsets.UTF_8);
    }
    assertThat(Files.isRegularFile(FILE)).as(FILE + " is missing; " + HOW_TO_REGENERATE).isTrue();
    assertThat(Files.readString(FILE, StandardCharsets.UTF_8)).as(FILE + " is stale; " + HOW_TO_REGENERATE)
        .isEqualTo(rendered);
    assertThat(SvgCheck.layoutProblems(SvgCheck.parse(rendered))).isEmpty();
  }
}
