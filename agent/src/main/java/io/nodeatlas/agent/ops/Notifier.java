package io.nodeatlas.agent.ops;

/** The service manager's notification channel (sd_notify); {@link #NONE} when not run by systemd. */
public interface Notifier extends AutoCloseable {

  /** Sends newline-separated {@code KEY=value} assignments ({@code READY=1}, {@code STATUS=...}). */
  void notify(String state);

  @Override
  default void close() {}

  Notifier NONE = state -> {};
}
