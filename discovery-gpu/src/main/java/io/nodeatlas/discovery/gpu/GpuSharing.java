package io.nodeatlas.discovery.gpu;

import java.io.IOException;
import java.io.InputStream;
import java.io.OutputStream;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.LinkOption;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.concurrent.TimeUnit;

/**
 * What a claim's {@link GpuConfig} does on the node: the compute time slice through
 * {@code nvidia-smi compute-policy -i <uuid> --set-timeslice=<0-3>} (as NVIDIA's DRA driver sets it;
 * NVML has no public call for it), and one MPS control daemon per prepared GPU
 * ({@code nvidia-cuda-mps-control -d} with {@code CUDA_MPS_PIPE_DIRECTORY} and {@code CUDA_MPS_LOG_DIRECTORY}
 * under the family's state directory; its defaults set and the daemon stopped through the control's
 * standard input: {@code set_default_active_thread_percentage}, {@code set_default_device_pinned_mem_limit},
 * {@code quit}; NVIDIA MPS documentation, "nvidia-cuda-mps-control"). Each command runs at most
 * {@link #TIMEOUT_SECONDS}; its output is kept short for the message.
 */
final class GpuSharing {

  static final int TIMEOUT_SECONDS = 10;
  /** Where the control daemon keeps its PID, in its pipe directory. */
  static final String PID_FILE = "nvidia-cuda-mps-control.pid";

  private final DriverTools tools;
  private final Path mpsRoot;

  GpuSharing(DriverTools tools, Path stateDir) {
    this.tools = tools;
    this.mpsRoot = stateDir.resolve("mps");
  }

  /** {@code <state>/mps/<claim UID>/pipe} and {@code .../log}. */
  Path pipeDir(String claimUid) {
    return mpsRoot.resolve(safe(claimUid)).resolve("pipe");
  }

  Path logDir(String claimUid) {
    return mpsRoot.resolve(safe(claimUid)).resolve("log");
  }

  /** Sets the GPU's compute time slice; {@code IOException} with the tool's words when it fails. */
  void setTimeslice(String gpuUuid, GpuConfig.Interval interval) throws IOException {
    run(tools.nvidiaSmi(), List.of("compute-policy", "-i", gpuUuid, "--set-timeslice=" + interval.number()), Map.of(), "");
  }

  /** Starts the claim's MPS control daemon for {@code visible} (a GPU or MIG UUID) with the config's defaults. */
  void startMps(String claimUid, String visible, GpuConfig config) throws IOException {
    launchMps(claimUid, visible, config.activeThreadPercentage().orElse(null),
        config.pinnedDeviceMemoryLimitBytes().orElse(null));
  }

  /**
   * At start, for a live claim recorded with MPS: starts its control daemon again, with the same directories
   * and defaults, unless the one started before still runs (an agent restart without a reboot). Returns
   * whether it started one.
   */
  boolean ensureMps(String claimUid, String visible, Integer activeThreadPercentage, Long pinnedLimitBytes)
      throws IOException {
    if (mpsRunning(claimUid)) {
      return false;
    }
    // What a dead daemon left (its PID file; the control socket) is in the claim's own directory.
    Files.deleteIfExists(pipeDir(claimUid).resolve(PID_FILE));
    launchMps(claimUid, visible, activeThreadPercentage, pinnedLimitBytes);
    return true;
  }

  /**
   * Whether the claim's control daemon runs: the PID its {@code nvidia-cuda-mps-control.pid} names (the file
   * the daemon keeps in its pipe directory) is a live process of the control tool. A PID whose command
   * cannot be read counts as running, so a second daemon is never started beside one.
   */
  boolean mpsRunning(String claimUid) throws IOException {
    Path file = pipeDir(claimUid).resolve(PID_FILE);
    if (!Files.isRegularFile(file, LinkOption.NOFOLLOW_LINKS)) {
      return false;
    }
    byte[] text;
    try (var in = Files.newInputStream(file, LinkOption.NOFOLLOW_LINKS)) {
      text = in.readNBytes(32);
    }
    long pid;
    try {
      pid = Long.parseLong(new String(text, StandardCharsets.US_ASCII).strip());
    } catch (NumberFormatException e) {
      return false;
    }
    java.util.Set<String> tool = new java.util.HashSet<>(List.of(tools.mpsControlName()));
    try {
      tool.add(fileName(tools.mpsControl().command()));
    } catch (IOException e) {
      // Not found now: the name it is started by is enough.
    }
    return ProcessHandle.of(pid).filter(ProcessHandle::isAlive).map(h -> {
      ProcessHandle.Info info = h.info();
      if (info.command().isEmpty() && info.arguments().isEmpty()) {
        return true;
      }
      // The tool itself, or a script run by its interpreter (the tests' stand-in).
      return info.command().map(GpuSharing::fileName).filter(tool::contains).isPresent()
          || info.arguments().filter(a -> a.length > 0).map(a -> fileName(a[0])).filter(tool::contains).isPresent();
    }).orElse(false);
  }

