package io.nodeatlas.discovery.accel;

import io.nodeatlas.discovery.accel.parse.DevNumber;
import io.nodeatlas.discovery.accel.parse.DrmNodeName;
import java.util.Optional;

/**
 * One DRM minor of a GPU: its name ({@code card0}, {@code renderD128}) and the device number its
 * sysfs {@code dev} attribute gives; empty when that attribute was missing or broken (the node then
 * reaches no container: a device node with a guessed number would be another device).
 */
public record DrmNode(DrmNodeName name, Optional<DevNumber> dev) implements Comparable<DrmNode> {

  @Override
  public int compareTo(DrmNode o) {
    return name.compareTo(o.name);
  }
}
