import NIOCore
import NIOPosix

/// Opens the Unix-socket channel to the daemon and frames what goes over it: one JSON-RPC
/// message per `\n`-terminated line (docs/protocol.md "Transport").
enum ClientChannel {
    typealias Connection = NIOAsyncChannel<ByteBuffer, ByteBuffer>

    /// A line longer than this from the daemon breaks the connection rather than growing
    /// memory without bound. Generous, because `events.recent` answers up to 1000 events.
    static let maximumLineLength = 64 << 20

    /// Lines buffered ahead of the reader. High enough that a burst of notifications is
    /// handed over in batches rather than one event-loop hop per line.
    static let backPressure = NIOAsyncSequenceProducerBackPressureStrategies.HighLowWatermark(
        lowWatermark: 256, highWatermark: 1024)

    /// Connects to the daemon's socket.
    static func connect(socketPath: String) async throws(ClientError) -> Connection {
        do {
            return try await ClientBootstrap(group: MultiThreadedEventLoopGroup.singleton)
                .connect(unixDomainSocketPath: socketPath) { channel in
                    channel.eventLoop.makeCompletedFuture {
                        try channel.pipeline.syncOperations.addHandler(
                            ByteToMessageHandler(
                                NIOSplitLinesMessageDecoder(omittingEmptySubsequences: true),
                                maximumBufferSize: maximumLineLength))
                        return try Connection(
                            wrappingChannelSynchronously: channel,
                            configuration: .init(backPressureStrategy: backPressure))
                    }
                }
        } catch {
            throw ClientError.connecting(to: socketPath, failure: error)
        }
    }

    /// `bytes` as one buffer to write, with the line terminator unless told otherwise.
    static func line(_ bytes: [UInt8], terminated: Bool = true) -> ByteBuffer {
        var buffer = ByteBufferAllocator().buffer(capacity: bytes.count + 1)
        buffer.writeBytes(bytes)
        if terminated { buffer.writeInteger(UInt8(ascii: "\n")) }
        return buffer
    }
}
