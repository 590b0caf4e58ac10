package io.nodeatlas.cdi.spec;

import java.util.Optional;

/** The two encodings runtimes read; only files ending exactly in these extensions are scanned (the reference library's spec directory scan). */
public enum SpecFormat {
  JSON(".json"),
  YAML(".yaml");

  private final String extension;

  SpecFormat(String extension) {
    this.extension = extension;
  }

  public String extension() {
    return extension;
  }

  /** The format a runtime would scan a file of this name as, if any ({@code .yml} is ignored by runtimes). */
  public static Optional<SpecFormat> ofFileName(String fileName) {
    if (fileName.endsWith(JSON.extension)) {
      return Optional.of(JSON);
    }
    if (fileName.endsWith(YAML.extension)) {
      return Optional.of(YAML);
    }
    return Optional.empty();
  }
}
