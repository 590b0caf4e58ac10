package io.nodeatlas.discovery.engine;

import static org.assertj.core.api.Assertions.assertThat;

import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.regex.Matcher;
import java.util.regex.Pattern;
import java.util.stream.Stream;
import org.junit.jupiter.api.Test;

/**
 * The packages of discovery-api in layers: the facts (host, model, parse, pci, topology, report, ...)
 * below the source contract ({@code spi}), the contract below the engine that runs sources
 * ({@code engine}). No package imports one above it, so the contract can be read, and changed, alone.
 */
class PackageLayersTest {

  static final Path SOURCES = Path.of("src/main/java/io/nodeatlas/discovery");
  private static final Pattern IMPORT = Pattern.compile("^import (?:static )?io\\.nodeatlas\\.discovery\\.([a-z0-9_]+)\\.", Pattern.MULTILINE);

  static int layer(String pkg) {
    return switch (pkg) {
      case "engine" -> 2;
      case "spi" -> 1;
      default -> 0;
    };
  }

  @Test
  void noPackageImportsALayerAboveIt() throws IOException {
    List<String> problems = new ArrayList<>();
    try (Stream<Path> files = Files.walk(SOURCES)) {
      for (Path f : files.filter(p -> p.toString().endsWith(".java")).toList()) {
        String pkg = SOURCES.relativize(f).getName(0).toString();
        Matcher m = IMPORT.matcher(Files.readString(f));
        while (m.find()) {
          if (layer(m.group(1)) > layer(pkg)) {
            problems.add(SOURCES.relativize(f) + " imports io.nodeatlas.discovery." + m.group(1));
          }
        }
      }
    }
    assertThat(problems).as("discovery-api's layers: facts < spi (the contract) < engine").isEmpty();
  }

  @Test
  void theCheckSeesTheEngineImportTheContract() throws IOException {
    Matcher m = IMPORT.matcher(Files.readString(SOURCES.resolve("engine/NodeDiscovery.java")));
    List<String> imported = new ArrayList<>();
    while (m.find()) {
      imported.add(m.group(1));
    }
    assertThat(imported).as("the pattern finds the engine's imports of the contract").contains("spi", "report");
  }
}
