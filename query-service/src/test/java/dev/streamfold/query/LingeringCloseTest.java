package dev.streamfold.query;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;
import static org.awaitility.Awaitility.await;

import io.netty.bootstrap.ServerBootstrap;
import io.netty.buffer.Unpooled;
import io.netty.channel.Channel;
import io.netty.channel.ChannelHandlerContext;
import io.netty.channel.ChannelInboundHandlerAdapter;
import io.netty.channel.EventLoopGroup;
import io.netty.channel.nio.NioEventLoopGroup;
import io.netty.channel.socket.nio.NioServerSocketChannel;
import io.netty.util.ReferenceCountUtil;
import java.io.IOException;
import java.io.InputStream;
import java.io.OutputStream;
import java.net.InetAddress;
import java.net.InetSocketAddress;
import java.net.Socket;
import java.nio.charset.StandardCharsets;
import java.time.Duration;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.atomic.AtomicReference;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;

/**
 * {@link LingeringClose} on a real loopback socket: a server that replies to the first bytes it reads with its
 * last reply and closes, while the client is still sending.
 */
class LingeringCloseTest {
  private static final String REPLY = "-ERR Protocol error: invalid multibulk length\r\n";

  private final EventLoopGroup group = new NioEventLoopGroup(1);
  private final AtomicReference<Channel> accepted = new AtomicReference<>();
  private Channel server;

  /** Start a server whose connections get {@link #REPLY} and close at their first read. */
  private int start(long maxDrainBytes, long timeoutMs) {
    server = new ServerBootstrap().group(group).channel(NioServerSocketChannel.class)
        .childHandler(new ChannelInboundHandlerAdapter() {
          private boolean replied;

          @Override
          public void channelActive(ChannelHandlerContext ctx) {
            accepted.set(ctx.channel());
          }

          @Override
          public void channelRead(ChannelHandlerContext ctx, Object msg) {
            ReferenceCountUtil.release(msg);
            if (!replied) {
              replied = true;
              ctx.channel().config().setAutoRead(false); // as after a protocol error
              LingeringClose.closeAfter(ctx, Unpooled.copiedBuffer(REPLY, StandardCharsets.US_ASCII), maxDrainBytes,
                  timeoutMs);
            }
          }
        })
        .bind(InetAddress.getLoopbackAddress(), 0).syncUninterruptibly().channel();
    return ((InetSocketAddress) server.localAddress()).getPort();
  }

  @AfterEach
  void stop() {
    if (server != null) {
      server.close().syncUninterruptibly();
    }
    group.shutdownGracefully(0, 1, java.util.concurrent.TimeUnit.SECONDS).syncUninterruptibly();
  }

  private static Socket connect(int port) throws IOException {
    Socket socket = new Socket(InetAddress.getLoopbackAddress(), port);
    socket.setSoTimeout(10_000);
    return socket;
  }

  @Test
  void aClientThatWritesItsWholeRequestFirstThenReadsGetsTheReplyAndEndOfStream() throws Exception {
    // a plain close with the request unread resets the connection: the client's write failed, or its read
    int port = start(LingeringClose.MAX_DRAIN_BYTES, LingeringClose.TIMEOUT_MS);
    try (Socket socket = connect(port)) {
      OutputStream out = socket.getOutputStream();
      out.write(new byte[8 << 20]);
      out.flush();
      assertThat(new String(socket.getInputStream().readAllBytes(), StandardCharsets.US_ASCII)).isEqualTo(REPLY);
    }
    await().atMost(Duration.ofSeconds(5)).until(() -> !accepted.get().isOpen());
  }

  @Test
  void aClientThatSendsMoreThanTheDrainLimitIsCutOff() throws Exception {
    int port = start(1 << 20, LingeringClose.TIMEOUT_MS);
    try (Socket socket = connect(port)) {
      OutputStream out = socket.getOutputStream();
      CompletableFuture<Void> writing = CompletableFuture.runAsync(() -> {
        try {
          for (int i = 0; i < 1024; i++) {
            out.write(new byte[64 << 10]); // 64 MiB in all
          }
        } catch (IOException reset) {
          throw new java.io.UncheckedIOException(reset);
        }
      });
      await().atMost(Duration.ofSeconds(10)).until(() -> !accepted.get().isOpen());
      assertThatThrownBy(writing::join).hasRootCauseInstanceOf(IOException.class);
    }
  }

  @Test
  void aClientThatKeepsItsSideOpenIsClosedAfterTheTimeout() throws Exception {
    int port = start(LingeringClose.MAX_DRAIN_BYTES, 2_000);
    try (Socket socket = connect(port)) {
      socket.getOutputStream().write('*');
      InputStream in = socket.getInputStream();
      assertThat(new String(in.readAllBytes(), StandardCharsets.US_ASCII)).isEqualTo(REPLY); // then end of stream
      assertThat(accepted.get().isOpen()).as("still waiting for the client to close").isTrue();
      await().atMost(Duration.ofSeconds(5)).until(() -> !accepted.get().isOpen());
    }
  }
}
