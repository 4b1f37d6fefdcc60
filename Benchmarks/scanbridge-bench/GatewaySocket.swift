import Foundation

/// A subscriber of the gateway speaking HTTP with plain system calls, as `LineSocket` speaks
/// the Unix socket, so that the gateway's figures are the daemon's and not a client
/// library's: Server-Sent Events (`GET /v1/events`), or a WebSocket (`GET /v1/ws`)
/// subscribed with `events.subscribe`. Each message handed over is one event's JSON.
///
/// `@unchecked Sendable`: handed to one thread, which alone uses it from then on.
final class GatewaySocket: ScanReader, @unchecked Sendable {
    enum Transport: String, CaseIterable {
        case webSocket = "WebSocket"
        case serverSentEvents = "SSE"
    }

    let descriptor: Int32
    let transport: Transport
    private var buffer = [UInt8](repeating: 0, count: 1 << 16)
    /// Received bytes not yet handed over: `buffer[start..<end]`.
    private var start = 0
    private var end = 0

    /// Connects to `address` (`127.0.0.1:PORT`) with a reader's `token` and subscribes.
    init(address: String, token: String, transport: Transport) throws {
        self.transport = transport
        descriptor = try Self.connect(address)
        let path =
            switch transport {
            case .webSocket: "/v1/ws?access_token=\(token)"
            case .serverSentEvents: "/v1/events?access_token=\(token)"
            }
        var request = "GET \(path) HTTP/1.1\r\nHost: \(address)\r\n"
        if transport == .webSocket {
            request +=
                "Upgrade: websocket\r\nConnection: Upgrade\r\nSec-WebSocket-Key: c2NhbmJyaWRnZS1iZW5jaA==\r\nSec-WebSocket-Version: 13\r\n"
        } else {
            request += "Accept: text/event-stream\r\n"
        }
        try write(Array((request + "\r\n").utf8))
        let head = try readHead()
        let expected = transport == .webSocket ? " 101 " : " 200 "
        guard head.contains(expected) else {
            throw BenchmarkFailure(description: "the gateway refused \(transport.rawValue): \(head.prefix(200))")
        }
        if transport == .webSocket {
            try writeFrame(Array(#"{"jsonrpc":"2.0","id":1,"method":"events.subscribe"}"#.utf8))
            // The subscription's answer.
            while true {
                var answered = false
                try readMessages { _, _ in answered = true }
                if answered { break }
            }
        }
    }

    deinit { close(descriptor) }

    func readMessages(_ body: (ArraySlice<UInt8>, UInt64) -> Void) throws {
        try receive()
        let arrived = Nanos.now()
        while let message = bufferedMessage() { body(message, arrived) }
    }

    /// A `GET` of `path` on a connection of its own, read to its end: the status line and
    /// the body's length.
    static func get(address: String, path: String, token: String) throws -> (status: String, bytes: Int) {
        let socket = try connect(address)
        defer { close(socket) }
        let request = Array(
            "GET \(path) HTTP/1.1\r\nHost: \(address)\r\nAuthorization: Bearer \(token)\r\nConnection: close\r\n\r\n".utf8)
        _ = request.withUnsafeBytes { Glibc.write(socket, $0.baseAddress!, $0.count) }
        var chunk = [UInt8](repeating: 0, count: 1 << 16)
        var response: [UInt8] = []
        while true {
            let count = chunk.withUnsafeMutableBytes { read(socket, $0.baseAddress!, $0.count) }
            guard count > 0 else { break }
            response += chunk[0..<count]
        }
        let status = String(decoding: response.prefix { $0 != 0x0D }, as: UTF8.self)
        return (status, response.count)
    }

    static func connect(_ address: String) throws -> Int32 {
        guard let colon = address.lastIndex(of: ":"), let port = UInt16(address[address.index(after: colon)...]) else {
            throw BenchmarkFailure(description: "not an address: \(address)")
        }
        let descriptor = socket(AF_INET, Int32(SOCK_STREAM.rawValue), 0)
        var socketAddress = sockaddr_in()
        socketAddress.sin_family = sa_family_t(AF_INET)
        socketAddress.sin_port = port.bigEndian
        inet_pton(AF_INET, String(address[..<colon]), &socketAddress.sin_addr)
        let connected = withUnsafePointer(to: &socketAddress) {
            $0.withMemoryRebound(to: sockaddr.self, capacity: 1) {
                Glibc.connect(descriptor, $0, socklen_t(MemoryLayout<sockaddr_in>.size))
            }
        }
        guard connected == 0 else {
            close(descriptor)
            throw BenchmarkFailure(description: "connect to \(address): \(String(cString: strerror(errno)))")
        }
        var on: Int32 = 1
        setsockopt(descriptor, Int32(IPPROTO_TCP), TCP_NODELAY, &on, socklen_t(MemoryLayout<Int32>.size))
        return descriptor
    }

    private func write(_ bytes: [UInt8]) throws {
        var written = 0
        while written < bytes.count {
            let count = bytes.withUnsafeBytes { Glibc.write(descriptor, $0.baseAddress! + written, $0.count - written) }
            guard count > 0 else { throw BenchmarkFailure(description: "write: \(String(cString: strerror(errno)))") }
            written += count
        }
    }

    /// A text frame as a client must send it: masked.
    private func writeFrame(_ payload: [UInt8]) throws {
        precondition(payload.count < 126, "a short message")
        let mask: [UInt8] = [0x5B, 0x1E, 0xA7, 0x3C]
        let masked = payload.enumerated().map { $0.element ^ mask[$0.offset % 4] }
        try write([0x81, 0x80 | UInt8(payload.count)] + mask + masked)
    }

    /// The response's head, up to its blank line; what follows stays buffered.
    private func readHead() throws -> String {
        let blank = Array("\r\n\r\n".utf8)
        while true {
            if let range = buffer[start..<end].firstRange(of: blank) {
                defer { start = range.upperBound }
                return String(decoding: buffer[start..<range.lowerBound], as: UTF8.self)
            }
            try receive()
        }
    }

    private func bufferedMessage() -> ArraySlice<UInt8>? {
        switch transport {
        case .serverSentEvents: bufferedEventData()
        case .webSocket: bufferedFrame()
        }
    }

    /// The next `data:` line's value; the stream's other lines (`id:`, `event:`, blank
    /// lines, comments) are passed over.
    private func bufferedEventData() -> ArraySlice<UInt8>? {
        let prefix = Array("data: ".utf8)
        while let newline = buffer[start..<end].firstIndex(of: 0x0A) {
            let line = buffer[start..<newline]
            start = newline + 1
            if line.starts(with: prefix) { return line.dropFirst(prefix.count) }
        }
        return nil
    }

    /// The next text frame's payload (the server's frames are unmasked); other frames are
    /// passed over.
    private func bufferedFrame() -> ArraySlice<UInt8>? {
        while end - start >= 2 {
            let opcode = buffer[start] & 0x0F
            var length = Int(buffer[start + 1] & 0x7F)
            var header = 2
            if length == 126 {
                guard end - start >= 4 else { return nil }
                length = Int(buffer[start + 2]) << 8 | Int(buffer[start + 3])
                header = 4
            } else if length == 127 {
                guard end - start >= 10 else { return nil }
                length = (2..<10).reduce(0) { $0 << 8 | Int(buffer[start + $1]) }
                header = 10
            }
            guard end - start >= header + length else { return nil }
            let payload = buffer[(start + header)..<(start + header + length)]
            start += header + length
            if opcode == 0x1 { return payload }
        }
        return nil
    }

    private func receive() throws {
        if start > 0 {
            buffer.replaceSubrange(0..<(end - start), with: buffer[start..<end])
            (start, end) = (0, end - start)
        }
        guard end < buffer.count else { throw BenchmarkFailure(description: "a message longer than \(buffer.count) bytes") }
        let count = buffer.withUnsafeMutableBytes { Glibc.read(descriptor, $0.baseAddress! + end, $0.count - end) }
        guard count > 0 else { throw BenchmarkFailure(description: "the gateway closed while waiting for a message") }
        end += count
    }
}
