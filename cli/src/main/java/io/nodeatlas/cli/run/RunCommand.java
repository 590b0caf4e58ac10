package io.nodeatlas.cli.run;

import io.nodeatlas.agent.ops.LogSetup;
import io.nodeatlas.agent.run.AgentLauncher;
import io.nodeatlas.cli.DiscoveryOptions;
import io.nodeatlas.cli.NodeAtlasCommand;
import io.nodeatlas.cli.SavedReport;
import io.nodeatlas.cli.UsageException;
import io.nodeatlas.discovery.host.HostContext;
import io.nodeatlas.discovery.model.Names;
import io.nodeatlas.discovery.report.NodeReport;
import io.nodeatlas.discovery.spi.DiscoverySource;
import io.nodeatlas.discovery.spi.NodeDiscovery;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.concurrent.Callable;
import java.util.function.Supplier;
import picocli.CommandLine;
import picocli.CommandLine.Command;
import picocli.CommandLine.Mixin;
import picocli.CommandLine.Model.CommandSpec;
import picocli.CommandLine.Model.OptionSpec;
import picocli.CommandLine.Option;
import picocli.CommandLine.Spec;

/**
 * {@code nodeatlas run}: the node agent daemon (a DRA kubelet plugin publishing ResourceSlices, or in
 * standalone mode a keeper of static CDI specs). Every flag has an environment twin and a key in the
 * config file ({@link ConfigFile}). This class only merges them into {@link AgentLauncher}'s settings;
 * the daemon (signals, systemd, the API client) is the agent module's. SIGTERM/SIGINT drain and exit
 * 0; SIGHUP re-discovers.
 */
@Command(name = "run", mixinStandardHelpOptions = true,
    description = {"Run the node agent: a DRA kubelet plugin that publishes this node's devices as ResourceSlices.",
        "Without a kubeconfig or in-cluster credentials it runs standalone: it keeps the static CDI specs "
            + "current and serves health and metrics.",
        "Every flag has an environment twin (shown) and a key in the config file: the long name in camel case."})
public final class RunCommand implements Callable<Integer> {

  @Spec CommandSpec spec;

  @Mixin DiscoveryOptions discovery = new DiscoveryOptions();

  @Option(names = "--config", paramLabel = "FILE", defaultValue = "${env:NODEATLAS_CONFIG}",
      description = "Config file (default: /etc/nodeatlas/config.yaml when it exists; env NODEATLAS_CONFIG).")
  Path config;

  @Option(names = "--driver-name", paramLabel = "NAME", defaultValue = "${env:NODEATLAS_DRIVER_NAME:-" + Names.DOMAIN + "}",
      description = "DRA driver name (default: ${DEFAULT-VALUE}; env NODEATLAS_DRIVER_NAME).")
  String driverName;

  @Option(names = "--node-name", paramLabel = "NAME", defaultValue = "${env:NODE_NAME}",
      description = "This node's name in the cluster (env NODE_NAME, from the downward API).")
  String nodeName;

  @Option(names = "--kubeconfig", paramLabel = "FILE", defaultValue = "${env:KUBECONFIG}",
      description = "Kubeconfig file (default: in-cluster credentials when present, else standalone; env KUBECONFIG).")
  Path kubeconfig;

  @Option(names = "--standalone", defaultValue = "${env:NODEATLAS_STANDALONE:-false}",
      description = "Do not talk to Kubernetes even when credentials exist (env NODEATLAS_STANDALONE).")
  boolean standalone;

  @Option(names = "--kubelet-root", paramLabel = "DIR", defaultValue = "${env:NODEATLAS_KUBELET_ROOT:-/var/lib/kubelet}",
      description = "The kubelet's --root-dir (default: ${DEFAULT-VALUE}; env NODEATLAS_KUBELET_ROOT).")
  Path kubeletRoot;

  @Option(names = "--cdi-root", paramLabel = "DIR", defaultValue = "${env:NODEATLAS_CDI_ROOT:-/var/run/cdi}",
      description = "Directory for CDI specs (default: ${DEFAULT-VALUE}; env NODEATLAS_CDI_ROOT).")
  Path cdiRoot;

  @Option(names = "--state-dir", paramLabel = "DIR", defaultValue = "${env:NODEATLAS_STATE_DIR:-/var/lib/nodeatlas}",
      description = "Directory of the checkpoint of prepared claims (default: ${DEFAULT-VALUE}; env NODEATLAS_STATE_DIR).")
  Path stateDir;

  @Option(names = "--hook-path", paramLabel = "FILE",
      defaultValue = "${env:NODEATLAS_HOOK_PATH:-/usr/local/libexec/nodeatlas/cpuset-hook}",
      description = "Where the cpuset/hugetlb OCI hook lies on the host; the CDI specs of CPU and hugepage shares name it, "
          + "and runtimes run it on the host (default: ${DEFAULT-VALUE}, where systemd/install.sh puts it; the DaemonSet "
          + "copies it to /var/lib/nodeatlas-hooks/cpuset-hook; env NODEATLAS_HOOK_PATH).")
  String hookPath;

