import NIOCore
import NIOPosix

/// A bare connection to the daemon's socket that sends and reads lines as they are:
/// for malformed input, and for a client that stops reading (`autoRead: false`).
package final class RawConnection: Sendable {
    private let channel: any Channel
    /// Every line received, without its LF.
    package let lines: AsyncStream<String>

    private init(channel: any Channel, lines: AsyncStream<String>) {
        self.channel = channel
        self.lines = lines
    }

    /// - Parameter reading: false makes a client that reads nothing until `startReading()`.
    package static func connect(socketPath: String, reading: Bool = true) async throws -> RawConnection {
        let (lines, sink) = AsyncStream.makeStream(of: String.self)
        let channel = try await ClientBootstrap(group: MultiThreadedEventLoopGroup.singleton)
            .channelOption(.autoRead, value: reading)
            .channelInitializer { channel in
                channel.eventLoop.makeCompletedFuture {
                    try channel.pipeline.syncOperations.addHandlers(
                        ByteToMessageHandler(NIOSplitLinesMessageDecoder(omittingEmptySubsequences: true)),
                        InboundCollector(sink: sink) { String(buffer: $0) })
                }
            }
            .connect(unixDomainSocketPath: socketPath).get()
        return RawConnection(channel: channel, lines: lines)
    }

    package func send(_ line: String) async throws {
        try await send(Array(line.utf8) + [0x0A])
    }

    package func send(_ bytes: [UInt8]) async throws {
        try await channel.writeAndFlush(ByteBuffer(bytes: bytes))
    }

    /// Turns reading on for a connection made with `reading: false`.
    package func startReading() async throws {
        try await channel.setOption(.autoRead, value: true).get()
        channel.read()
    }

    /// Shuts the writing side only (as `nc -U` or `socat` do at the end of their input).
    package func finishSending() async throws {
        try await channel.close(mode: .output)
    }

    package var isActive: Bool { channel.isActive }

    package func close() async {
        try? await channel.close()
    }
}
