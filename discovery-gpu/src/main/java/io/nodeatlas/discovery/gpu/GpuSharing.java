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
import java.util.Optional;
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

  /** What the daemon was started with, kept beside it so that it can be started again while the agent runs. */
  static final String PARAMS_FILE = "daemon.json";
  /** A holder file younger than this counts as live: its Prepare may still be on its way to the checkpoint. */
  static final java.time.Duration HOLDER_GRACE = java.time.Duration.ofMinutes(2);

  private static final System.Logger LOG = System.getLogger(GpuSharing.class.getName());
  private static final com.fasterxml.jackson.databind.ObjectMapper JSON = new com.fasterxml.jackson.databind.ObjectMapper()
      .configure(com.fasterxml.jackson.databind.DeserializationFeature.FAIL_ON_UNKNOWN_PROPERTIES, true);

  /** A daemon's start parameters ({@link #PARAMS_FILE}): the UUID it serves and its defaults. */
  @com.fasterxml.jackson.annotation.JsonInclude(com.fasterxml.jackson.annotation.JsonInclude.Include.NON_NULL)
  record Params(String visible, Integer activeThreadPercentage, Long pinnedLimitBytes) {}

  private final DriverTools tools;
  private final Path mpsRoot;
  private final Path sliceRoot;
  private final MpsShm shm;
  private final java.time.Clock clock;

  GpuSharing(DriverTools tools, Path stateDir, MpsShm shm, java.time.Clock clock) {
    this.tools = tools;
    this.mpsRoot = stateDir.resolve("mps");
    this.sliceRoot = stateDir.resolve("timeslice");
    this.shm = shm;
    this.clock = clock;
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
    // The clients' /dev/shm is bound from here (GpuRealiser.mpsEdits): it exists for a daemon started before too.
    Files.createDirectories(MpsShm.dir(dir));
    writeParams(dir, new Params(visible, activeThreadPercentage, pinnedLimitBytes));
    if (mpsRunning(dir)) {
      return false;
    }
    // What a dead daemon left (its PID file; the control socket) is in the GPU's own directory.
    Files.deleteIfExists(pipeDir(dir).resolve(PID_FILE));
    launchMps(dir, visible, activeThreadPercentage, pinnedLimitBytes);
    return true;
  }

  /**
   * While the agent runs: each daemon directory keeps the holders {@code live} accepts (and those younger than
   * {@link #HOLDER_GRACE}, whose Prepare may not have reached the checkpoint); a daemon without holders is stopped
   * and its directory removed, a daemon that died while held is started again, once, from its {@link #PARAMS_FILE}.
   * Returns the counts of what it did by action ({@code gpu_mps_daemon_restarted}, {@code
   * gpu_mps_daemon_restart_failed}, {@code gpu_mps_daemon_stopped}).
   */
  synchronized Map<String, Integer> upkeep(java.util.function.Predicate<String> live) throws IOException {
    Map<String, Integer> done = new java.util.TreeMap<>();
    java.time.Instant young = clock.instant().minus(HOLDER_GRACE);
    for (Path dir : mpsDirs()) {
      try {
        String action = upkeep(dir, live, young);
        if (action != null) {
          done.merge(action, 1, Integer::sum);
        }
      } catch (IOException | RuntimeException e) {
        LOG.log(System.Logger.Level.WARNING, "MPS control daemon in " + dir + " not checked: " + e.getMessage());
        done.merge("gpu_mps_check_failed", 1, Integer::sum);
      }
    }
    failedBefore.retainAll(mpsDirs());
    return done;
  }

  /** Daemon directories whose last start by {@link #upkeep} failed: logged once, not every check. */
  private final java.util.Set<Path> failedBefore = new java.util.HashSet<>();

  /** One daemon directory's check; the action taken, or null. */
  private String upkeep(Path dir, java.util.function.Predicate<String> live, java.time.Instant young) throws IOException {
    Path holders = dir.resolve("holders");
    java.util.Set<String> kept = new java.util.TreeSet<>();
    for (String h : holdersOf(holders)) {
      Path file = holders.resolve(h);
      if (live.test(h) || Files.getLastModifiedTime(file, LinkOption.NOFOLLOW_LINKS).toInstant().isAfter(young)) {
        kept.add(h);
      } else {
        Files.deleteIfExists(file);
        LOG.log(System.Logger.Level.INFO, "MPS control daemon in " + dir + ": holder " + h + " is no live claim");
      }
    }
    boolean running = mpsRunning(dir);
    if (kept.isEmpty()) {
      stopMps(dir, readParams(dir).map(Params::visible).orElse(""));
      if (running) {
        LOG.log(System.Logger.Level.WARNING, "MPS control daemon in " + dir + " ran without a live claim: stopped");
        return "gpu_mps_daemon_stopped";
      }
      return null;
    }
    if (running) {
      failedBefore.remove(dir);
      return null;
    }
    Optional<Params> p = readParams(dir);
    try {
      if (p.isEmpty()) {
        throw new IOException("its " + PARAMS_FILE + " is missing or unreadable; the agent's next start starts it "
            + "from the claims' records");
      }
      ensureMps(dir, p.get().visible(), p.get().activeThreadPercentage(), p.get().pinnedLimitBytes());
      LOG.log(System.Logger.Level.WARNING, "MPS control daemon for " + p.get().visible() + " had died while held by "
          + kept + ": started again in " + dir);
      failedBefore.remove(dir);
      return "gpu_mps_daemon_restarted";
    } catch (IOException | RuntimeException e) {
      LOG.log(failedBefore.add(dir) ? System.Logger.Level.WARNING : System.Logger.Level.DEBUG, "MPS control daemon in "
          + dir + " died while held by " + kept + " and was not started again (tried again at each check): "
          + e.getMessage());
      return "gpu_mps_daemon_restart_failed";
    }
  }

  private static void writeParams(Path dir, Params p) throws IOException {
    byte[] text = JSON.writeValueAsBytes(p);
    Path file = dir.resolve(PARAMS_FILE);
    if (Files.isRegularFile(file, LinkOption.NOFOLLOW_LINKS) && java.util.Arrays.equals(Files.readAllBytes(file), text)) {
      return;
    }
    Path tmp = dir.resolve(PARAMS_FILE + ".tmp");
    Files.write(tmp, text);
    Files.move(tmp, file, java.nio.file.StandardCopyOption.REPLACE_EXISTING, java.nio.file.StandardCopyOption.ATOMIC_MOVE);
  }

  /** The daemon's {@link #PARAMS_FILE}, when it is a small regular file naming a UUID. */
  static Optional<Params> readParams(Path dir) {
    Path file = dir.resolve(PARAMS_FILE);
    try (var in = Files.newInputStream(file, LinkOption.NOFOLLOW_LINKS)) {
      byte[] text = in.readNBytes(4097);
      if (text.length > 4096 || !Files.isRegularFile(file, LinkOption.NOFOLLOW_LINKS)) {
        return Optional.empty();
      }
      Params p = JSON.readValue(text, Params.class);
      if (p.visible() == null) {
        return Optional.empty();
      }
      safe(p.visible());
      return Optional.of(p);
    } catch (IOException | IllegalArgumentException e) {
      return Optional.empty();
    }
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
    Path shmDir = Files.createDirectories(MpsShm.dir(dir));
    if (!Files.isDirectory(shmDir, LinkOption.NOFOLLOW_LINKS)) {
      // mount(8) follows links: a link here would put the tmpfs or the daemon's /dev/shm elsewhere.
      throw new IOException(shmDir + " is not a directory (a link?); remove it");
    }
    if (shm.tmpfs() && !mounted(shmDir)) {
      run(shm.mountCommand(shmDir), Map.of(), "");
    }
    Map<String, String> env = mpsEnv(dir, visible);
    DriverTools.Tool control = tools.mpsControl();
    List<String> command = new ArrayList<>();
    command.add(control.command());
    command.add("-d");
    try {
      // The driver's libraries are preloaded into the control tool alone, not into unshare, sh and mount.
      run(shm.launchCommand(shmDir, command, control.env()), env, "");
    } catch (IOException e) {
      unmount(shmDir);
      throw new IOException(e.getMessage() + " (the MPS control daemon runs in a private mount namespace with "
          + shmDir + " at /dev/shm: the agent needs CAP_SYS_ADMIN, or user namespaces where it runs without it; "
          + "install systemd/nodeatlas-mps.conf as a drop-in of nodeatlas.service, or deploy the DaemonSet with "
          + "deploy/components/mps)", e);
    }
    LOG.log(System.Logger.Level.INFO, "MPS control daemon for " + visible + " started in " + dir + "; its /dev/shm is "
        + shm.describe(shmDir));
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
    unmount(MpsShm.dir(dir));
    deleteTree(dir);
  }

  /** Whether {@code shmDir} is a mount point in the agent's mount namespace. */
  static boolean mounted(Path shmDir) {
    return MpsShm.mounted(MpsShm.readOrEmpty(Path.of("/proc/self/mountinfo")), shmDir);
  }

  /** Unmounts the daemon's tmpfs when it is mounted (a restarted agent re-finds it in its mount table). */
  private static void unmount(Path shmDir) throws IOException {
    if (mounted(shmDir)) {
      run(MpsShm.unmountCommand(shmDir), Map.of(), "");
    }
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
    Map<String, String> all = new java.util.HashMap<>(tool.env());
    all.putAll(env);
    run(command, all, input);
  }

  /** Runs {@code command} with {@code env} added and {@code input} on its standard input, as above. */
  private static void run(List<String> command, Map<String, String> env, String input) throws IOException {
    ProcessBuilder b = new ProcessBuilder(command).redirectErrorStream(true);
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
