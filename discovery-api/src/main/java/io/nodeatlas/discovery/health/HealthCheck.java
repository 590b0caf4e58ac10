package io.nodeatlas.discovery.health;

import io.nodeatlas.discovery.model.Device;
import java.util.List;

/**
 * A source's watch on the health of the devices it published. The agent calls {@link #check} from one
 * thread, periodically (and never concurrently); a call must return within about a second (bounded
 * waits only), so one stuck check cannot hold the others. A device not named in the answer is healthy
 * as far as this check knows; the answer may name only devices of the given list.
 */
public interface HealthCheck extends AutoCloseable {

  /**
   * The problems of {@code devices} (all devices the agent publishes; a check looks at its own source's)
   * right now. A problem that went away is simply not reported again: the device recovers.
   */
  List<DeviceProblem> check(List<Device> devices);

  /** Releases what the check holds (an NVML event set, a session); called once when the agent stops. */
  @Override
  default void close() {}
}
