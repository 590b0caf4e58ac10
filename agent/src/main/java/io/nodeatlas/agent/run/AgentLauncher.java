package io.nodeatlas.agent.run;

import io.fabric8.kubernetes.client.Config;
import io.fabric8.kubernetes.client.KubernetesClient;
import io.fabric8.kubernetes.client.KubernetesClientBuilder;
import io.fabric8.kubernetes.client.jdkhttp.JdkHttpClientFactory;
import io.nodeatlas.agent.claims.CorruptCheckpointException;
import io.nodeatlas.agent.kubeconfig.ClientCertificate;
import io.nodeatlas.agent.kubeconfig.KubeconfigAuth;
import io.nodeatlas.agent.ops.AgentMetrics;
import io.nodeatlas.agent.ops.ApiErrors;
import io.nodeatlas.agent.ops.LogSetup;
import io.nodeatlas.agent.ops.Notifier;
import io.nodeatlas.agent.ops.SdNotifier;
import io.nodeatlas.discovery.model.Names;
import io.nodeatlas.discovery.report.NodeReport;
import java.io.IOException;
import java.io.PrintStream;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Clock;
import java.time.Duration;
import java.util.List;
import java.util.Map;
import java.util.Objects;
import java.util.function.Supplier;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * Starts the daemon from merged settings (logging, the API client, systemd, signals) and runs it until
 * SIGTERM or SIGINT, returning the exit status; a setting it cannot use is a {@link SettingException}.
 */
public final class AgentLauncher {

  private static final Logger LOG = LoggerFactory.getLogger(AgentLauncher.class);

  /** A setting the agent cannot run with; {@link #setting()} is its name in {@link Builder}. */
  public static class SettingException extends IllegalArgumentException {
    private static final long serialVersionUID = 1L;
    private final String setting;

    SettingException(String setting, String message) {
      super(message);
      this.setting = setting;
    }

    /** The builder method (and config key) of the setting: {@code nodeName}, {@code resyncInterval}... */
    public String setting() {
      return setting;
    }
  }

  /** A port setting whose port another process holds; the message is {@code <port>: address already in use}. */
  public static final class PortTakenException extends SettingException {
    private static final long serialVersionUID = 1L;
    private final int port;

    PortTakenException(String setting, int port, java.io.IOException cause) {
      super(setting, port + ": address already in use");
      this.port = port;
      initCause(cause);
    }

    public int port() {
      return port;
    }
  }

  /** A port that is taken, named as its setting; any other bind failure as it is. */
  static IOException portProblem(String setting, int port, IOException e) {
    // gRPC's Netty reports a taken port as its own exception ("bind(..) failed: Address already in use")
    // under an IOException; the JDK's as a BindException.
    for (Throwable t = e; t != null && port > 0; t = t.getCause()) {
      if (t instanceof java.net.BindException || String.valueOf(t.getMessage()).contains("Address already in use")) {
        throw new PortTakenException(setting, port, e);
      }
    }
    return e;
  }

  private final Builder b;
  private final Object reloading = new Object();

  private AgentLauncher(Builder b) {
    this.b = b;
  }

  public static Builder builder() {
    return new Builder();
  }

