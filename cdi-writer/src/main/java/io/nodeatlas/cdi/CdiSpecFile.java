package io.nodeatlas.cdi;

import io.nodeatlas.cdi.spec.CdiSpec;
import io.nodeatlas.cdi.spec.SpecFormat;

/**
 * A spec together with the file name it is written under (no directory) and its encoding; the name
 * ends in the format's extension, as runtimes only scan {@code *.json} and {@code *.yaml}.
 */
public record CdiSpecFile(String fileName, CdiSpec spec, SpecFormat format) {

  public CdiSpecFile {
    if (fileName == null || fileName.isEmpty() || fileName.contains("/") || fileName.startsWith(".")
        || spec == null || format == null || !fileName.endsWith(format.extension())) {
      throw new IllegalArgumentException("spec file name \"" + fileName + "\" must be a plain name ending in "
          + (format == null ? ".json or .yaml" : format.extension()) + " and not starting with '.'");
    }
  }

  /** The fully qualified names ({@code vendor/class=name}) of the spec's devices, in file order. */
  public java.util.List<String> qualifiedDeviceNames() {
    return spec.devices().stream().map(d -> spec.qualifiedName(d.name())).toList();
  }
}
