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
 * NVML has no public call for it; held by several claims' shares, set by the first and reset after the last), and
 * one MPS control daemon per GPU or MIG device, kept while a claim or share holds it ({@code nvidia-cuda-mps-control -d} with {@code CUDA_MPS_PIPE_DIRECTORY} and {@code CUDA_MPS_LOG_DIRECTORY}
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
  private final Path sliceRoot;

  GpuSharing(DriverTools tools, Path stateDir) {
    this.tools = tools;
    this.mpsRoot = stateDir.resolve("mps");
    this.sliceRoot = stateDir.resolve("timeslice");
  }

  /**
   * {@code <state>/mps/<GPU or MIG UUID>}: the one control daemon of that GPU, its {@code pipe} and {@code log}
   * directories and {@code holders} (one empty file per claim or share that uses it).
   */
  Path daemonDir(String visible) {
    return mpsRoot.resolve(safe(visible));
  }

  /** The daemon directory a record names by its pipe and log directories; empty unless it is one of ours. */
  java.util.Optional<Path> recordedDaemonDir(String pipeDir, String logDir) {
    if (pipeDir == null || logDir == null) {
      return java.util.Optional.empty();
    }
    Path dir = Path.of(pipeDir).getParent();
    if (dir == null || !mpsRoot.equals(dir.getParent()) || !dir.resolve("pipe").toString().equals(pipeDir)
        || !dir.resolve("log").toString().equals(logDir)) {
      return java.util.Optional.empty();
    }
    return java.util.Optional.of(dir);
  }

  static Path pipeDir(Path daemonDir) {
    return daemonDir.resolve("pipe");
  }

  static Path logDir(Path daemonDir) {
    return daemonDir.resolve("log");
  }

  /** A claim's name among a GPU's holders: its UID, and the share's id for a share. */
  static String holder(String claimUid, String shareId) {
    return safe(claimUid) + (shareId == null || shareId.isEmpty() ? "" : "." + safe(shareId));
  }

  /** Sets the GPU's compute time slice; {@code IOException} with the tool's words when it fails. */
  void setTimeslice(String gpuUuid, GpuConfig.Interval interval) throws IOException {
    run(tools.nvidiaSmi(), List.of("compute-policy", "-i", gpuUuid, "--set-timeslice=" + interval.number()), Map.of(), "");
  }

  /**
   * Adds {@code holder} to the GPU's time slice held by several claims' shares: the first sets {@code interval}
   * (the others asked the same: {@link GpuSharePlacer}).
   */
  synchronized void acquireTimeslice(String holder, String gpuUuid, GpuConfig.Interval interval) throws IOException {
    Path holders = sliceRoot.resolve(safe(gpuUuid)).resolve("holders");
    boolean first = holdersOf(holders).isEmpty();
    Files.createDirectories(holders);
    touch(holders.resolve(holder));
    if (first) {
      try {
        setTimeslice(gpuUuid, interval);
      } catch (IOException e) {
        Files.deleteIfExists(holders.resolve(holder));
        if (holdersOf(holders).isEmpty()) {
          deleteTree(holders.getParent());
        }
        throw e;
      }
    }
  }

  /** Removes {@code holder}; after the last the GPU's time slice is Default again. */
  synchronized void releaseTimeslice(String holder, String gpuUuid) throws IOException {
    Path dir = sliceRoot.resolve(safe(gpuUuid));
    if (!Files.isDirectory(dir, LinkOption.NOFOLLOW_LINKS)) {
      return;
    }
    Files.deleteIfExists(dir.resolve("holders").resolve(holder));
    if (holdersOf(dir.resolve("holders")).isEmpty()) {
      setTimeslice(gpuUuid, GpuConfig.Interval.Default);
      deleteTree(dir);
    }
  }

  /**
   * Adds {@code holder} to the control daemon in {@code dir} serving {@code visible} (a GPU or MIG UUID), and starts
   * the daemon unless it runs, with the defaults given (none for a GPU several claims share: each client's limits
   * come from its own environment). Nothing of a holder that fails is left.
   */
  synchronized void acquireMps(String holder, Path dir, String visible, Integer activeThreadPercentage,
      Long pinnedLimitBytes) throws IOException {
    Path holders = dir.resolve("holders");
    Files.createDirectories(holders);
    touch(holders.resolve(holder));
    try {
      ensureMps(dir, visible, activeThreadPercentage, pinnedLimitBytes);
    } catch (IOException | RuntimeException e) {
      Files.deleteIfExists(holders.resolve(holder));
      if (holdersOf(holders).isEmpty()) {
        deleteTree(dir);
      }
      throw e;
    }
  }

  /** Removes {@code holder}; after the last the daemon is told to {@code quit} and its directory removed. */
  synchronized void releaseMps(String holder, Path dir, String visible) throws IOException {
    if (!Files.isDirectory(dir, LinkOption.NOFOLLOW_LINKS)) {
      return;
    }
    Files.deleteIfExists(dir.resolve("holders").resolve(holder));
    if (holdersOf(dir.resolve("holders")).isEmpty()) {
      stopMps(dir, visible);
    }
  }

  /**
   * Starts the control daemon in {@code dir} for {@code visible}, with the same directories and defaults, unless
   * the one started before still runs (an agent restart without a reboot). Returns whether it started one.
   */
  synchronized boolean ensureMps(Path dir, String visible, Integer activeThreadPercentage, Long pinnedLimitBytes)
      throws IOException {
    if (mpsRunning(dir)) {
      return false;
    }
    // What a dead daemon left (its PID file; the control socket) is in the GPU's own directory.
    Files.deleteIfExists(pipeDir(dir).resolve(PID_FILE));
    launchMps(dir, visible, activeThreadPercentage, pinnedLimitBytes);
    return true;
  }

  /** Makes the daemon's holders exactly {@code holders} (at start, from the live records). */
  synchronized void setMpsHolders(Path dir, java.util.Set<String> holders) throws IOException {
    setHolders(dir.resolve("holders"), holders);
  }

  /** As {@link #setMpsHolders} for a GPU's time slice. */
  synchronized void setTimesliceHolders(String gpuUuid, java.util.Set<String> holders) throws IOException {
    setHolders(sliceRoot.resolve(safe(gpuUuid)).resolve("holders"), holders);
  }

  /**
   * Whether the control daemon in {@code dir} runs: the PID its {@code nvidia-cuda-mps-control.pid} names (the file
   * the daemon keeps in its pipe directory) is a live process of the control tool. A PID whose command
   * cannot be read counts as running, so a second daemon is never started beside one.
   */
  boolean mpsRunning(Path dir) throws IOException {
    Path file = pipeDir(dir).resolve(PID_FILE);
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

  private void launchMps(Path dir, String visible, Integer activeThreadPercentage, Long pinnedLimitBytes)
      throws IOException {
    Files.createDirectories(pipeDir(dir));
    Files.createDirectories(logDir(dir));
    Map<String, String> env = mpsEnv(dir, visible);
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
        stopMps(dir, visible);
        throw e;
      }
    }
  }

  /** Stops the control daemon in {@code dir} when it runs, and removes the directory. */
  synchronized void stopMps(Path dir, String visible) throws IOException {
    if (!Files.isDirectory(dir, LinkOption.NOFOLLOW_LINKS)) {
      return;
    }
    if (mpsRunning(dir)) {
      run(tools.mpsControl(), List.of(), mpsEnv(dir, visible), "quit\n");
    }
    deleteTree(dir);
  }

  /** The daemon directories under the family's {@code mps} directory (per GPU, or per claim as written before). */
  List<Path> mpsDirs() throws IOException {
    return children(mpsRoot);
  }

  /** The GPU UUIDs whose time slice claims' shares hold. */
  List<String> timesliceGpus() throws IOException {
    return children(sliceRoot).stream().map(p -> p.getFileName().toString()).toList();
  }

  private static List<Path> children(Path root) throws IOException {
    List<Path> out = new ArrayList<>();
    if (!Files.isDirectory(root, LinkOption.NOFOLLOW_LINKS)) {
      return out;
    }
    try (var s = Files.list(root)) {
      s.filter(p -> Files.isDirectory(p, LinkOption.NOFOLLOW_LINKS)).sorted().forEach(out::add);
    }
    return out;
  }

  private static java.util.Set<String> holdersOf(Path holders) throws IOException {
    java.util.Set<String> out = new java.util.TreeSet<>();
    if (!Files.isDirectory(holders, LinkOption.NOFOLLOW_LINKS)) {
      return out;
    }
    try (var s = Files.list(holders)) {
      s.forEach(p -> out.add(p.getFileName().toString()));
    }
    return out;
  }

  private static void setHolders(Path holders, java.util.Set<String> want) throws IOException {
    Files.createDirectories(holders);
    for (String h : holdersOf(holders)) {
      if (!want.contains(h)) {
        Files.deleteIfExists(holders.resolve(h));
      }
    }
    for (String h : want) {
      touch(holders.resolve(h));
    }
  }

  private static void touch(Path file) throws IOException {
    if (!Files.exists(file, LinkOption.NOFOLLOW_LINKS)) {
      Files.createFile(file);
    }
  }

  private Map<String, String> mpsEnv(Path dir, String visible) {
    return Map.of("CUDA_MPS_PIPE_DIRECTORY", pipeDir(dir).toString(), "CUDA_MPS_LOG_DIRECTORY",
        logDir(dir).toString(), "CUDA_VISIBLE_DEVICES", visible);
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
    if (!Files.exists(dir, LinkOption.NOFOLLOW_LINKS)) {
      return;
    }
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

  /** A UID (claim, share, GPU or MIG UUID) as a file name: RFC 4122 text with a prefix; anything else is refused. */
  static String safe(String uid) {
    if (!uid.matches("[A-Za-z0-9-]{1,80}")) {
      throw new IllegalArgumentException(uid + " is not a UID");
    }
    return uid;
  }
}
