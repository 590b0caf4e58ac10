package io.nodeatlas.agent.testing;

import io.grpc.netty.shaded.io.netty.bootstrap.Bootstrap;
import io.grpc.netty.shaded.io.netty.channel.Channel;
import io.grpc.netty.shaded.io.netty.channel.ChannelHandlerContext;
import io.grpc.netty.shaded.io.netty.channel.EventLoopGroup;
import io.grpc.netty.shaded.io.netty.channel.SimpleChannelInboundHandler;
import io.grpc.netty.shaded.io.netty.channel.epoll.EpollDomainDatagramChannel;
import io.grpc.netty.shaded.io.netty.channel.unix.DomainDatagramPacket;
import io.grpc.netty.shaded.io.netty.channel.unix.DomainSocketAddress;
import io.nodeatlas.agent.kubelet.UnixSocketServers;
import java.nio.charset.StandardCharsets;
import java.util.concurrent.BlockingQueue;
import java.util.concurrent.LinkedBlockingQueue;
import java.util.concurrent.TimeUnit;

/** Binds a datagram socket like systemd's and collects what arrives. */
public final class FakeSystemd implements AutoCloseable {
  public final BlockingQueue<String> received = new LinkedBlockingQueue<>();
  final EventLoopGroup group = UnixSocketServers.newEventLoopGroup(1);
  final Channel channel;

  public FakeSystemd(String address) throws InterruptedException {
    channel = new Bootstrap().group(group).channel(EpollDomainDatagramChannel.class)
        .handler(new SimpleChannelInboundHandler<DomainDatagramPacket>() {
          @Override
          protected void channelRead0(ChannelHandlerContext ctx, DomainDatagramPacket msg) {
            received.add(msg.content().toString(StandardCharsets.UTF_8));
          }
        })
        .bind(new DomainSocketAddress(address)).sync().channel();
  }

  public String next() throws InterruptedException {
    return received.poll(5, TimeUnit.SECONDS);
  }

  @Override
  public void close() {
    channel.close().awaitUninterruptibly();
    group.shutdownGracefully(0, 1, TimeUnit.SECONDS);
  }
}