  /** Runs the agent until it is told to stop; returns the process exit status. */
  public int run() throws IOException {
    LogSetup.install(b.logFormat, b.verbosity, b.log);
    ApiAccess client = b.standalone ? null : apiAccess();
    try {
      if (client != null && (b.nodeName == null || b.nodeName.isBlank())) {
        throw new SettingException("nodeName", "required to publish ResourceSlices");
      }
      String node = b.nodeName == null || b.nodeName.isBlank() ? "standalone" : b.nodeName;
      AgentSettings settings = new AgentSettings(b.driverName, node, b.kubeletRoot, b.cdiRoot, b.stateDir,
          b.httpBindAddress, b.httpPort, b.healthcheckPort, b.resyncInterval, b.drainTimeout, b.hookPath, b.host,
          b.rollingUpdateUid, b.recover, b.lockWait, b.checkpointJournal);
      String version = String.valueOf(AgentLauncher.class.getPackage().getImplementationVersion());
      try (Notifier notifier = SdNotifier.fromEnvironment(b.environment)) {
        Agent agent = new Agent(settings, b.discovery, client, notifier,
            SdNotifier.watchdogInterval(b.environment, ProcessHandle.current().pid()), new AgentMetrics(version),
            Clock.systemUTC());
        agent.options(o -> o.withHealthChecks(b.healthChecks.get(), b.healthInterval).withDeviceRealisers(b.deviceRealisers)
            .withDeviceMetadata(b.deviceMetadata));
        LOG.info("starting nodeatlas run mode={} driver={} node={} kubeletRoot={} cdiRoot={} stateDir={} rollingUpdateUID={}",
            agent.standalone() ? "standalone" : "cluster (API server " + client.server() + ")", b.driverName, node,
            b.kubeletRoot, b.cdiRoot, b.stateDir,
            settings.rollingUpdate() ? settings.rollingUpdateUid() : "(none: fixed socket names)");
        // Before start: a SIGTERM while waiting for the state directory's lock ends the wait.
        Signals.onTerminate(agent::requestStop);
        Signals.onHangup(() -> reload(agent));
        try {
          agent.start();
        } catch (SettingException e) {
          agent.close();
          throw e;
        } catch (CorruptCheckpointException e) {
          LOG.error("{}", e.getMessage());
          agent.close();
          return 1;
        } catch (IOException | RuntimeException e) {
          LOG.error("cannot start err=\"{}\"", e.getMessage());
          agent.close();
          return 1;
        }
        agent.run();
        LOG.info("shutting down");
        agent.close();
      }
    } finally {
      if (client != null) {
        client.close();
      }
    }
    return 0;
  }

  /**
   * SIGHUP: reads the config file again (through the {@link Builder#reload} the command gave) and
   * re-discovers with what it says; a file that no longer reads keeps the running settings. The JVM runs
   * each signal's handler on a thread of its own, so reloads are serialised: the last to replace the
   * discovery is the last to have read the file.
   */
  private void reload(Agent agent) {
    if (b.reload == null) {
      agent.requestDiscovery();
      return;
    }
    synchronized (reloading) {
      try {
        DeviceDiscovery next = b.reload.get();
        LOG.info("configuration re-read; discovering again");
        agent.replaceDiscovery(next);
      } catch (RuntimeException e) {
        LOG.error("cannot re-read the configuration, keeping the running one err=\"{}\"", e.getMessage());
        agent.requestDiscovery();
      }
    }
  }

  /**
   * The agent's API access: its own client where the kubeconfig (or the in-cluster service account)
   * allows it, fabric8's for the rare paths, built when first needed; fabric8's alone where only it
   * serves the kubeconfig (exec plugins, proxies, ...). Null without credentials (standalone).
   */
  private ApiAccess apiAccess() throws IOException {
    if (b.kubeconfig != null) {
      if (!Files.isRegularFile(b.kubeconfig)) {
        throw new SettingException("kubeconfig", b.kubeconfig + " is not a file");
      }
      java.util.Optional<io.nodeatlas.agent.kubeconfig.KubeconfigConnection.Read> own;
      try {
        own = io.nodeatlas.agent.kubeconfig.KubeconfigConnection.read(b.kubeconfig, b.environment,
            io.nodeatlas.agent.api.ApiConnection.Limits.DEFAULT);
      } catch (KubeconfigAuth.BadCredentialsException e) {
        throw new SettingException("kubeconfig", e.getMessage());
      }
      Path file = b.kubeconfig;
      return own.map(r -> ApiAccess.own(r.connection(), r.credentials(), () -> fabric8(file)))
          .orElseGet(() -> ApiAccess.of(fabric8(file)));
    }
    if (b.environment.get("KUBERNETES_SERVICE_HOST") != null
        && Files.isReadable(Path.of(Config.KUBERNETES_SERVICE_ACCOUNT_TOKEN_PATH))) {
      try {
        io.nodeatlas.agent.kubeconfig.KubeconfigConnection.Read r = io.nodeatlas.agent.kubeconfig.KubeconfigConnection.inCluster(
            b.environment, Path.of(Config.KUBERNETES_SERVICE_ACCOUNT_TOKEN_PATH).getParent(),
            io.nodeatlas.agent.api.ApiConnection.Limits.DEFAULT);
        return ApiAccess.own(r.connection(), r.credentials(), () -> {
          try {
            return kubernetesClient();
          } catch (IOException e) {
            throw new java.io.UncheckedIOException(e);
          }
        });
      } catch (KubeconfigAuth.BadCredentialsException e) {
        throw new SettingException("kubeconfig", e.getMessage());
      }
    }
    return null;
  }

