package io.nodeatlas.cli;

import static org.assertj.core.api.Assertions.assertThat;

import io.nodeatlas.cli.testing.Repo;
import io.nodeatlas.discovery.engine.AttributeCatalogue;
import io.nodeatlas.discovery.engine.DiscoverySources;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import org.junit.jupiter.api.Test;

/**
 * {@code docs/attributes.md} is generated from what the installed sources declare
 * ({@code DiscoverySource.catalogue()}); this module is the one that sees every source. The test fails
 * when the file is stale; {@code ./mvnw -pl cli -am verify -Dnodeatlas.catalogue.write=true
 * -Dtest=AttributeCatalogueTest -Dsurefire.failIfNoSpecifiedTests=false} rewrites it. Below the
 * generated tables, from {@link #CHANGES} on, the file keeps a hand-written log of every renamed or
 * re-valued attribute (published names are a user interface: a rename breaks selectors), which a
 * rewrite preserves and which must exist.
 */
class AttributeCatalogueTest {

  static final Path FILE = Repo.root().resolve("docs/attributes.md");

  @Test
  void theCatalogueInDocsIsTheOneTheSourcesDeclare() throws Exception {
    DiscoverySources installed = DiscoverySources.load(AttributeCatalogueTest.class.getClassLoader());
    assertThat(installed.names()).as("the cli module's tests see the installed sources").isNotEmpty();
    String rendered = AttributeCatalogue.render(installed.all());

    if (Boolean.getBoolean("nodeatlas.catalogue.write")) {
      String log = Files.isRegularFile(FILE) ? changeLog(Files.readString(FILE, StandardCharsets.UTF_8)) : "";
      Files.createDirectories(FILE.getParent());
      Files.writeString(FILE, rendered + (log.isEmpty() ? CHANGES + "\n" : log), StandardCharsets.UTF_8);
    }
    assertThat(Files.isRegularFile(FILE)).as(FILE + " is missing; " + HOW_TO_REGENERATE).isTrue();
    String committed = Files.readString(FILE, StandardCharsets.UTF_8);
    String log = changeLog(committed);
    assertThat(log).as(FILE + " has no \"" + CHANGES.strip() + "\" section below the tables").isNotEmpty();
    assertThat(committed.substring(0, committed.length() - log.length()))
        .as(FILE + " is stale: the sources' catalogue() changed; " + HOW_TO_REGENERATE)
        .isEqualTo(rendered);
  }

  /** Where the hand-written change log starts. */
  static final String CHANGES = "\n## Changes to published names and values\n";

  private static String changeLog(String text) {
    int at = text.indexOf(CHANGES);
    return at < 0 ? "" : text.substring(at);
  }

  static final String HOW_TO_REGENERATE = "regenerate it with ./mvnw -pl cli -am verify "
      + "-Dnodeatlas.catalogue.write=true -Dtest=AttributeCatalogueTest -Dsurefire.failIfNoSpecifiedTests=false";
}
