package io.nodeatlas.agent.slices;

import java.util.List;

/**
 * What one publish did. {@code created + updated + deleted == 0} means the API already held exactly
 * the desired pool and nothing was written.
 */
public record PublishResult(long generation, int slices, int devices, int created, int updated, int deleted,
    List<String> warnings) {
  public PublishResult {
    warnings = List.copyOf(warnings);
  }

  public boolean unchanged() {
    return created + updated + deleted == 0;
  }
}
