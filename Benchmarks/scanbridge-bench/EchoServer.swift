import NIOCore
import NIOPosix

/// The baseline: a bare Unix-socket server that sends every byte back, so the cost of the
/// socket itself on this machine, now, can be set beside the daemon's figures.
struct EchoServer {
    let channel: any Channel
    let path: String

    static func start(path: String) async throws -> EchoServer {
        let channel = try await ServerBootstrap(group: MultiThreadedEventLoopGroup.singleton)
            .childChannelInitializer { channel in
                channel.eventLoop.makeCompletedFuture {
                    try channel.pipeline.syncOperations.addHandler(Echo())
                }
            }
            .bind(unixDomainSocketPath: path, cleanupExistingSocketFile: true).get()
        return EchoServer(channel: channel, path: path)
    }

    func stop() async {
        try? await channel.close()
    }

    private final class Echo: ChannelInboundHandler, Sendable {
        typealias InboundIn = ByteBuffer
        typealias OutboundOut = ByteBuffer

        func channelRead(context: ChannelHandlerContext, data: NIOAny) {
            context.write(data, promise: nil)
        }

        func channelReadComplete(context: ChannelHandlerContext) {
            context.flush()
        }
    }
}
