package io.nodeatlas.discovery.gpu;

import com.fasterxml.jackson.core.JacksonException;
import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import io.nodeatlas.discovery.host.Excerpt;
import io.nodeatlas.discovery.model.Quantity;
import java.math.BigDecimal;
import java.util.Iterator;
import java.util.List;
import java.util.Optional;
import java.util.Set;

/**
 * A claim's GPU configuration: the opaque parameters of kind {@code GpuConfig}, {@code apiVersion}
 * {@code gpu.nodeatlas.io/v1alpha1}, for driver {@code nodeatlas.io} (KEP-4381 opaque device configuration;
 * reference {@code docs/gpu-config.md}). The field names follow NVIDIA's DRA driver's
 * {@code GpuConfig.sharing} so users can guess them; {@code Exclusive} is ours and the default.
 *
 * <pre>
 * {"apiVersion": "gpu.nodeatlas.io/v1alpha1", "kind": "GpuConfig",
 *  "sharing": {"strategy": "TimeSlicing", "timeSlicingConfig": {"interval": "Short"}}}
 * </pre>
 *
 * Parsed strictly: an unknown field, a wrong type or a bad value is an {@link IllegalArgumentException}
 * naming the field, which fails that claim.
 */
record GpuConfig(Strategy strategy, Interval interval, Optional<Integer> activeThreadPercentage,
    Optional<Long> pinnedDeviceMemoryLimitBytes) {

  static final String GROUP = "gpu.nodeatlas.io";
  static final String API_VERSION = GROUP + "/v1alpha1";
  static final String KIND = "GpuConfig";

  /** How the GPU is shared among the containers of the claim. */
  enum Strategy { Exclusive, TimeSlicing, MPS }

  /**
   * The compute time slice, as {@code nvidia-smi compute-policy --set-timeslice} numbers it (0 default,
   * 1 short, 2 medium, 3 long).
   */
  enum Interval {
    Default, Short, Medium, Long;

    int number() {
      return ordinal();
    }
  }

  static final GpuConfig EXCLUSIVE = new GpuConfig(Strategy.Exclusive, Interval.Default, Optional.empty(), Optional.empty());

  private static final ObjectMapper JSON = new ObjectMapper();

  /**
   * The configuration the claim's opaque parameters give: the last of ours wins (a claim's over its class's,
   * as they come in allocation order); {@link #EXCLUSIVE} when none is ours. Parameters of another API group
   * are another family's and skipped.
   */
  static GpuConfig of(List<String> parameters) {
    GpuConfig out = EXCLUSIVE;
    for (String p : parameters) {
      JsonNode n;
      try {
        n = JSON.readTree(p);
      } catch (JacksonException e) {
        throw new IllegalArgumentException("opaque parameters are not JSON: " + e.getOriginalMessage());
      }
      if (n == null || !n.isObject()) {
        continue;
      }
      JsonNode api = n.get("apiVersion");
      if (api == null || !api.isTextual() || !api.asText().startsWith(GROUP + "/")) {
        continue;
      }
      out = parse(n);
    }
    return out;
  }

  /** One object of our group, checked field by field. */
  static GpuConfig parse(JsonNode n) {
    known(n, "", Set.of("apiVersion", "kind", "sharing"));
    if (!API_VERSION.equals(n.get("apiVersion").asText())) {
      throw new IllegalArgumentException("apiVersion " + Excerpt.of(n.get("apiVersion").asText())
          + " is not supported; use " + API_VERSION);
    }
    JsonNode kind = n.get("kind");
    if (kind == null || !KIND.equals(kind.asText()) || !kind.isTextual()) {
      throw new IllegalArgumentException("kind must be " + KIND + " for apiVersion " + API_VERSION + ", not "
          + (kind == null ? "missing" : Excerpt.of(kind.toString())));
    }
    JsonNode sharing = n.get("sharing");
    if (sharing == null || sharing.isNull()) {
      return EXCLUSIVE;
    }
    object(sharing, "sharing");
    known(sharing, "sharing.", Set.of("strategy", "timeSlicingConfig", "mpsConfig"));
    Strategy strategy = oneOf(sharing.get("strategy"), "sharing.strategy", Strategy.class)
        .orElseThrow(() -> new IllegalArgumentException("sharing.strategy is required: one of Exclusive, TimeSlicing, MPS"));
    JsonNode ts = sharing.get("timeSlicingConfig");
    JsonNode mps = sharing.get("mpsConfig");
    if (ts != null && !ts.isNull() && strategy != Strategy.TimeSlicing) {
      throw new IllegalArgumentException("sharing.timeSlicingConfig is only for strategy TimeSlicing, not " + strategy);
    }
    if (mps != null && !mps.isNull() && strategy != Strategy.MPS) {
      throw new IllegalArgumentException("sharing.mpsConfig is only for strategy MPS, not " + strategy);
    }
    Interval interval = Interval.Default;
    if (ts != null && !ts.isNull()) {
      object(ts, "sharing.timeSlicingConfig");
      known(ts, "sharing.timeSlicingConfig.", Set.of("interval"));
      interval = oneOf(ts.get("interval"), "sharing.timeSlicingConfig.interval", Interval.class).orElse(Interval.Default);
    }
    Optional<Integer> percentage = Optional.empty();
    Optional<Long> limit = Optional.empty();
    if (mps != null && !mps.isNull()) {
      object(mps, "sharing.mpsConfig");
      known(mps, "sharing.mpsConfig.", Set.of("defaultActiveThreadPercentage", "defaultPinnedDeviceMemoryLimit"));
      JsonNode pct = mps.get("defaultActiveThreadPercentage");
      if (pct != null && !pct.isNull()) {
        if (!pct.isIntegralNumber() || pct.asLong() < 1 || pct.asLong() > 100) {
          throw new IllegalArgumentException("sharing.mpsConfig.defaultActiveThreadPercentage must be a whole number "
              + "from 1 to 100, not " + Excerpt.of(pct.toString()));
        }
        percentage = Optional.of(pct.asInt());
      }
      JsonNode mem = mps.get("defaultPinnedDeviceMemoryLimit");
      if (mem != null && !mem.isNull()) {
        limit = Optional.of(memory(mem));
      }
    }
    return new GpuConfig(strategy, interval, percentage, limit);
  }

  /** A quantity of at least 1Mi, in bytes (MPS takes the limit in whole MiB). */
  private static long memory(JsonNode mem) {
    String where = "sharing.mpsConfig.defaultPinnedDeviceMemoryLimit";
    if (!mem.isTextual() && !mem.isIntegralNumber()) {
      throw new IllegalArgumentException(where + " must be a quantity such as 10Gi, not " + Excerpt.of(mem.toString()));
    }
    BigDecimal bytes;
    try {
      bytes = Quantity.parse(mem.asText()).toBigDecimal();
    } catch (RuntimeException e) {
      throw new IllegalArgumentException(where + " must be a quantity such as 10Gi, not " + Excerpt.of(mem.asText()));
    }
    if (bytes.compareTo(BigDecimal.valueOf(1L << 20)) < 0 || bytes.compareTo(BigDecimal.valueOf(Long.MAX_VALUE)) > 0) {
      throw new IllegalArgumentException(where + " must be at least 1Mi, not " + Excerpt.of(mem.asText()));
    }
    return bytes.longValue();
  }

  private static void object(JsonNode n, String where) {
    if (!n.isObject()) {
      throw new IllegalArgumentException(where + " must be an object");
    }
  }

  private static void known(JsonNode n, String prefix, Set<String> fields) {
    for (Iterator<String> it = n.fieldNames(); it.hasNext();) {
      String f = it.next();
      if (!fields.contains(f)) {
        String name = f.matches("[A-Za-z0-9_.-]{1,64}") ? f : Excerpt.of(f);
        throw new IllegalArgumentException("unknown field " + prefix + name + " (known: "
            + String.join(", ", new java.util.TreeSet<>(fields)) + ")");
      }
    }
  }

  private static <E extends Enum<E>> Optional<E> oneOf(JsonNode n, String where, Class<E> type) {
    if (n == null || n.isNull()) {
      return Optional.empty();
    }
    List<String> names = java.util.Arrays.stream(type.getEnumConstants()).map(Enum::name).toList();
    if (n.isTextual() && names.contains(n.asText())) {
      return Optional.of(Enum.valueOf(type, n.asText()));
    }
    throw new IllegalArgumentException(where + " must be one of " + String.join(", ", names) + ", not "
        + Excerpt.of(n.toString()));
  }
}
