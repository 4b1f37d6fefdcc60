import NIOCore

/// Hands what a test's channel reads to an `AsyncStream`, each buffer as `transform` makes
/// it, and finishes the stream when the channel ends or fails.
final class InboundCollector<Element: Sendable>: ChannelInboundHandler, Sendable {
    typealias InboundIn = ByteBuffer
    private let sink: AsyncStream<Element>.Continuation
    private let transform: @Sendable (ByteBuffer) -> Element

    init(sink: AsyncStream<Element>.Continuation, transform: @escaping @Sendable (ByteBuffer) -> Element) {
        self.sink = sink
        self.transform = transform
    }

    func channelRead(context: ChannelHandlerContext, data: NIOAny) {
        sink.yield(transform(unwrapInboundIn(data)))
    }

    func channelInactive(context: ChannelHandlerContext) {
        sink.finish()
        context.fireChannelInactive()
    }

    func errorCaught(context: ChannelHandlerContext, error: any Error) {
        sink.finish()
        context.close(promise: nil)
    }
}
