import NIOCore
import NIOHTTP1
import NIOPosix

/// One HTTP/1.1 request on a connection of its own, for a test tool on a loopback port
/// (chromedriver). The answer's body is bounded in bytes.
enum LoopbackHTTP {
    struct Answer: Sendable {
        let status: Int
        let body: [UInt8]
    }

    struct Failure: Error, CustomStringConvertible {
        let description: String
    }

    /// Screenshots come back as base64 in JSON; a window's is far below this.
    static let maxBodyBytes = 64 << 20

    static func send(
        _ method: HTTPMethod, port: Int, path: String, json body: [UInt8]?
    ) async throws -> Answer {
        let channel = try await ClientBootstrap(group: MultiThreadedEventLoopGroup.singleton)
            .connect(host: "127.0.0.1", port: port) { channel in
                channel.eventLoop.makeCompletedFuture {
                    try channel.pipeline.syncOperations.addHTTPClientHandlers()
                    return try NIOAsyncChannel<HTTPClientResponsePart, HTTPClientRequestPart>(
                        wrappingChannelSynchronously: channel)
                }
            }
        return try await channel.executeThenClose { inbound, outbound in
            var head = HTTPRequestHead(version: .http1_1, method: method, uri: path)
            head.headers.add(name: "Host", value: "127.0.0.1:\(port)")
            head.headers.add(name: "Connection", value: "close")
            if let body {
                head.headers.add(name: "Content-Type", value: "application/json; charset=utf-8")
                head.headers.add(name: "Content-Length", value: "\(body.count)")
            } else if method == .POST {
                head.headers.add(name: "Content-Length", value: "0")
            }
            try await outbound.write(.head(head))
            if let body { try await outbound.write(.body(.byteBuffer(ByteBuffer(bytes: body)))) }
            try await outbound.write(.end(nil))

            var status = 0
            var received: [UInt8] = []
            for try await part in inbound {
                switch part {
                case .head(let answer):
                    status = Int(answer.status.code)
                case .body(let chunk):
                    guard received.count + chunk.readableBytes <= maxBodyBytes else {
                        throw Failure(description: "the answer to \(method) \(path) is over \(maxBodyBytes) bytes")
                    }
                    received += chunk.readableBytesView
                case .end:
                    return Answer(status: status, body: received)
                }
            }
            throw Failure(description: "the connection closed before the answer to \(method) \(path) ended")
        }
    }
}
