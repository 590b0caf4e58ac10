package io.nodeatlas.discovery.gpu;

import com.fasterxml.jackson.databind.DeserializationFeature;
import com.fasterxml.jackson.databind.ObjectMapper;
import io.nodeatlas.discovery.share.Placement;
import java.io.IOException;
import java.util.Optional;
import java.util.function.Function;
import java.util.function.Predicate;

/**
 * The gpu family's records in a {@link Placement} (the versioned text the checkpoint keeps for a family): a
 * record kind of ours as JSON, read strictly, so that a record of another kind or version is never taken for one.
 */
final class PlacementRecords {

  private static final ObjectMapper JSON = new ObjectMapper()
      .configure(DeserializationFeature.FAIL_ON_UNKNOWN_PROPERTIES, true);

  private PlacementRecords() {}

  static Placement write(int version, Object record) {
    try {
      return new Placement(version, JSON.writeValueAsString(record));
    } catch (IOException e) {
      throw new IllegalStateException(e);
    }
  }

  /** The record in {@code p} when it has our {@code version} and {@code kind} and is {@code valid}; else empty. */
  static <T> Optional<T> read(Placement p, int version, String kind, Class<T> type, Function<T, String> kindOf,
      Predicate<T> valid) {
    if (p.version() != version || !p.value().contains(kind)) {
      return Optional.empty();
    }
    try {
      T r = JSON.readValue(p.value(), type);
      return kind.equals(kindOf.apply(r)) && valid.test(r) ? Optional.of(r) : Optional.empty();
    } catch (IOException e) {
      return Optional.empty();
    }
  }
}
