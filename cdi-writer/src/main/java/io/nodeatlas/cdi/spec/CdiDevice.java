package io.nodeatlas.cdi.spec;

import java.util.Collections;
import java.util.SortedMap;
import java.util.TreeMap;

/** A device of a CDI spec: its name (unique in the spec), optional annotations (CDI ≥ 0.6.0) and its edits. */
public record CdiDevice(String name, SortedMap<String, String> annotations, CdiContainerEdits containerEdits) {

  public CdiDevice {
    name = name == null ? "" : name;
    annotations = annotations == null ? Collections.emptySortedMap()
        : Collections.unmodifiableSortedMap(new TreeMap<>(annotations));
    containerEdits = containerEdits == null ? CdiContainerEdits.EMPTY : containerEdits;
  }

  public CdiDevice(String name, CdiContainerEdits containerEdits) {
    this(name, null, containerEdits);
  }
}
