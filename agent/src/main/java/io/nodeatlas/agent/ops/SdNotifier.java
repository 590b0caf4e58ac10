package io.nodeatlas.agent.ops;

import io.grpc.netty.shaded.io.netty.buffer.Unpooled;
import io.grpc.netty.shaded.io.netty.channel.Channel;
import io.grpc.netty.shaded.io.netty.channel.ChannelInitializer;
import io.grpc.netty.shaded.io.netty.channel.EventLoopGroup;
import io.grpc.netty.shaded.io.netty.bootstrap.Bootstrap;
import io.grpc.netty.shaded.io.netty.channel.MultiThreadIoEventLoopGroup;
import io.grpc.netty.shaded.io.netty.channel.epoll.EpollDomainDatagramChannel;
import io.grpc.netty.shaded.io.netty.channel.epoll.EpollIoHandler;
import io.grpc.netty.shaded.io.netty.channel.unix.DomainSocketAddress;
import java.nio.charset.StandardCharsets;
import java.time.Duration;
import java.util.Map;
import java.util.Optional;
import java.util.concurrent.TimeUnit;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * sd_notify(3) without libsystemd: one datagram per notification to the unix socket named by
 * {@code $NOTIFY_SOCKET}. The JDK has only stream unix sockets, so the datagram goes through the
 * epoll transport bundled in grpc-netty-shaded. A leading {@code @}
 * names an abstract socket. Failures are logged, never thrown: systemd going away must not stop the
 * agent.
 */
public final class SdNotifier implements Notifier {

  private static final Logger LOG = LoggerFactory.getLogger(SdNotifier.class);

  private final DomainSocketAddress target;
  private final EventLoopGroup group;
  private final Channel channel;

  private SdNotifier(String socket) throws InterruptedException {
    // An abstract socket name starts with NUL in sockaddr_un; Netty passes the string through unchanged.
    this.target = new DomainSocketAddress(socket.startsWith("@") ? "\0" + socket.substring(1) : socket);
    this.group = new MultiThreadIoEventLoopGroup(1, EpollIoHandler.newFactory());
    this.channel = connect(group, target);
  }

  private static Channel connect(EventLoopGroup group, DomainSocketAddress target) throws InterruptedException {
    try {
      return connectOrThrow(group, target);
    } catch (Throwable e) {
      // Netty rethrows the connect error (e.g. no such socket) undeclared; release the event loop either way.
      group.shutdownGracefully(0, 1, TimeUnit.SECONDS);
      throw e;
    }
  }

  private static Channel connectOrThrow(EventLoopGroup group, DomainSocketAddress target) throws InterruptedException {
    return new Bootstrap().group(group).channel(EpollDomainDatagramChannel.class)
        .handler(new ChannelInitializer<Channel>() {
          @Override
          protected void initChannel(Channel ch) {}
        })
        // Connected, so each write is one send(2) to systemd; an unconnected datagram channel is not active.
        .connect(target).sync().channel();
  }

  /** The notifier for {@code env}'s {@code NOTIFY_SOCKET}, or {@link Notifier#NONE} when unset. */
  public static Notifier fromEnvironment(Map<String, String> env) {
    String socket = env.get("NOTIFY_SOCKET");
    if (socket == null || socket.isEmpty()) {
      return NONE;
    }
    try {
      return new SdNotifier(socket);
    } catch (InterruptedException e) {
      Thread.currentThread().interrupt();
      return NONE;
    } catch (Exception | LinkageError e) {
      LOG.warn("cannot talk to the service manager at NOTIFY_SOCKET={} err=\"{}\"", socket, e.toString());
      return NONE;
    }
  }

  /**
   * Half the watchdog period systemd asked for ({@code WATCHDOG_USEC}, checked against
   * {@code WATCHDOG_PID} when set), or empty when no watchdog is configured.
   */
  public static Optional<Duration> watchdogInterval(Map<String, String> env, long pid) {
    String usec = env.get("WATCHDOG_USEC");
    if (usec == null) {
      return Optional.empty();
    }
    String wpid = env.get("WATCHDOG_PID");
    if (wpid != null && !wpid.equals(Long.toString(pid))) {
      return Optional.empty();
    }
    try {
      long us = Long.parseLong(usec.trim());
      return us > 0 ? Optional.of(Duration.ofNanos(us * 1000 / 2)) : Optional.empty();
    } catch (NumberFormatException e) {
      return Optional.empty();
    }
  }

  @Override
  public void notify(String state) {
    try {
      channel.writeAndFlush(Unpooled.wrappedBuffer(state.getBytes(StandardCharsets.UTF_8))).sync();
    } catch (InterruptedException e) {
      Thread.currentThread().interrupt();
    } catch (RuntimeException e) {
      LOG.warn("sd_notify failed state=\"{}\" err=\"{}\"", state.replace('\n', ' '), e.toString());
    }
  }

  @Override
  public void close() {
    channel.close().awaitUninterruptibly(1, TimeUnit.SECONDS);
    group.shutdownGracefully(0, 1, TimeUnit.SECONDS);
  }
}
