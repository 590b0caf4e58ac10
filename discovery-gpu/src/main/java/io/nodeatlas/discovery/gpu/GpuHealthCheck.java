package io.nodeatlas.discovery.gpu;

import io.nodeatlas.discovery.gpu.nvml.NvmlDevice;
import io.nodeatlas.discovery.gpu.nvml.NvmlException;
import io.nodeatlas.discovery.gpu.nvml.NvmlLibrary;
import io.nodeatlas.discovery.gpu.nvml.NvmlReturn;
import io.nodeatlas.discovery.gpu.nvml.NvmlSession;
import io.nodeatlas.discovery.gpu.nvml.NvmlSession.NvmlEvent;
import io.nodeatlas.discovery.health.DeviceProblem;
import io.nodeatlas.discovery.health.HealthCheck;
import io.nodeatlas.discovery.model.AttributeValue;
import io.nodeatlas.discovery.model.Device;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.HashSet;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.Set;

/**
 * The health of the GPUs (and their MIG devices) through NVML events, as NVIDIA's device plugin and DRA
 * driver watch them: one session and one event set for the agent's life, every GPU registered for
 * {@code nvmlEventTypeXidCriticalError}; each {@link #check} drains the queued events with a bounded
 * {@code nvmlEventSetWait_v2} and asks every GPU whether it is still there.
 *
 * <ul>
 *   <li>A critical XID makes the GPU (and its MIG devices) unhealthy, {@code xid-<N>}, until the GPU is
 *       reset: NVML has no "recovered" event, and a reset GPU drops off and comes back, which is seen
 *       below. XIDs that report an application's fault, not the GPU's (13, 31, 43, 45, 68, 109: the
 *       defaults NVIDIA's device plugin skips), are ignored. XID 79 (fallen off the bus) is a lost GPU.</li>
 *   <li>A GPU whose queries answer {@code NVML_ERROR_GPU_IS_LOST} is {@code gpu-lost} (lost: pods on it
 *       cannot go on); when it answers again, it and its XIDs are cleared.</li>
 * </ul>
 *
 * A GPU that is lost before the first check cannot be told by UUID and is not reported; no NVML at
 * all means no problems (the source is then unavailable and publishes no GPUs).
 */
public final class GpuHealthCheck implements HealthCheck {

  private static final System.Logger LOG = System.getLogger(GpuHealthCheck.class.getName());

  /** Application XIDs, not device faults (NVIDIA k8s-device-plugin's default skip list). */
  static final Set<Long> APPLICATION_XIDS = Set.of(13L, 31L, 43L, 45L, 68L, 109L);
  /** XID 79: the GPU has fallen off the bus. */
  static final long XID_FALLEN_OFF_BUS = 79;
  /** Events drained per check at most, so a storm cannot hold the poll. */
  static final int MAX_EVENTS_PER_CHECK = 256;

  private final NvmlLibrary library;
  private final int waitMillis;
  private NvmlSession session;
  private long eventSet;
  private boolean eventsOpen;
  /** uuid of each GPU handle, learnt when the session opens. */
  private final Map<Long, String> uuidByHandle = new HashMap<>();
  /** The critical XID last seen per GPU uuid, until the GPU is reset. */
  private final Map<String, Long> xids = new HashMap<>();
  private final Set<String> lost = new HashSet<>();
  private String lastFailure = "";

  /**
   * @param waitMillis how long one check waits for the first event (0: only take what is queued); each
   *     further event is taken without waiting
   */
  public GpuHealthCheck(NvmlLibrary library, int waitMillis) {
    this.library = library;
    this.waitMillis = Math.max(0, waitMillis);
  }

  @Override
  public synchronized List<DeviceProblem> check(List<Device> devices) {
    if (!open()) {
      return List.of();
    }
    drainEvents();
    if (session == null) {
      return List.of();
    }
    probeGpus();
    List<DeviceProblem> problems = new ArrayList<>();
    for (Device d : devices) {
      if (!d.source().equals(GpuDevices.SOURCE)) {
        continue;
      }
      Optional<String> gpu = string(d, GpuDevices.PARENT_UUID).or(() -> string(d, GpuDevices.UUID));
      if (gpu.isEmpty()) {
        continue;
      }
      String uuid = gpu.get();
      if (lost.contains(uuid)) {
        problems.add(new DeviceProblem(d.name(), "gpu-lost", true, "GPU " + uuid + " is lost (NVML_ERROR_GPU_IS_LOST)"));
      } else if (xids.containsKey(uuid)) {
        long xid = xids.get(uuid);
        problems.add(new DeviceProblem(d.name(), "xid-" + xid, xid == XID_FALLEN_OFF_BUS,
            "GPU " + uuid + " reported critical XID " + xid + "; it stays unhealthy until it is reset"));
      }
    }
    return problems;
  }