  private static KubernetesClient fabric8(Path kubeconfig) {
    try {
      return kubernetesClient(kubeconfig);
    } catch (IOException e) {
      throw new java.io.UncheckedIOException(e);
    }
  }

  private KubernetesClient kubernetesClient() throws IOException {
    if (b.kubeconfig != null) {
      return kubernetesClient(b.kubeconfig);
    }
    if (b.environment.get("KUBERNETES_SERVICE_HOST") != null
        && Files.isReadable(Path.of(Config.KUBERNETES_SERVICE_ACCOUNT_TOKEN_PATH))) {
      Config cfg = Config.autoConfigure(null);
      cfg.setAdditionalProperty(KubeconfigAuth.CREDENTIALS, "in-cluster service account token "
          + Config.KUBERNETES_SERVICE_ACCOUNT_TOKEN_PATH);
      return build(cfg, java.util.Optional.empty(), "in-cluster configuration");
    }
    return null;
  }

  /**
   * The agent's API client for {@code kubeconfig}: its server and CA through fabric8, its user's
   * credentials through {@link KubeconfigAuth} (every PEM layout, {@code tokenFile}, rotation). A
   * kubeconfig that cannot serve is a {@link SettingException} that says which member and why.
   */
  static KubernetesClient kubernetesClient(Path kubeconfig) throws IOException {
    if (!Files.isRegularFile(kubeconfig)) {
      throw new SettingException("kubeconfig", kubeconfig + " is not a file");
    }
    String yaml = Files.readString(kubeconfig);
    Config cfg;
    try {
      cfg = Config.fromKubeconfig(null, yaml, kubeconfig.toString());
    } catch (RuntimeException e) {
      throw new SettingException("kubeconfig", kubeconfig + ": " + ApiErrors.describe(e));
    }
    java.util.Optional<ClientCertificate> clientCertificate;
    try {
      clientCertificate = KubeconfigAuth.apply(cfg, kubeconfig, yaml);
    } catch (KubeconfigAuth.BadCredentialsException e) {
      throw new SettingException("kubeconfig", e.getMessage());
    }
    return build(cfg, clientCertificate, kubeconfig.toString());
  }

  private static KubernetesClient build(Config cfg, java.util.Optional<ClientCertificate> clientCertificate, String what) {
    // Fail a call within the kubelet's 45 s budget instead of fabric8's long default retry chain.
    cfg.setConnectionTimeout(5_000);
    cfg.setRequestTimeout(10_000);
    cfg.setRequestRetryBackoffLimit(1);
    cfg.setRequestRetryBackoffInterval(200);
    KubernetesClientBuilder builder = new KubernetesClientBuilder().withConfig(cfg).withHttpClientFactory(
        clientCertificate.<io.fabric8.kubernetes.client.http.HttpClient.Factory>map(
            c -> new io.nodeatlas.agent.kubeconfig.RotatingHttpClients(new JdkHttpClientFactory(), c))
            .orElseGet(JdkHttpClientFactory::new));
    if (clientCertificate.isPresent()) {
      // The client certificate is ours to present (every PEM layout, re-read when rotated); the CA stays fabric8's.
      javax.net.ssl.TrustManager[] trust;
      try {
        trust = io.fabric8.kubernetes.client.internal.SSLUtils.trustManagers(cfg);
      } catch (java.security.GeneralSecurityException | IOException e) {
        throw new SettingException("kubeconfig", what + ": the cluster's certificate authority: " + e.getMessage());
      }
      javax.net.ssl.KeyManager[] keys = {clientCertificate.get()};
      builder.withHttpClientBuilderConsumer(http -> http.sslContext(keys, trust));
    }
    try {
      return builder.build();
    } catch (RuntimeException e) {
      // fabric8's own words ("An error has occurred.") name neither the cause nor the file.
      throw new SettingException("kubeconfig", what + ": " + ApiErrors.describe(e));
    }
  }

