package io.nodeatlas.discovery.gpu;

import io.nodeatlas.discovery.model.Quantity;
import java.io.IOException;
import java.math.BigDecimal;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.HashSet;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.Set;

/**
 * The {@code /dev/shm} an MPS control daemon shares with its clients: the MPS server and its clients exchange
 * shared memory there as well as through the pipe directory (NVIDIA MPS documentation, "Architecture" and
 * "Running MPS in containers": clients need the server's {@code /dev/shm}), so each daemon gets its own
 * {@code <daemon>/shm}, a size-limited tmpfs where the agent may mount one ({@code CAP_SYS_ADMIN}) and the mount
 * reaches the runtime (the state directory's mount is shared), a plain directory otherwise. The daemon runs in a private mount namespace ({@code unshare(1)}, mount_namespaces(7):
 * a bind mount made there is seen by that namespace's processes only, so the host's {@code /dev/shm} is never
 * covered) with that directory bound at {@code /dev/shm}; each client container gets it there through CDI.
 * Plans commands; {@link GpuSharing} runs them.
 */
final class MpsShm {

  /** The size used when none is set and the node's memory cannot be read (as NVIDIA's DRA driver falls back to). */
  static final long FALLBACK_BYTES = 64L << 20;
  /** {@code CAP_SYS_ADMIN}'s bit in {@code /proc/<pid>/status} {@code CapEff} (capabilities(7)). */
  static final int CAP_SYS_ADMIN = 21;
  /** The source name the tmpfs mounts show in {@code /proc/self/mountinfo}. */
  static final String SOURCE = "nodeatlas-mps-shm";

  /** Binds {@code $1} at {@code /dev/shm} in the new namespace, then runs the rest of the arguments. */
  static final String BIND_SCRIPT = "mount --bind -- \"$1\" /dev/shm && shift && exec \"$@\"";

  private final long tmpfsBytes;
  private final boolean privileged;
  private final boolean shared;
  private final String plainReason;

  /**
   * {@code tmpfsBytes} the tmpfs size limit (0: a plain directory, never a mount); {@code privileged}: the agent may
   * mount ({@code CAP_SYS_ADMIN} in its effective set), else the daemon's namespace is made in a user namespace;
   * {@code shared}: a mount under the state directory reaches the host's mount namespace, where the runtime reads
   * the containers' bind mounts.
   */
  MpsShm(long tmpfsBytes, boolean privileged, boolean shared) {
    this.tmpfsBytes = tmpfsBytes;
    this.privileged = privileged;
    this.shared = shared;
    this.plainReason = tmpfsBytes == 0 ? "--gpu-mps-shm-size is 0"
        : !privileged ? "the agent lacks CAP_SYS_ADMIN to mount a tmpfs"
        : "the state directory's mount is not shared with the host, so a tmpfs mounted there would not reach the "
            + "containers (mount_namespaces(7), shared subtrees)";
  }

  /**
   * From the {@code --gpu-mps-shm-size} value ("" for the default), this process's capabilities and how the mount
   * holding {@code stateDir} propagates.
   */
  static MpsShm of(String size, Path stateDir) {
    return new MpsShm(size.isBlank() ? defaultBytes(readOrEmpty(Path.of("/proc/meminfo"))) : bytes(size),
        privileged(readOrEmpty(Path.of("/proc/self/status"))),
        shared(readOrEmpty(Path.of("/proc/self/mountinfo")), stateDir.toAbsolutePath().normalize()));
  }

  /** Whether a tmpfs is mounted (the agent may, the mount reaches the host, and a size is set); else a plain directory. */
  boolean tmpfs() {
    return privileged && shared && tmpfsBytes > 0;
  }

  /**
   * Whether the mount holding {@code dir} (the longest mount point above it in {@code mountinfo}) is a shared peer
   * ({@code shared:N} among its optional fields, proc(5)): mounts made under it propagate to its peers, the host's
   * among them. A slave ({@code master:N} alone: systemd's ProtectSystem, a pod's volume without
   * {@code Bidirectional}) or private mount keeps them to itself.
   */
  static boolean shared(String mountinfo, Path dir) {
    String best = null;
    boolean bestShared = false;
    for (String line : mountinfo.split("\n", 100_000)) {
      String[] f = line.split(" ");
      if (f.length < 7) {
        continue;
      }
      String point = unescape(f[4]);
      try {
        if (!point.startsWith("/") || !dir.startsWith(Path.of(point))
            || (best != null && point.length() < best.length())) {
          continue;
        }
      } catch (java.nio.file.InvalidPathException e) {
        continue;
      }
      boolean isShared = false;
      for (int i = 6; i < f.length && !f[i].equals("-"); i++) {
        isShared |= f[i].startsWith("shared:");
      }
      // A later line for the same point is mounted over the earlier one.
      best = point;
      bestShared = isShared;
    }
    return bestShared;
  }

  long tmpfsBytes() {
    return tmpfsBytes;
  }

  /** For the log: what the daemon's {@code /dev/shm} is. */
  String describe(Path shm) {
    return tmpfs() ? "a tmpfs of " + (tmpfsBytes >> 20) + " MiB at " + shm
        : "the plain directory " + shm + " (not a tmpfs: " + plainReason + ")";
  }