  private boolean open() {
    if (session != null) {
      return true;
    }
    try {
      session = library.init();
      int count = session.deviceCount();
      for (int i = 0; i < count && i < 1024; i++) {
        try {
          NvmlDevice handle = session.deviceByIndex(i);
          uuidByHandle.put(handle.handle(), session.uuid(handle));
        } catch (NvmlException e) {
          log("GPU " + i + " cannot be watched: " + e.getMessage());
        }
      }
      openEvents();
      return true;
    } catch (NvmlException e) {
      log("NVML (" + library.description() + ") cannot be watched: " + e.getMessage());
      closeSession();
      return false;
    }
  }

  private void openEvents() {
    try {
      eventSet = session.createEventSet();
      eventsOpen = true;
    } catch (NvmlException e) {
      log("no NVML events (" + e.getMessage() + "); only lost GPUs are seen");
      return;
    }
    for (Long handle : uuidByHandle.keySet()) {
      NvmlDevice device = new NvmlDevice(handle);
      try {
        long types = session.supportedEventTypes(device) & NvmlEvent.XID_CRITICAL_ERROR;
        if (types != 0) {
          session.registerEvents(device, types, eventSet);
        }
      } catch (NvmlException e) {
        log("GPU " + uuidByHandle.get(handle) + ": no XID events (" + e.getMessage() + ")");
      }
    }
  }

  private void drainEvents() {
    if (!eventsOpen) {
      return;
    }
    int timeout = waitMillis;
    for (int i = 0; i < MAX_EVENTS_PER_CHECK; i++) {
      Optional<NvmlEvent> event;
      try {
        event = session.waitEvent(eventSet, timeout);
      } catch (NvmlException e) {
        if (e.code() == NvmlReturn.ERROR_UNINITIALIZED.code()) {
          // The library lost its state under us: start again with a new session on the next check.
          log("nvmlEventSetWait_v2: " + e.getMessage() + "; NVML is opened again on the next check");
          closeSession();
          return;
        }
        if (e.code() != NvmlReturn.ERROR_GPU_IS_LOST.code()) {
          log("nvmlEventSetWait_v2: " + e.getMessage());
        }
        // A lost GPU in the set: which one is found by asking each (probeGpus); keep draining.
        timeout = 0;
        continue;
      }
      if (event.isEmpty()) {
        return;
      }
      timeout = 0;
      NvmlEvent e = event.get();
      String uuid = uuidByHandle.get(e.device().handle());
      if (uuid != null && (e.eventType() & NvmlEvent.XID_CRITICAL_ERROR) != 0 && !APPLICATION_XIDS.contains(e.eventData())) {
        xids.put(uuid, e.eventData());
      }
    }
  }

  private void probeGpus() {
    for (Map.Entry<Long, String> gpu : uuidByHandle.entrySet()) {
      String uuid = gpu.getValue();
      try {
        session.uuid(new NvmlDevice(gpu.getKey()));
        if (lost.remove(uuid)) {
          xids.remove(uuid); // it came back: it was reset
        }
      } catch (NvmlException e) {
        if (e.code() == NvmlReturn.ERROR_GPU_IS_LOST.code()) {
          lost.add(uuid);
        }
      }
    }
  }

  private void log(String message) {
    if (!message.equals(lastFailure)) {
      lastFailure = message;
      LOG.log(System.Logger.Level.WARNING, "GPU health: " + message);
    }
  }

  private void closeSession() {
    if (session != null) {
      if (eventsOpen) {
        session.freeEventSet(eventSet);
        eventsOpen = false;
      }
      session.close();
      session = null;
    }
    uuidByHandle.clear();
  }

  @Override
  public synchronized void close() {
    closeSession();
  }

  private static Optional<String> string(Device d, String name) {
    return d.attribute(name).map(AttributeValue::asObject).filter(String.class::isInstance).map(String.class::cast);
  }
}
