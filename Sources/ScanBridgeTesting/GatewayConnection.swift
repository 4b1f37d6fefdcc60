import Foundation
import NIOCore
import NIOPosix
import NIOSSL

/// A bare TCP (or TLS) connection to the gateway, read as bytes: the test clients frame HTTP,
/// chunked bodies, Server-Sent Events and WebSocket frames themselves, so they check the
/// daemon's framing rather than share NIO's with it. Used by one task at a time.
package final class GatewayConnection: @unchecked Sendable {
    /// The peer closed the connection before what was awaited arrived.
    package struct Closed: Error, CustomStringConvertible {
        package var description: String { "the gateway closed the connection" }
    }

    private let channel: any Channel
    private var iterator: AsyncStream<ByteBuffer>.AsyncIterator
    private var pending: [UInt8] = []
    /// Made with `reading: false` and not started: each wait for bytes asks for one read.
    private var readsOnDemand: Bool

    private init(channel: any Channel, chunks: AsyncStream<ByteBuffer>, reading: Bool) {
        self.channel = channel
        self.readsOnDemand = !reading
        self.iterator = chunks.makeAsyncIterator()
    }

    /// - Parameter reading: false makes a reader that takes nothing until `startReading()`.
    static func open(host: String, port: Int, tls: NIOSSLContext?, reading: Bool = true) async throws
        -> GatewayConnection
    {
        let (chunks, sink) = AsyncStream.makeStream(of: ByteBuffer.self)
        var bootstrap = ClientBootstrap(group: MultiThreadedEventLoopGroup.singleton)
            .channelOption(.autoRead, value: reading)
        // A slow reader's kernel holds little for it: the daemon's bounds are what fill.
        if !reading { bootstrap = bootstrap.channelOption(.socketOption(.so_rcvbuf), value: 4096) }
        let channel =
            try await bootstrap
            .channelInitializer { channel in
                channel.eventLoop.makeCompletedFuture {
                    if let tls {
                        try channel.pipeline.syncOperations.addHandler(
                            NIOSSLClientHandler(context: tls, serverHostname: nil))
                    }
                    try channel.pipeline.syncOperations.addHandler(InboundCollector(sink: sink) { $0 })
                }
            }
            .connect(host: host, port: port).get()
        return GatewayConnection(channel: channel, chunks: chunks, reading: reading)
    }

    package func send(_ bytes: [UInt8]) async throws {
        try await channel.writeAndFlush(ByteBuffer(bytes: bytes))
    }

    package func startReading() async throws {
        readsOnDemand = false
        do {
            try await channel.setOption(.autoRead, value: true).get()
        } catch ChannelError.ioOnClosedChannel {
            // The peer closed first: NIO read all it had sent at its close, which waits here.
            return
        }
        channel.read()
    }

    /// Reads nothing more from the socket until a read is awaited: the peer's writes wait in
    /// the buffers, and over TLS its close is never answered.
    package func stopReading() async throws {
        readsOnDemand = true
        try await channel.setOption(.autoRead, value: false).get()
    }

    package var isActive: Bool { channel.isActive }

    package func close() async {
        try? await channel.close()
    }

    /// Waits for more bytes; false once the connection has ended.
    private func fill() async -> Bool {
        if readsOnDemand { channel.read() }
        guard let chunk = await iterator.next() else { return false }
        pending.append(contentsOf: chunk.readableBytesView)
        return true
    }

    /// A line ended by CRLF (or LF), without its end.
    package func readLine() async throws -> String {
        while true {
            if let lf = pending.firstIndex(of: 0x0A) {
                var line = Array(pending[..<lf])
                pending.removeSubrange(...lf)
                if line.last == 0x0D { line.removeLast() }
                return String(decoding: line, as: UTF8.self)
            }
            guard await fill() else { throw Closed() }
        }
    }

    package func read(exactly count: Int) async throws -> [UInt8] {
        while pending.count < count {
            guard await fill() else { throw Closed() }
        }
        let bytes = Array(pending[..<count])
        pending.removeFirst(count)
        return bytes
    }

    /// Everything until the peer closes.
    package func readToEnd() async -> [UInt8] {
        while await fill() {}
        defer { pending = [] }
        return pending
    }

    /// A response's status and headers (names lowercased).
    package func readHead() async throws -> (status: Int, headers: [String: String]) {
        let statusLine = try await readLine()
        let parts = statusLine.split(separator: " ", maxSplits: 2)
        guard parts.count >= 2, parts[0].hasPrefix("HTTP/1."), let status = Int(parts[1]) else {
            throw GatewayClient.Failure(description: "not an HTTP status line: \(statusLine)")
        }
        var headers: [String: String] = [:]
        while true {
            let line = try await readLine()
            if line.isEmpty { return (status, headers) }
            guard let colon = line.firstIndex(of: ":") else { continue }
            let name = line[..<colon].lowercased()
            let value = line[line.index(after: colon)...].trimmingCharacters(in: .whitespaces)
            headers[name] = headers[name].map { "\($0), \(value)" } ?? value
        }
    }

    /// One chunk of a chunked body; empty at its end.
    package func readChunk() async throws -> [UInt8] {
        let sizeLine = try await readLine()
        guard let size = Int(sizeLine.split(separator: ";")[0].trimmingCharacters(in: .whitespaces), radix: 16) else {
            throw GatewayClient.Failure(description: "not a chunk size: \(sizeLine)")
        }
        let chunk = try await read(exactly: size)
        _ = try await readLine()
        return chunk
    }

    /// A whole body, as its headers frame it.
    package func readBody(headers: [String: String], status: Int) async throws -> [UInt8] {
        if status == 204 || status == 304 || status == 101 { return [] }
        if let length = headers["content-length"].flatMap({ Int($0) }) { return try await read(exactly: length) }
        if headers["transfer-encoding"]?.lowercased().contains("chunked") == true {
            var body: [UInt8] = []
            while true {
                let chunk = try await readChunk()
                if chunk.isEmpty { return body }
                body += chunk
            }
        }
        return await readToEnd()
    }
}
