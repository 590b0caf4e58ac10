package io.nodeatlas.cli.testing;

import java.io.IOException;
import java.io.UncheckedIOException;
import java.nio.file.Files;
import java.nio.file.Path;

/** The repository checkout the tests run in: the nearest directory up from the module with the reactor POM. */
public final class Repo {

  private Repo() {}

  public static Path root() {
    Path dir = Path.of(System.getProperty("user.dir")).toAbsolutePath();
    for (Path d = dir; d != null; d = d.getParent()) {
      Path pom = d.resolve("pom.xml");
      try {
        if (Files.isRegularFile(pom) && Files.readString(pom).contains("<modules>")) {
          return d;
        }
      } catch (IOException e) {
        throw new UncheckedIOException(e);
      }
    }
    throw new IllegalStateException("no reactor pom.xml above " + dir);
  }
}