  @Option(names = "--http-port", paramLabel = "PORT", defaultValue = "${env:NODEATLAS_HTTP_PORT:-0}",
      description = "Port for /healthz, /readyz and /metrics; 0 = off (default: ${DEFAULT-VALUE}; env NODEATLAS_HTTP_PORT).")
  int httpPort;

  @Option(names = "--healthcheck-port", paramLabel = "PORT", defaultValue = "${env:NODEATLAS_HEALTHCHECK_PORT:--1}",
      description = "TCP port serving grpc.health.v1 for Kubernetes gRPC probes (SERVING once registered with the "
          + "kubelet); -1 = off, 0 = any free port (default: ${DEFAULT-VALUE}; env NODEATLAS_HEALTHCHECK_PORT).")
  int healthcheckPort;

  @Option(names = "--http-bind-address", paramLabel = "ADDR", defaultValue = "${env:NODEATLAS_HTTP_BIND_ADDRESS:-0.0.0.0}",
      description = "Address the HTTP port binds to (default: ${DEFAULT-VALUE}; env NODEATLAS_HTTP_BIND_ADDRESS).")
  String httpBindAddress;

  @Option(names = "--resync-interval", paramLabel = "DURATION", defaultValue = "${env:NODEATLAS_RESYNC_INTERVAL:-60s}",
      converter = DurationConverter.class,
      description = "How often to re-discover and re-publish, e.g. 60s, 5m (default: ${DEFAULT-VALUE}; env NODEATLAS_RESYNC_INTERVAL).")
  Duration resyncInterval;

  @Option(names = "--drain-timeout", paramLabel = "DURATION", defaultValue = "${env:NODEATLAS_DRAIN_TIMEOUT:-20s}",
      converter = DurationConverter.class,
      description = "How long SIGTERM waits for kubelet calls in flight (default: ${DEFAULT-VALUE}; env NODEATLAS_DRAIN_TIMEOUT).")
  Duration drainTimeout;

  @Option(names = "--log-format", paramLabel = "FORMAT", defaultValue = "${env:NODEATLAS_LOG_FORMAT:-text}",
      description = "Log format on stderr: text or json (default: ${DEFAULT-VALUE}; env NODEATLAS_LOG_FORMAT).")
  LogSetup.Format logFormat;

  @Option(names = {"--verbosity", "-v"}, paramLabel = "N", defaultValue = "${env:NODEATLAS_VERBOSITY:-0}",
      description = "Log verbosity: 0 info, 1-3 our debug messages, 4+ library debug (default: ${DEFAULT-VALUE}; env NODEATLAS_VERBOSITY).")
  int verbosity;

  @Option(names = "--replay-report", paramLabel = "FILE", defaultValue = "${env:NODEATLAS_REPLAY_REPORT}",
      description = "Serve the devices of a saved `nodeatlas discover -o json` report instead of discovering "
          + "(re-read on every resync; for tests, benchmarks and hosts whose hardware is described elsewhere; "
          + "env NODEATLAS_REPLAY_REPORT).")
  Path replayReport;

  static final Path DEFAULT_CONFIG = Path.of("/etc/nodeatlas/config.yaml");

  @Override
  public Integer call() throws Exception {
    RunCommand effective = withConfigFile(System.getenv());
    return effective.execute();
  }

  /** A copy of this command with the config file's settings merged in (flags and env win). */
  RunCommand withConfigFile(Map<String, String> env) {
    Path file = config != null ? config : DEFAULT_CONFIG;
    List<String> extra = ConfigFile.extraArguments(file, config != null, spec, spec.commandLine().getParseResult(), env);
    if (extra.isEmpty()) {
      return this;
    }
    List<String> args = new ArrayList<>(spec.commandLine().getParseResult().originalArgs());
    args.addAll(extra);
    RunCommand merged = new RunCommand();
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

  private int execute() throws Exception {
    Supplier<NodeReport> discover;
    if (replayReport != null) {
      // Checked once now (a bad file is bad usage), then re-read on every resync like a discovery.
      SavedReport.readForOption("--replay-report", replayReport);
      Path report = replayReport;
      discover = () -> {
        try {
          return SavedReport.read("--replay-report", report);
        } catch (SavedReport.InvalidReportException e) {
          throw new IllegalStateException(e.getMessage(), e);
        }
      };
    } else {
      List<DiscoverySource> sources = discovery.selectedSources();
      HostContext host = discovery.hostContext();
      discover = () -> NodeDiscovery.run(sources, host);
    }
    try {
      return AgentLauncher.builder()
          .driverName(driverName).nodeName(nodeName).kubeconfig(kubeconfig).standalone(standalone)
          .kubeletRoot(kubeletRoot).cdiRoot(cdiRoot).stateDir(stateDir).hookPath(hookPath)
          .httpBindAddress(httpBindAddress).httpPort(httpPort).healthcheckPort(healthcheckPort)
          .resyncInterval(resyncInterval).drainTimeout(drainTimeout)
          .logFormat(logFormat).verbosity(verbosity)
          .discovery(discover).environment(System.getenv())
          .build()
          .run();
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
