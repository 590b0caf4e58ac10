package io.nodeatlas.cli.run;

import io.nodeatlas.agent.ops.LogSetup;
import io.nodeatlas.agent.run.AgentLauncher;
import io.nodeatlas.agent.run.AgentSettings;
import io.nodeatlas.agent.run.DeviceDiscovery;
import io.nodeatlas.cli.ConfigFile;
import io.nodeatlas.cli.ConfigLocation;
import io.nodeatlas.cli.DiscoveryOptions;
import io.nodeatlas.cli.Flag;
import io.nodeatlas.cli.NodeAtlasCommand;
import io.nodeatlas.cli.SavedReport;
import io.nodeatlas.cli.UsageException;
import io.nodeatlas.discovery.host.HostContext;
import io.nodeatlas.discovery.model.Names;
import io.nodeatlas.discovery.spi.DiscoverySource;
import io.nodeatlas.discovery.engine.NodeDiscovery;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.concurrent.Callable;
import picocli.CommandLine;
import picocli.CommandLine.Command;
import picocli.CommandLine.Mixin;
import picocli.CommandLine.Model.CommandSpec;
import picocli.CommandLine.Model.OptionSpec;
import picocli.CommandLine.Spec;

/**
 * {@code nodeatlas run}: the node agent daemon (a DRA kubelet plugin publishing ResourceSlices, or in
 * standalone mode a keeper of static CDI specs). Every flag has an environment twin and a key in the
 * config file ({@link ConfigFile}). This class only merges them into {@link AgentLauncher}'s settings;
 * the daemon (signals, systemd, the API client) is the agent module's. SIGTERM/SIGINT drain and exit
 * 0; SIGHUP re-reads the config file and re-discovers.
 */
@Command(name = "run", mixinStandardHelpOptions = true,
    description = {"Run the node agent: a DRA kubelet plugin that publishes this node's devices as ResourceSlices.",
        "Without a kubeconfig or in-cluster credentials it runs standalone: it keeps the static CDI specs "
            + "current and serves health and metrics.",
        "Every flag has an environment twin (shown) and a key in the config file: the long name in camel case."})
public final class RunCommand implements Callable<Integer>, Flag.Declaring {

  @Spec CommandSpec spec;

  @Mixin DiscoveryOptions discovery = new DiscoveryOptions();