  private void launchMps(String claimUid, String visible, Integer activeThreadPercentage, Long pinnedLimitBytes)
      throws IOException {
    Path pipe = pipeDir(claimUid);
    Path log = logDir(claimUid);
    Files.createDirectories(pipe);
    Files.createDirectories(log);
    Map<String, String> env = mpsEnv(claimUid, visible);
    DriverTools.Tool control = tools.mpsControl();
    run(control, List.of("-d"), env, "");
    StringBuilder defaults = new StringBuilder();
    if (activeThreadPercentage != null) {
      defaults.append("set_default_active_thread_percentage ").append(activeThreadPercentage).append('\n');
    }
    if (pinnedLimitBytes != null) {
      defaults.append("set_default_device_pinned_mem_limit 0 ").append(pinnedLimitBytes >> 20).append("M\n");
    }
    if (defaults.length() > 0) {
      try {
        run(control, List.of(), env, defaults.toString());
      } catch (IOException e) {
        stopMps(claimUid, visible);
        throw e;
      }
    }
  }

  /**
   * Stops the claim's MPS control daemon, when its directory is there and the daemon runs, and removes the
   * directory.
   */
  void stopMps(String claimUid, String visible) throws IOException {
    Path dir = mpsRoot.resolve(safe(claimUid));
    if (!Files.isDirectory(dir, LinkOption.NOFOLLOW_LINKS)) {
      return;
    }
    if (mpsRunning(claimUid)) {
      run(tools.mpsControl(), List.of(), mpsEnv(claimUid, visible), "quit\n");
    }
    deleteTree(dir);
  }

  /** The claim UIDs that have an MPS directory. */
  List<String> mpsClaims() throws IOException {
    List<String> out = new ArrayList<>();
    if (!Files.isDirectory(mpsRoot, LinkOption.NOFOLLOW_LINKS)) {
      return out;
    }
    try (var s = Files.list(mpsRoot)) {
      s.filter(p -> Files.isDirectory(p, LinkOption.NOFOLLOW_LINKS)).forEach(p -> out.add(p.getFileName().toString()));
    }
    return out;
  }

  private Map<String, String> mpsEnv(String claimUid, String visible) {
    return Map.of("CUDA_MPS_PIPE_DIRECTORY", pipeDir(claimUid).toString(), "CUDA_MPS_LOG_DIRECTORY",
        logDir(claimUid).toString(), "CUDA_VISIBLE_DEVICES", visible);
  }

  /** Runs a tool with {@code input} on its standard input; its exit status 0 or an exception saying why. */
  private static void run(DriverTools.Tool tool, List<String> args, Map<String, String> env, String input)
      throws IOException {
    List<String> command = new ArrayList<>();
    command.add(tool.command());
    command.addAll(args);
    ProcessBuilder b = new ProcessBuilder(command).redirectErrorStream(true);
    b.environment().putAll(tool.env());
    b.environment().putAll(env);
    Process p;
    try {
      p = b.start();
    } catch (IOException e) {
      throw new IOException(command.get(0) + " cannot be started: " + e.getMessage(), e);
    }
    try (OutputStream in = p.getOutputStream()) {
      in.write(input.getBytes(StandardCharsets.UTF_8));
    } catch (IOException ignored) {
      // A tool that does not read its input closed the pipe: its exit status says what happened.
    }
    byte[] out;
    try (InputStream o = p.getInputStream()) {
      // Waited for first, then only what is there is read: a daemon's child may hold the pipe open. The
      // tools say a line or two, far below the pipe's buffer.
      if (!p.waitFor(TIMEOUT_SECONDS, TimeUnit.SECONDS)) {
        p.destroyForcibly();
        throw new IOException(String.join(" ", command) + " did not finish within " + TIMEOUT_SECONDS + " s");
      }
      out = o.readNBytes(Math.min(4096, o.available()));
    } catch (InterruptedException e) {
      Thread.currentThread().interrupt();
      p.destroyForcibly();
      throw new IOException("interrupted while running " + command.get(0), e);
    }
    if (p.exitValue() != 0) {
      String text = new String(out, StandardCharsets.UTF_8).strip().replaceAll("\\p{Cntrl}", " ");
      throw new IOException(String.join(" ", command) + " failed (exit " + p.exitValue() + ")"
          + (text.isEmpty() ? "" : ": " + (text.length() > 300 ? text.substring(0, 300) + "..." : text)));
    }
  }

  private static void deleteTree(Path dir) throws IOException {
    try (var s = Files.walk(dir)) {
      for (Path p : s.sorted(java.util.Comparator.reverseOrder()).toList()) {
        Files.deleteIfExists(p);
      }
    }
  }

  private static String fileName(String path) {
    Path name = Path.of(path).getFileName();
    return name == null ? path : name.toString();
  }

  /** A claim UID as a directory name: UIDs are RFC 4122 text; anything else is refused. */
  static String safe(String claimUid) {
    if (!claimUid.matches("[A-Za-z0-9-]{1,64}")) {
      throw new IllegalArgumentException("claim UID " + claimUid + " is not a UID");
    }
    return claimUid;
  }
}