  /**
   * The settings; every one is required except {@link #nodeName} (standalone without it) and
   * {@link #kubeconfig} (in-cluster credentials or standalone without it).
   */
  public static final class Builder {
    private String driverName;
    private String nodeName;
    private Path kubeconfig;
    private boolean standalone;
    private Path kubeletRoot;
    private Path cdiRoot;
    private Path stateDir;
    private String hookPath = io.nodeatlas.agent.claims.ClaimPreparer.DEFAULT_HOOK_PATH;
    private String httpBindAddress = "127.0.0.1";
    private int httpPort;
    private int healthcheckPort;
    private Duration resyncInterval;
    private Duration drainTimeout;
    private LogSetup.Format logFormat;
    private int verbosity;
    private DeviceDiscovery discovery;
    private Map<String, String> environment;
    private PrintStream log = System.err;
    private io.nodeatlas.discovery.host.HostFs host;
    private boolean recover;
    private boolean checkpointJournal = AgentSettings.DEFAULT_CHECKPOINT_JOURNAL;
    private String rollingUpdateUid = "";
    private boolean deviceMetadata = true;
    private Duration lockWait = AgentSettings.DEFAULT_LOCK_WAIT;
    private Supplier<DeviceDiscovery> reload;
    private Supplier<List<io.nodeatlas.discovery.health.HealthCheck>> healthChecks = List::of;
    private java.util.function.Function<Path, java.util.Map<String, io.nodeatlas.discovery.share.DeviceRealiser>>
        deviceRealisers = dir -> java.util.Map.of();

    /** The families that make devices real at Prepare, by source name, from their journal directory. */
    public Builder deviceRealisers(
        java.util.function.Function<Path, java.util.Map<String, io.nodeatlas.discovery.share.DeviceRealiser>> v) {
      deviceRealisers = v == null ? dir -> java.util.Map.of() : v;
      return this;
    }
    private Duration healthInterval = Duration.ofSeconds(10);

    private Builder() {}

    /**
     * The sources' device health checks, made when the agent starts (cluster mode polls them every
     * {@code interval}; see {@code DeviceHealthMonitor}).
     */
    public Builder healthChecks(Supplier<List<io.nodeatlas.discovery.health.HealthCheck>> v, Duration interval) {
      healthChecks = v == null ? List::of : v;
      healthInterval = interval;
      return this;
    }

    /** The host's file systems; the boot ID is read under its procfs root. Default: host root {@code /}. */
    public Builder host(io.nodeatlas.discovery.host.HostFs v) {
      host = v;
      return this;
    }

    /**
     * The pod's UID (downward API): two instances then serve side by side during a rolling update, each
     * with sockets named by its UID (kubelet 1.33+); empty: fixed socket names, one instance at a time.
     */
    public Builder rollingUpdateUid(String v) {
      rollingUpdateUid = v == null ? "" : v;
      return this;
    }

    /** Reconcile the claim specs from the API server when the checkpoint is missing. */
    public Builder recover(boolean v) {
      recover = v;
      return this;
    }

    /** Whether prepared claims get device metadata files (KEP-5304); on by default. */
    public Builder deviceMetadata(boolean v) {
      deviceMetadata = v;
      return this;
    }

    /** Whether a checkpoint change appends its own line to a journal (format v3.0) rather than rewriting the file. */
    public Builder checkpointJournal(boolean v) {
      checkpointJournal = v;
      return this;
    }

    /** How long to wait for another instance to hand over the state directory. */
    public Builder lockWait(Duration v) {
      lockWait = v;
      return this;
    }

    /** Reads the configuration again and returns the discovery it describes (SIGHUP); it throws when unusable. */
    public Builder reload(Supplier<DeviceDiscovery> v) {
      reload = v;
      return this;
    }

    /** The DRA driver name: a DNS subdomain of at most 63 characters. */
    public Builder driverName(String v) {
      driverName = v;
      return this;
    }

    public Builder nodeName(String v) {
      nodeName = v;
      return this;
    }

    public Builder kubeconfig(Path v) {
      kubeconfig = v;
      return this;
    }

    /** Never talk to Kubernetes, even when credentials exist. */
    public Builder standalone(boolean v) {
      standalone = v;
      return this;
    }