  public static final Flag<String> DRIVER_NAME = Flag.of("--driver-name", "NAME", String.class, "NODEATLAS_DRIVER_NAME",
      Names.DOMAIN, "DRA driver name");
  static final Flag<String> NODE_NAME = Flag.of("--node-name", "NAME", String.class, "NODE_NAME", "",
      "This node's name in the cluster, from the downward API");
  static final Flag<Path> KUBECONFIG = Flag.of("--kubeconfig", "FILE", Path.class, "KUBECONFIG", "", "Kubeconfig file")
      .defaultShownAs("in-cluster credentials when present, else standalone");
  static final Flag<Boolean> STANDALONE = Flag.of("--standalone", "", boolean.class, "NODEATLAS_STANDALONE", "false",
      "Do not talk to Kubernetes even when credentials exist");
  public static final Flag<Path> KUBELET_ROOT = Flag.of("--kubelet-root", "DIR", Path.class, "NODEATLAS_KUBELET_ROOT",
      "/var/lib/kubelet", "The kubelet's --root-dir");
  public static final Flag<Path> CDI_ROOT = Flag.of("--cdi-root", "DIR", Path.class, "NODEATLAS_CDI_ROOT", "/var/run/cdi",
      "Directory for CDI specs");
  public static final Flag<Path> STATE_DIR = Flag.of("--state-dir", "DIR", Path.class, "NODEATLAS_STATE_DIR",
      "/var/lib/nodeatlas", "Directory of the checkpoint of prepared claims");
  public static final Flag<String> HOOK_PATH = Flag.of("--hook-path", "FILE", String.class, "NODEATLAS_HOOK_PATH",
      "/usr/local/libexec/nodeatlas/cpuset-hook",
      "Where the cpuset/hugetlb OCI hook lies on the host; the CDI specs of CPU and hugepage shares name it and "
          + "runtimes run it on the host (systemd/install.sh puts it at the default; the DaemonSet copies it to "
          + "/var/lib/nodeatlas-hooks/cpuset-hook)");
  public static final Flag<Integer> HTTP_PORT = Flag.of("--http-port", "PORT", int.class, "NODEATLAS_HTTP_PORT", "0",
      "Port for /healthz, /readyz and /metrics; 0 = off").convertedBy(new PortConverter(0, "0 = off"));
  static final Flag<Integer> HEALTHCHECK_PORT = Flag.of("--healthcheck-port", "PORT", int.class,
      "NODEATLAS_HEALTHCHECK_PORT", "-1", "TCP port serving grpc.health.v1 for Kubernetes gRPC probes (SERVING once "
          + "registered with the kubelet); -1 = off, 0 = any free port")
      .convertedBy(new PortConverter(-1, "-1 = off, 0 = any free port"));
  // Loopback by default: the endpoints tell the agent's state to whoever can reach them. The DaemonSet
  // sets the pod IP (downward API status.podIP), where the kubelet's probes connect.
  public static final Flag<String> HTTP_ADDRESS = Flag.of("--http-address", "ADDR", String.class,
      "NODEATLAS_HTTP_ADDRESS", "127.0.0.1", "Address the HTTP port and the healthcheck port bind to");
  static final Flag<Duration> RESYNC_INTERVAL = Flag.of("--resync-interval", "DURATION", Duration.class,
      "NODEATLAS_RESYNC_INTERVAL", "60s", "How often to re-discover and re-publish, e.g. 60s, 5m")
      .convertedBy(new DurationConverter());
  static final Flag<Duration> DRAIN_TIMEOUT = Flag.of("--drain-timeout", "DURATION", Duration.class,
      "NODEATLAS_DRAIN_TIMEOUT", "20s", "How long SIGTERM waits for kubelet calls in flight")
      .convertedBy(new DurationConverter());
  static final Flag<LogSetup.Format> LOG_FORMAT = Flag.of("--log-format", "FORMAT", LogSetup.Format.class,
      "NODEATLAS_LOG_FORMAT", "text", "Log format on stderr: text or json");
  static final Flag<Integer> VERBOSITY = Flag.of("--verbosity", "N", int.class, "NODEATLAS_VERBOSITY", "0",
      "Log verbosity: 0 info, 1-3 our debug messages, 4+ library debug").alias("-v");
  static final Flag<Path> REPLAY_REPORT = Flag.of("--replay-report", "FILE", Path.class, "NODEATLAS_REPLAY_REPORT", "",
      "Serve the devices of a saved `nodeatlas discover -o json` report instead of discovering (re-read on every "
          + "resync; for tests, benchmarks and hosts whose hardware is described elsewhere)");

  static final Flag<Path> FEATURES_DIR = Flag.of("--features-dir", "DIR", Path.class, "NODEATLAS_FEATURES_DIR", "",
      "After every discovery, write the devices' node-feature-discovery labels (docs/labels.md) as DIR/nodeatlas, the "
          + "local feature file nfd-worker reads from /etc/kubernetes/node-feature-discovery/features.d; empty: none")
      .defaultShownAs("none");
  static final Flag<Boolean> RECOVER = Flag.of("--recover", "", boolean.class, "NODEATLAS_RECOVER", "false",
      "When the checkpoint is missing while claim specs of ours exist in the CDI dir (a lost state directory), "
          + "reconcile them from the API server: claims still allocated here are recorded again, other specs removed; "
          + "without it Prepare is refused in that case");
  static final Flag<Boolean> CHECKPOINT_JOURNAL = Flag.of("--checkpoint-journal", "", boolean.class,
      "NODEATLAS_CHECKPOINT_JOURNAL", String.valueOf(AgentSettings.DEFAULT_CHECKPOINT_JOURNAL),
      "Record each Prepare and Unprepare by appending its own checksummed line to a journal beside the checkpoint "
          + "(format v3.0, one fdatasync per group of concurrent claims, compacted into the file as it grows) instead "
          + "of rewriting the whole checkpoint (v2.3); agents of either setting read both");
  static final Flag<String> ROLLING_UPDATE_UID = Flag.of("--rolling-update-uid", "UID", String.class,
      "NODEATLAS_ROLLING_UPDATE_UID", "",
      "This pod's UID, from the downward API (metadata.uid): the old and the new pod of a rolling update then serve "
          + "side by side (kubelet 1.33+), with sockets <driver>-<UID>-reg.sock and plugins/<driver>/dra-<UID>.sock, "
          + "their Prepare and Unprepare calls serialised by a lock in the state directory; empty: fixed socket names, "
          + "one instance at a time")
      .alias("--pod-uid");
  static final Flag<Duration> LOCK_WAIT = Flag.of("--lock-wait", "DURATION", Duration.class, "NODEATLAS_LOCK_WAIT", "5m",
      "How long a starting instance waits for the one holding the state directory to hand over (fixed socket names), "
          + "or for the other instance's call to end (rolling update)")
      .convertedBy(new DurationConverter());

