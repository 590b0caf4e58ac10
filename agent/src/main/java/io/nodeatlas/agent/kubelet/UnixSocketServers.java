package io.nodeatlas.agent.kubelet;

import io.grpc.BindableService;
import io.grpc.ManagedChannel;
import io.grpc.Server;
import io.grpc.netty.shaded.io.grpc.netty.NettyChannelBuilder;
import io.grpc.netty.shaded.io.grpc.netty.NettyServerBuilder;
import io.grpc.netty.shaded.io.netty.channel.ChannelOption;
import io.grpc.netty.shaded.io.netty.channel.EventLoopGroup;
import io.grpc.netty.shaded.io.netty.channel.MultiThreadIoEventLoopGroup;
import io.grpc.netty.shaded.io.netty.channel.epoll.EpollDomainSocketChannel;
import io.grpc.netty.shaded.io.netty.channel.epoll.EpollIoHandler;
import io.grpc.netty.shaded.io.netty.channel.epoll.EpollServerDomainSocketChannel;
import io.grpc.netty.shaded.io.netty.channel.unix.DomainSocketAddress;
import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.LinkOption;
import java.nio.file.Path;
import java.nio.file.attribute.BasicFileAttributes;
import java.util.List;
import java.util.concurrent.Executor;

/**
 * gRPC servers and clients on unix domain sockets through the epoll transport bundled in
 * grpc-netty-shaded. The kubelet speaks plain HTTP/2 without TLS on these sockets.
 */
public final class UnixSocketServers {

  private UnixSocketServers() {}

  /** One event loop group per process is plenty: the kubelet sends a few calls a minute. */
  public static EventLoopGroup newEventLoopGroup(int threads) {
    return new MultiThreadIoEventLoopGroup(threads, EpollIoHandler.newFactory());
  }

  /**
   * Binds a server at {@code socket} after removing a stale socket left by a previous process (the
   * kubelet keeps dialling the path, so the path must be ours again). Anything else at the path is
   * refused rather than deleted. {@code executor} runs the services' callbacks; null runs them on the
   * event loop, for services that never block there (they answer at once or hand the call on).
   */
  public static Server start(Path socket, EventLoopGroup group, Executor executor, List<BindableService> services)
      throws IOException {
    removeStaleSocket(socket);
    Files.createDirectories(socket.getParent());
    NettyServerBuilder b = NettyServerBuilder.forAddress(new DomainSocketAddress(socket.toString()))
        .channelType(EpollServerDomainSocketChannel.class)
        .bossEventLoopGroup(group)
        .workerEventLoopGroup(group)
        // TCP keepalive does not exist on unix sockets; without this Netty warns on every connection (grpc-java #10408).
        .withChildOption(ChannelOption.SO_KEEPALIVE, null);
    if (executor == null) {
      b.directExecutor();
    } else {
      b.executor(executor);
    }
    services.forEach(b::addService);
    return b.build().start();
  }

  /** A plaintext client channel to a unix socket, as the kubelet dials it. */
  public static ManagedChannel channel(Path socket, EventLoopGroup group) {
    return NettyChannelBuilder.forAddress(new DomainSocketAddress(socket.toString()))
        .channelType(EpollDomainSocketChannel.class)
        .eventLoopGroup(group)
        .withOption(ChannelOption.SO_KEEPALIVE, null)
        .usePlaintext()
        .build();
  }

  /** Removes {@code socket} if it is a socket (or a dangling leftover); a regular file or directory is an error. */
  public static void removeStaleSocket(Path socket) throws IOException {
    BasicFileAttributes attrs;
    try {
      attrs = Files.readAttributes(socket, BasicFileAttributes.class, LinkOption.NOFOLLOW_LINKS);
    } catch (java.nio.file.NoSuchFileException e) {
      return;
    }
    if (attrs.isOther()) {
      Files.deleteIfExists(socket);
    } else {
      throw new IOException(socket + " exists and is not a socket; refusing to replace it");
    }
  }

  /** Removes our socket on shutdown: an absent registration socket tells the kubelet we are gone. */
  public static void removeSocketQuietly(Path socket) {
    try {
      removeStaleSocket(socket);
    } catch (IOException ignored) {
      // Not a socket any more: someone else owns the path now.
    }
  }
}
