import Histogram
import NIOCore
import NIOPosix
import ScanBridgeTesting
import Synchronization

/// A connection that reacts to each received line on its event loop, with no task hop: the
/// subscriber of the tap and wedge scenarios, whose events come from a device, not a socket
/// request (those are timed with `LineSocket`).
final class LineStamper: Sendable {
    let channel: any Channel
    private let recorder: Recorder

    private init(channel: any Channel, recorder: Recorder) {
        self.channel = channel
        self.recorder = recorder
    }

    /// - Parameter onLine: called on the event loop with each line and the time it arrived;
    ///   returns a latency to record, or nil.
    static func connect(socketPath: String, onLine: @escaping @Sendable (ByteBuffer, UInt64) -> UInt64?) async throws
        -> LineStamper
    {
        let recorder = Recorder(onLine: onLine)
        let channel = try await ClientBootstrap(group: MultiThreadedEventLoopGroup.singleton)
            .channelInitializer { channel in
                channel.eventLoop.makeCompletedFuture {
                    try channel.pipeline.syncOperations.addHandlers(
                        ByteToMessageHandler(NIOSplitLinesMessageDecoder(omittingEmptySubsequences: true)),
                        Handler(recorder: recorder))
                }
            }
            .connect(unixDomainSocketPath: socketPath).get()
        return LineStamper(channel: channel, recorder: recorder)
    }

    func send(_ line: String) {
        channel.writeAndFlush(ByteBuffer(string: line + "\n"), promise: nil)
    }

    var lines: Int { recorder.state.withLock { $0.lines } }
    var histogram: Histogram<UInt64> { recorder.state.withLock { $0.histogram } }

    /// Waits (polling) until `count` lines arrived.
    func wait(forLines count: Int) async {
        while lines < count { try? await Task.sleep(for: .milliseconds(1)) }
    }

    func close() async {
        try? await channel.close()
    }

    final class Recorder: Sendable {
        struct State {
            var lines = 0
            var histogram = Histogram<UInt64>.nanoseconds()
        }
        let state = Mutex(State())
        let onLine: @Sendable (ByteBuffer, UInt64) -> UInt64?
        init(onLine: @escaping @Sendable (ByteBuffer, UInt64) -> UInt64?) { self.onLine = onLine }
    }

    private final class Handler: ChannelInboundHandler, Sendable {
        typealias InboundIn = ByteBuffer
        let recorder: Recorder
        init(recorder: Recorder) { self.recorder = recorder }

        func channelRead(context: ChannelHandlerContext, data: NIOAny) {
            let arrived = Nanos.now()
            let latency = recorder.onLine(unwrapInboundIn(data), arrived)
            recorder.state.withLock { state in
                state.lines += 1
                if let latency { _ = state.histogram.record(latency) }
            }
        }
    }
}