  static final Flag<Boolean> DEVICE_METADATA = Flag.of("--device-metadata", "", boolean.class, "NODEATLAS_DEVICE_METADATA",
      "true", "Mount each prepared request's device metadata file (KEP-5304: the allocated devices' attributes and "
          + "network data, as JSON) read-only into its containers under /var/run/kubernetes.io/dra-device-attributes; "
          + "--device-metadata=false turns it off");

  /** The daemon's own flags; the settings of the agent are named as their config keys ({@link #flagOf}). */
  private final Flag.Table flags = new Flag.Table(DRIVER_NAME, NODE_NAME, KUBECONFIG, STANDALONE, KUBELET_ROOT,
      CDI_ROOT, STATE_DIR, HOOK_PATH, HTTP_PORT, HEALTHCHECK_PORT, HTTP_ADDRESS, RESYNC_INTERVAL, DRAIN_TIMEOUT, LOG_FORMAT,
      VERBOSITY, REPLAY_REPORT, FEATURES_DIR, RECOVER, CHECKPOINT_JOURNAL, ROLLING_UPDATE_UID, LOCK_WAIT,
      DEVICE_METADATA);

  /** The command as the user gave it, before the config file was merged in: what SIGHUP merges the file into again. */
  private RunCommand asGiven = this;

  @Override
  public Flag.Table flags() {
    return flags;
  }

  /** The value given for {@code flag}, by flag, env twin, config file or default. */
  <T> T value(Flag<T> flag) {
    return flags.value(flag);
  }

  @Override
  public Integer call() throws Exception {
    RunCommand effective = withConfigFile(System.getenv());
    return effective.execute();
  }

  /** A copy of this command with the config file's settings merged in (flags and env win). */
  RunCommand withConfigFile(Map<String, String> env) {
    // --config is the host options' (every command that reads the host reads the file).
    Path config = discovery.configFile();
    Path file = config != null ? config : ConfigLocation.DEFAULT;
    List<String> extra = ConfigFile.extraArguments(file, config != null, spec, spec.commandLine().getParseResult(), env);
    if (extra.isEmpty()) {
      return this;
    }
    List<String> args = new ArrayList<>(spec.commandLine().getParseResult().originalArgs());
    // Under the root command the original arguments start with the root's own and this command's name
    // ("run"); only those after it are this command's.
    if (spec.parent() != null) {
      int at = args.indexOf(spec.name());
      if (at >= 0) {
        args = new ArrayList<>(args.subList(at + 1, args.size()));
      }
    }
    args.addAll(extra);
    RunCommand merged = new RunCommand();
    merged.asGiven = asGiven;
    CommandLine cl = NodeAtlasCommand.configure(new CommandLine(merged), discovery.installed());
    try {
      cl.parseArgs(args.toArray(String[]::new));
      // Source settings are text until a source's own rule checks them: check now, so a bad value in
      // the file is reported against the file.
      merged.discovery.sourceOptions();
    } catch (CommandLine.ParameterException | UsageException e) {
      throw new UsageException("config file " + file + ": " + e.getMessage(), e);
    }
    return merged;
  }

