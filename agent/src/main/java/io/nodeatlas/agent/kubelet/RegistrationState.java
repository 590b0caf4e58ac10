package io.nodeatlas.agent.kubelet;

import java.util.concurrent.atomic.AtomicReference;

/** What the kubelet last said about our registration (NotifyRegistrationStatus), for readiness. */
public final class RegistrationState {

  /** One verdict; {@code error} is the kubelet's text when it refused us. */
  public record Status(boolean notified, boolean registered, String error) {}

  private final AtomicReference<Status> status = new AtomicReference<>(new Status(false, false, ""));

  public Status current() {
    return status.get();
  }

  void record(boolean registered, String error) {
    status.set(new Status(true, registered, error == null ? "" : error));
  }
}