    public Builder kubeletRoot(Path v) {
      kubeletRoot = v;
      return this;
    }

    public Builder cdiRoot(Path v) {
      cdiRoot = v;
      return this;
    }

    /** Where nodeatlas's OCI hook lies on the host (an absolute path; runtimes run hooks on the host). */
    public Builder hookPath(String v) {
      hookPath = v;
      return this;
    }

    public Builder stateDir(Path v) {
      stateDir = v;
      return this;
    }

    public Builder httpBindAddress(String v) {
      httpBindAddress = v;
      return this;
    }

    /** 0 = no HTTP endpoints. */
    public Builder httpPort(int v) {
      httpPort = v;
      return this;
    }

    /** -1 = off, 0 = any free port. */
    public Builder healthcheckPort(int v) {
      healthcheckPort = v;
      return this;
    }

    public Builder resyncInterval(Duration v) {
      resyncInterval = v;
      return this;
    }

    public Builder drainTimeout(Duration v) {
      drainTimeout = v;
      return this;
    }

    public Builder logFormat(LogSetup.Format v) {
      logFormat = v;
      return this;
    }

    public Builder verbosity(int v) {
      verbosity = v;
      return this;
    }

    /** Where the devices come from: a live discovery or a saved report; called on every resync. */
    public Builder discovery(Supplier<NodeReport> v) {
      discovery = v == null ? null : DeviceDiscovery.of(v);
      return this;
    }

    /**
     * Where the devices come from, told whether the API server can take shared devices: after it
     * dropped their fields the agent calls this with false and publishes what it returns.
     */
    public Builder discovery(DeviceDiscovery v) {
      discovery = v;
      return this;
    }

    /** The process environment (systemd's NOTIFY_SOCKET and WATCHDOG_USEC, in-cluster detection). */
    public Builder environment(Map<String, String> v) {
      environment = v;
      return this;
    }

    /** Where log lines go (stderr). */
    public Builder log(PrintStream v) {
      log = v;
      return this;
    }

    /** Checks the settings that need no I/O. */
    public AgentLauncher build() {
      Objects.requireNonNull(driverName, "driverName");
      Objects.requireNonNull(kubeletRoot, "kubeletRoot");
      Objects.requireNonNull(cdiRoot, "cdiRoot");
      Objects.requireNonNull(stateDir, "stateDir");
      Objects.requireNonNull(httpBindAddress, "httpBindAddress");
      Objects.requireNonNull(resyncInterval, "resyncInterval");
      Objects.requireNonNull(drainTimeout, "drainTimeout");
      Objects.requireNonNull(logFormat, "logFormat");
      Objects.requireNonNull(discovery, "discovery");
      Objects.requireNonNull(environment, "environment");
      Objects.requireNonNull(log, "log");
      // The driver name becomes ResourceSlice spec.driver, which resource.k8s.io/v1 validates as a DNS
      // subdomain of at most 63 characters, and the name of the kubelet plugin's socket directory.
      if (!Names.isDnsSubdomain(driverName) || driverName.length() > 63) {
        throw new SettingException("driverName", "\"" + driverName + "\" is not a DNS subdomain of at most 63 characters");
      }
      if (resyncInterval.isNegative() || resyncInterval.isZero()) {
        throw new SettingException("resyncInterval", "must be positive");
      }
      try {
        new io.nodeatlas.agent.kubelet.KubeletPaths(kubeletRoot, driverName, rollingUpdateUid);
      } catch (IllegalArgumentException e) {
        throw new SettingException("rollingUpdateUid", e.getMessage());
      }
      if (lockWait == null || lockWait.isNegative()) {
        throw new SettingException("lockWait", "must not be negative");
      }
      if (drainTimeout.isNegative()) {
        throw new SettingException("drainTimeout", "must not be negative");
      }
      // The path goes into CDI specs as an OCI hook path, which runtime-spec requires to be absolute.
      if (hookPath == null || !hookPath.startsWith("/") || hookPath.length() > 4096 || hookPath.chars().anyMatch(c -> c < 0x20 || c == 0x7f)) {
        throw new SettingException("hookPath", "\"" + hookPath + "\" is not an absolute path");
      }
      return new AgentLauncher(this);
    }
  }
}