  /** Where the devices come from, as this command's flags (and config file) say. */
  private DeviceDiscovery discoveryOf() {
    DeviceDiscovery discover;
    Path replayReport = value(REPLAY_REPORT);
    if (replayReport != null) {
      // Checked once now (a bad file is bad usage), then re-read on every resync like a discovery.
      SavedReport.readForOption("--replay-report", replayReport);
      Path report = replayReport;
      discover = shared -> {
        try {
          return SavedReport.read("--replay-report", report);
        } catch (SavedReport.InvalidReportException e) {
          throw new IllegalStateException(e.getMessage(), e);
        }
      };
    } else {
      List<DiscoverySource> sources = discovery.selectedSources();
      // The families tell what they made for claims (their journals) from what others made.
      HostContext host = discovery.hostContext()
          .withFamilyStateDir(io.nodeatlas.agent.run.AgentSettings.familyStateDir(value(STATE_DIR)));
      // After the API server dropped the fields of shared devices, the sources publish exclusive ones.
      discover = shared -> NodeDiscovery.run(sources, host.withSharedDevicesSupported(shared));
    }
    Path featuresDir = value(FEATURES_DIR);
    if (featuresDir == null) {
      return discover;
    }
    if (!java.nio.file.Files.isDirectory(featuresDir)) {
      throw new UsageException(flags.given(FEATURES_DIR, featuresDir.toString()) + " is not a directory");
    }
    // The labels of the devices this very discovery found: they and the slices never disagree.
    DeviceDiscovery inner = discover;
    return shared -> {
      io.nodeatlas.discovery.report.NodeReport report = inner.discover(shared);
      try {
        io.nodeatlas.cli.labels.FeatureFile.Written w = io.nodeatlas.cli.labels.FeatureFile.write(featuresDir, report.devices());
        if (w.changed()) {
          LOG.info("wrote NFD feature file file={} labels={}", w.file(), w.labels());
        }
      } catch (java.io.IOException | RuntimeException e) {
        LOG.warn("cannot write NFD feature file file={} err=\"{}\"", featuresDir.resolve(io.nodeatlas.cli.labels.FeatureFile.NAME),
            io.nodeatlas.cli.Messages.reason(e));
      }
      return report;
    };
  }

  private static final org.slf4j.Logger LOG = org.slf4j.LoggerFactory.getLogger(RunCommand.class);

  /** Each source watches the health of what it published (NVML XID events, link and port state); none for a replay. */
  private java.util.function.Supplier<List<io.nodeatlas.discovery.health.HealthCheck>> healthChecksOf() {
    if (value(REPLAY_REPORT) != null) {
      return List::of;
    }
    List<DiscoverySource> sources = discovery.selectedSources();
    HostContext host = discovery.hostContext();
    return () -> sources.stream().map(s -> s.healthCheck(host)).flatMap(java.util.Optional::stream).toList();
  }

  /** Each source that makes devices real at Prepare (MIG instances), by name; none for a replay. */
  private java.util.function.Function<Path, Map<String, io.nodeatlas.discovery.share.DeviceRealiser>> realisersOf() {
    if (value(REPLAY_REPORT) != null) {
      return dir -> Map.of();
    }
    List<DiscoverySource> sources = discovery.selectedSources();
    HostContext host = discovery.hostContext();
    return dir -> {
      Map<String, io.nodeatlas.discovery.share.DeviceRealiser> out = new java.util.TreeMap<>();
      sources.forEach(s -> s.deviceRealiser(host, dir).ifPresent(r -> out.put(s.name(), r)));
      return out;
    };
  }

