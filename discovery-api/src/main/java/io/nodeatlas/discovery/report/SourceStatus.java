package io.nodeatlas.discovery.report;

import java.util.Locale;
import java.util.Objects;

/**
 * How one selected source ended, and why when it did not run: the reason a source was unavailable
 * or failed travels here, so no consumer has to recover it from warning text.
 */
public record SourceStatus(State state, String reason) {

  /** The three ways a source ends. */
  public enum State {
    /** Ran; it may still have warnings. */
    OK,
    /** Not usable on this host (no NVML, no sysfs class); not a failure. */
    UNAVAILABLE,
    /** Threw or could not read its inputs at all; {@code discover} exits with status 1. */
    FAILED;

    public String jsonName() {
      return name().toLowerCase(Locale.ROOT);
    }
  }

  public static final SourceStatus OK = new SourceStatus(State.OK, "");

  public SourceStatus {
    Objects.requireNonNull(state, "state");
    reason = reason == null ? "" : reason;
  }

  public static SourceStatus unavailable(String reason) {
    return new SourceStatus(State.UNAVAILABLE, reason);
  }

  public static SourceStatus failed(String reason) {
    return new SourceStatus(State.FAILED, reason);
  }

  public boolean isOk() {
    return state == State.OK;
  }

  public boolean isFailed() {
    return state == State.FAILED;
  }

  public boolean isUnavailable() {
    return state == State.UNAVAILABLE;
  }

  /** {@code ok}, {@code unavailable} or {@code failed}, as the {@code discover} document writes it. */
  public String jsonName() {
    return state.jsonName();
  }
}