  static Path dir(Path daemonDir) {
    return daemonDir.resolve("shm");
  }

  /** {@code mount -t tmpfs} of the daemon's directory, size-limited (NVIDIA's driver mounts the same options). */
  List<String> mountCommand(Path shm) {
    return List.of("mount", "-t", "tmpfs", "-o", "rw,nosuid,nodev,noexec,relatime,size=" + tmpfsBytes, SOURCE,
        shm.toString());
  }

  static List<String> unmountCommand(Path shm) {
    return List.of("umount", shm.toString());
  }

  /**
   * The command that starts {@code command} (with {@code env} added for it alone) in a private mount namespace with
   * {@code shm} bound at {@code /dev/shm}: privileged, {@code unshare --mount}; otherwise in a user namespace where the
   * agent's user is root ({@code unshare --map-root-user}, user_namespaces(7): no capability needed, and mount(8)
   * mounts only as root), for tests and development: real MPS clients of other users need the privileged plan.
   */
  List<String> launchCommand(Path shm, List<String> command, Map<String, String> env) {
    List<String> out = new ArrayList<>(List.of("unshare"));
    if (!privileged) {
      out.add("--map-root-user");
    }
    out.addAll(List.of("--mount", "--propagation", "private", "--", "sh", "-c", BIND_SCRIPT, "nodeatlas-mps",
        shm.toString()));
    if (!env.isEmpty()) {
      out.add("env");
      env.forEach((k, v) -> out.add(k + "=" + v));
    }
    out.addAll(command);
    return out;
  }

  /** Whether {@code shm} is a mount point in {@code mountinfo} (proc(5) {@code /proc/self/mountinfo}). */
  static boolean mounted(String mountinfo, Path shm) {
    return mountPoints(mountinfo).contains(shm.toString());
  }

  /** The mount points (field 5) of {@code mountinfo}, their octal escapes decoded; lines that do not parse are skipped. */
  static Set<String> mountPoints(String mountinfo) {
    Set<String> out = new HashSet<>();
    for (String line : mountinfo.split("\n", 100_000)) {
      String[] f = line.split(" ", 6);
      if (f.length >= 5) {
        out.add(unescape(f[4]));
      }
    }
    return out;
  }

  private static String unescape(String s) {
    StringBuilder b = new StringBuilder(s.length());
    for (int i = 0; i < s.length(); i++) {
      char c = s.charAt(i);
      if (c == '\\' && i + 3 < s.length() && s.substring(i + 1, i + 4).matches("[0-3][0-7][0-7]")) {
        b.append((char) Integer.parseInt(s.substring(i + 1, i + 4), 8));
        i += 3;
      } else {
        b.append(c);
      }
    }
    return b.toString();
  }

  /** Half the node's memory ({@code MemTotal}), as the kernel's tmpfs and NVIDIA's DRA driver default to. */
  static long defaultBytes(String meminfo) {
    for (String line : meminfo.split("\n", 200)) {
      if (line.startsWith("MemTotal:")) {
        String[] f = line.substring("MemTotal:".length()).strip().split("\\s+");
        try {
          long kib = Long.parseLong(f[0]);
          if (kib > 0 && kib < Long.MAX_VALUE / 1024) {
            return kib * 1024 / 2;
          }
        } catch (NumberFormatException e) {
          return FALLBACK_BYTES;
        }
      }
    }
    return FALLBACK_BYTES;
  }

  /** Whether {@code CapEff} in {@code status} (proc(5)) has {@code CAP_SYS_ADMIN}. */
  static boolean privileged(String status) {
    for (String line : status.split("\n", 200)) {
      if (line.startsWith("CapEff:")) {
        try {
          return new java.math.BigInteger(line.substring("CapEff:".length()).strip(), 16).testBit(CAP_SYS_ADMIN);
        } catch (NumberFormatException e) {
          return false;
        }
      }
    }
    return false;
  }

  /** A {@code --gpu-mps-shm-size} value in bytes: 0, or a quantity of at least 1Mi. */
  static long bytes(String value) {
    BigDecimal b;
    try {
      b = Quantity.parse(value.strip()).toBigDecimal();
    } catch (RuntimeException e) {
      throw new IllegalArgumentException("must be a quantity such as 1Gi, or 0 for a plain "
          + "directory, not " + value);
    }
    if (b.signum() == 0) {
      return 0;
    }
    if (b.compareTo(BigDecimal.valueOf(1L << 20)) < 0 || b.compareTo(BigDecimal.valueOf(1L << 50)) > 0) {
      throw new IllegalArgumentException("must be 0 or a quantity between 1Mi and 1Pi, not " + value);
    }
    return b.longValue();
  }

  /** What {@code file} holds, at most 1 MiB; empty when it cannot be read. */
  static String readOrEmpty(Path file) {
    try (var in = Files.newInputStream(file)) {
      return new String(in.readNBytes(1 << 20), StandardCharsets.UTF_8);
    } catch (IOException e) {
      return "";
    }
  }

  Optional<String> plainReason() {
    return tmpfs() ? Optional.empty() : Optional.of(plainReason);
  }
}