  private int execute() throws Exception {
    DeviceDiscovery discover = discoveryOf();
    try {
      return AgentLauncher.builder()
          .driverName(value(DRIVER_NAME)).nodeName(value(NODE_NAME)).kubeconfig(value(KUBECONFIG))
          .standalone(value(STANDALONE))
          .kubeletRoot(value(KUBELET_ROOT)).cdiRoot(value(CDI_ROOT)).stateDir(value(STATE_DIR)).hookPath(value(HOOK_PATH))
          .httpBindAddress(value(HTTP_ADDRESS)).httpPort(value(HTTP_PORT)).healthcheckPort(value(HEALTHCHECK_PORT))
          .resyncInterval(value(RESYNC_INTERVAL)).drainTimeout(value(DRAIN_TIMEOUT))
          .logFormat(value(LOG_FORMAT)).verbosity(value(VERBOSITY))
          .discovery(discover).healthChecks(healthChecksOf(), java.time.Duration.ofSeconds(10))
          .deviceRealisers(realisersOf()).environment(System.getenv())
          .host(discovery.hostContext().fs()).recover(value(RECOVER)).rollingUpdateUid(value(ROLLING_UPDATE_UID))
          .checkpointJournal(value(CHECKPOINT_JOURNAL)).deviceMetadata(value(DEVICE_METADATA))
          .lockWait(value(LOCK_WAIT))
          // SIGHUP: the config file again (flags and env still win), and the discovery it describes.
          .reload(() -> asGiven.withConfigFile(System.getenv()).discoveryOf())
          .build()
          .run();
    } catch (AgentLauncher.PortTakenException e) {
      // Not bad usage (another process holds the port) but named as the user gave it: the flag and port.
      throw new IllegalStateException(longNameOf(e.setting()) + " " + e.port() + ": address already in use", e);
    } catch (AgentLauncher.SettingException e) {
      throw new UsageException(flagOf(e.setting()) + ": " + e.getMessage(), e);
    }
  }

  /** The flag (and env twin) of an agent setting: its config key is the setting's name. */
  private String flagOf(String setting) {
    for (OptionSpec o : spec.options()) {
      if (ConfigFile.key(o).equals(setting)) {
        return o.longestName() + " (env " + ConfigFile.envName(o) + ")";
      }
    }
    return setting;
  }

  /** The long name of the flag of an agent setting ({@code --http-port}). */
  private String longNameOf(String setting) {
    for (OptionSpec o : spec.options()) {
      if (ConfigFile.key(o).equals(setting)) {
        return o.longestName();
      }
    }
    return setting;
  }

  /** A TCP port, 0 to 65535, or down to {@code min} for the flag's special values. */
  static final class PortConverter implements CommandLine.ITypeConverter<Integer> {
    private final int min;
    private final String special;

    PortConverter(int min, String special) {
      this.min = min;
      this.special = special;
    }

    @Override
    public Integer convert(String value) {
      int port;
      try {
        port = Integer.parseInt(value.trim());
      } catch (NumberFormatException e) {
        throw new CommandLine.TypeConversionException("'" + value + "' is not a port (" + min + "-65535; " + special + ")");
      }
      if (port < min || port > 65535) {
        throw new CommandLine.TypeConversionException(port + " is not a port (" + min + "-65535; " + special + ")");
      }
      return port;
    }
  }

  /** {@code 90s}, {@code 5m}, {@code 1h}, {@code 250ms} or ISO-8601 ({@code PT1M}). */
  static final class DurationConverter implements CommandLine.ITypeConverter<Duration> {
    @Override
    public Duration convert(String value) {
      String v = value.trim();
      try {
        if (v.startsWith("P") || v.startsWith("p")) {
          return Duration.parse(v);
        }
        if (v.endsWith("ms")) {
          return Duration.ofMillis(Long.parseLong(v.substring(0, v.length() - 2)));
        }
        long n = Long.parseLong(v.substring(0, v.length() - 1));
        return switch (v.charAt(v.length() - 1)) {
          case 's' -> Duration.ofSeconds(n);
          case 'm' -> Duration.ofMinutes(n);
          case 'h' -> Duration.ofHours(n);
          default -> throw new CommandLine.TypeConversionException("bad unit");
        };
      } catch (RuntimeException e) {
        throw new CommandLine.TypeConversionException("'" + value + "' is not a duration (examples: 60s, 5m, 1h, 250ms)");
      }
    }
  }
}
