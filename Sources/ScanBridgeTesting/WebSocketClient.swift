/// A WebSocket client's side of RFC 6455, framed by hand: masked frames out, the daemon's
/// frames in, pings answered by the test itself when it wants to.
package final class WebSocketClient: @unchecked Sendable {
    package struct Frame: Sendable, Hashable {
        package var fin: Bool
        package var opcode: UInt8
        package var payload: [UInt8]

        package init(fin: Bool, opcode: UInt8, payload: [UInt8]) {
            self.fin = fin
            self.opcode = opcode
            self.payload = payload
        }

        package var text: String { String(decoding: payload, as: UTF8.self) }
        /// The code of a close frame.
        package var closeCode: Int? {
            opcode == 0x8 && payload.count >= 2 ? Int(payload[0]) << 8 | Int(payload[1]) : nil
        }
    }

    package static let text: UInt8 = 0x1
    package static let binary: UInt8 = 0x2
    package static let continuation: UInt8 = 0x0
    package static let close: UInt8 = 0x8
    package static let ping: UInt8 = 0x9
    package static let pong: UInt8 = 0xA

    private let connection: GatewayConnection
    /// The headers of the daemon's 101 answer, names lowercased.
    package let headers: [String: String]

    init(connection: GatewayConnection, headers: [String: String]) {
        self.connection = connection
        self.headers = headers
    }

    package func send(text: String) async throws {
        try await send(Frame(fin: true, opcode: Self.text, payload: Array(text.utf8)))
    }

    package func send(_ frame: Frame) async throws {
        var bytes: [UInt8] = [(frame.fin ? 0x80 : 0) | frame.opcode]
        let count = frame.payload.count
        if count < 126 {
            bytes.append(0x80 | UInt8(count))
        } else if count <= 0xFFFF {
            bytes += [0x80 | 126, UInt8(count >> 8), UInt8(count & 0xFF)]
        } else {
            bytes.append(0x80 | 127)
            bytes += (0..<8).reversed().map { UInt8((count >> ($0 * 8)) & 0xFF) }
        }
        let mask = (0..<4).map { _ in UInt8.random(in: 0...255) }
        bytes += mask
        bytes += frame.payload.enumerated().map { $0.element ^ mask[$0.offset % 4] }
        try await connection.send(bytes)
    }

    /// The next frame, whatever it is.
    package func receiveFrame(timeout: Duration = .seconds(20)) async throws -> Frame {
        try await within("a WebSocket frame", timeout: timeout) {
            let head = try await self.connection.read(exactly: 2)
            var count = Int(head[1] & 0x7F)
            if count == 126 {
                count = try await self.connection.read(exactly: 2).reduce(0) { $0 << 8 | Int($1) }
            } else if count == 127 {
                count = try await self.connection.read(exactly: 8).reduce(0) { $0 << 8 | Int($1) }
            }
            guard head[1] & 0x80 == 0 else { throw GatewayClient.Failure(description: "a server frame was masked") }
            return Frame(
                fin: head[0] & 0x80 != 0, opcode: head[0] & 0x0F, payload: try await self.connection.read(exactly: count))
        }
    }

    /// The next text message (pings and pongs skipped); throws on a close frame.
    package func receiveText(timeout: Duration = .seconds(20)) async throws -> String {
        while true {
            let frame = try await receiveFrame(timeout: timeout)
            switch frame.opcode {
            case Self.text: return frame.text
            case Self.close: throw GatewayClient.Failure(description: "closed with code \(frame.closeCode ?? 0)")
            default: continue
            }
        }
    }

    /// Reads until the daemon's close frame; its code, or nil when the connection just ended.
    package func closeCode(timeout: Duration = .seconds(20)) async throws -> Int? {
        while true {
            do {
                let frame = try await receiveFrame(timeout: timeout)
                if frame.opcode == Self.close { return frame.closeCode }
            } catch is GatewayConnection.Closed {
                return nil
            }
        }
    }

    /// See `GatewayConnection.stopReading()`.
    package func stopReading() async throws { try await connection.stopReading() }

    package var isActive: Bool { connection.isActive }

    package func close() async { await connection.close() }
}
