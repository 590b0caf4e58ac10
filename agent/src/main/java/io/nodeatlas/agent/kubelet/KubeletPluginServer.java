package io.nodeatlas.agent.kubelet;

import io.grpc.BindableService;
import io.grpc.Server;
import io.grpc.health.v1.HealthCheckResponse.ServingStatus;
import io.grpc.netty.shaded.io.netty.channel.EventLoopGroup;
import io.grpc.protobuf.services.HealthStatusManager;
import io.nodeatlas.agent.claims.ClaimPreparer;
import java.io.IOException;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.LinkedBlockingQueue;
import java.util.concurrent.ThreadPoolExecutor;
import java.util.concurrent.TimeUnit;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * The kubelet side of the agent: the DRA service socket and then the registration socket (in that
 * order, so the endpoint exists before the kubelet learns about it). Both sockets are removed on
 * {@link #close()}; removing the registration socket deregisters the plugin.
 */
public final class KubeletPluginServer implements AutoCloseable {

  private static final Logger LOG = LoggerFactory.getLogger(KubeletPluginServer.class);

  /**
   * The kubelet walks this list in order and takes the first version it supports (KEP-4381, {@code supported_versions});
   * these strings are the Go constants {@code DRAPluginService}, not the gRPC service names.
   */
  public static final List<String> SUPPORTED_VERSIONS = List.of("v1.DRAPlugin", "v1beta1.DRAPlugin");

  /** Kubelet calls served at once; the kubelet sends one call per pod start or stop. */
  static final int MAX_CALL_THREADS = 32;

  private final KubeletPaths paths;
  private final RegistrationState registration = new RegistrationState();
  private final HealthStatusManager health = new HealthStatusManager();
  private final EventLoopGroup group;
  private final ExecutorService executor;
  private final List<Server> servers = new ArrayList<>();

  private KubeletPluginServer(KubeletPaths paths) {
    this.paths = paths;
    this.group = UnixSocketServers.newEventLoopGroup(1);
    // Prepare blocks on the API server and on fsync, so calls get threads of their own, but at most
    // MAX_CALL_THREADS: beyond that a thread per call only adds stacks and contention (bench/agent-load.sh
    // with 256 concurrent claims grew to 300+ threads and 230 MiB RSS without getting faster on 2 cores);
    // later calls queue. Idle threads end after 10 s, so an idle agent keeps none, nor their thread-local
    // buffers.
    ThreadPoolExecutor calls = new ThreadPoolExecutor(MAX_CALL_THREADS, MAX_CALL_THREADS, 10, TimeUnit.SECONDS,
        new LinkedBlockingQueue<>(), r -> {
          Thread t = new Thread(r, "kubelet-grpc");
          t.setDaemon(true);
          return t;
        });
    calls.allowCoreThreadTimeOut(true);
    this.executor = calls;
  }

  /** Binds both sockets and starts serving. */
  public static KubeletPluginServer start(KubeletPaths paths, ClaimPreparer preparer) throws IOException {
    return start(paths, preparer, null);
  }

  /**
   * Binds both sockets and starts serving, with the device health stream when {@code health} is given:
   * served on the DRA socket and advertised in {@code supported_versions} as {@code v1.DRAResourceHealth}
   * and {@code v1alpha1.DRAResourceHealth}, after the DRAPlugin versions (the kubelet takes the first
   * DRAPlugin version it knows, and looks for the health services by their own names, KEP-4680).
   */
  public static KubeletPluginServer start(KubeletPaths paths, ClaimPreparer preparer,
      io.nodeatlas.agent.health.ResourceHealthService health) throws IOException {
    paths.requireSocketPathsFit();
    KubeletPluginServer s = new KubeletPluginServer(paths);
    try {
      DraV1Service v1 = new DraV1Service(preparer, s.executor);
      List<BindableService> dra = new ArrayList<>(List.of(v1, new DraV1beta1Service(v1), s.health.getHealthService()));
      List<String> versions = new ArrayList<>(SUPPORTED_VERSIONS);
      if (health != null) {
        dra.addAll(health.services());
        versions.addAll(io.nodeatlas.agent.health.ResourceHealthService.SUPPORTED_VERSIONS);
      }
      // The DRA socket's callbacks run on the event loop: its services answer at once (health, the health
      // stream) or hand the call to s.executor themselves (DraV1Service), one wake-up per call.
      s.servers.add(UnixSocketServers.start(paths.draSocket(), s.group, null, dra));
      s.servers.add(UnixSocketServers.start(paths.registrationSocket(), s.group, s.executor,
          List.of(new RegistrationService(paths.driverName(), paths.draSocket().toString(), versions,
              s.registration))));
    } catch (IOException | RuntimeException e) {
      s.close();
      throw e;
    }
    LOG.info("serving the kubelet registration={} dra={}", paths.registrationSocket(), paths.draSocket());
    return s;
  }

  /**
   * Also serves the {@code grpc.health.v1} status over TCP, for Kubernetes {@code grpc:} probes, which
   * cannot dial a unix socket (the NVIDIA plugin's {@code --healthcheck-port}). Returns the bound port.
   */
  public int startHealthPort(String bindAddress, int port) throws IOException {
    Server server = io.grpc.netty.shaded.io.grpc.netty.NettyServerBuilder
        .forAddress(new java.net.InetSocketAddress(bindAddress, port))
        .executor(executor)
        .addService(health.getHealthService())
        .build()
        .start();
    synchronized (servers) {
      servers.add(server);
    }
    LOG.info("serving grpc.health.v1 on {}:{}", bindAddress, server.getPort());
    return server.getPort();
  }

  public KubeletPaths paths() {
    return paths;
  }

  public RegistrationState registration() {
    return registration;
  }

  /** The {@code grpc.health.v1} status served on the DRA socket ("" service). */
  public void setServing(boolean serving) {
    health.setStatus("", serving ? ServingStatus.SERVING : ServingStatus.NOT_SERVING);
  }

  public EventLoopGroup eventLoopGroup() {
    return group;
  }

  /**
   * Stops accepting calls, lets running calls finish for up to {@code drainMillis}, then removes the
   * sockets. The registration socket goes first so the kubelet stops routing to us.
   */
  public void shutdown(long drainMillis) {
    health.enterTerminalState();
    UnixSocketServers.removeSocketQuietly(paths.registrationSocket());
    for (Server s : servers) {
      s.shutdown();
    }
    long deadline = System.nanoTime() + TimeUnit.MILLISECONDS.toNanos(drainMillis);
    for (Server s : servers) {
      try {
        if (!s.awaitTermination(Math.max(0, deadline - System.nanoTime()), TimeUnit.NANOSECONDS)) {
          s.shutdownNow();
        }
      } catch (InterruptedException e) {
        Thread.currentThread().interrupt();
        s.shutdownNow();
      }
    }
    UnixSocketServers.removeSocketQuietly(paths.draSocket());
    executor.shutdown();
    group.shutdownGracefully(0, 1, TimeUnit.SECONDS);
  }

  @Override
  public void close() {
    shutdown(0);
  }
}
