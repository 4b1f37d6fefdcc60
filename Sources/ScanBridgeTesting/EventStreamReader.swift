/// Reads a Server-Sent Events stream as a browser's EventSource would: `id`, `event` and
/// `data` fields, a blank line ending each event, comments skipped (and counted).
package final class EventStreamReader: @unchecked Sendable {
    package struct Event: Sendable, Hashable {
        package var id: String?
        package var event: String
        package var data: String
    }

    package let headers: [String: String]
    private let connection: GatewayConnection
    private var text: [UInt8] = []
    private var ended = false
    /// Comment lines seen (keep-alives).
    package private(set) var comments = 0

    init(connection: GatewayConnection, headers: [String: String]) {
        self.connection = connection
        self.headers = headers
    }

    /// The next event; nil when the stream ended.
    package func next(timeout: Duration = .seconds(20)) async throws -> Event? {
        try await within("the next server-sent event", timeout: timeout) { try await self.readEvent() }
    }

    private func readEvent() async throws -> Event? {
        var event = Event(id: nil, event: "message", data: "")
        var hasData = false
        while true {
            guard let line = try await nextLine() else { return nil }
            if line.isEmpty {
                if hasData { return event }
                continue
            }
            if line.hasPrefix(":") {
                comments += 1
                continue
            }
            let (field, value) = Self.split(line)
            switch field {
            case "id": event.id = value
            case "event": event.event = value
            case "data":
                event.data += hasData ? "\n" + value : value
                hasData = true
            default: break
            }
        }
    }

    private static func split(_ line: String) -> (String, String) {
        guard let colon = line.firstIndex(of: ":") else { return (line, "") }
        var value = line[line.index(after: colon)...]
        if value.hasPrefix(" ") { value = value.dropFirst() }
        return (String(line[..<colon]), String(value))
    }

    /// A line of the decoded (unchunked) body; nil at its end.
    private func nextLine() async throws -> String? {
        while true {
            if let lf = text.firstIndex(of: 0x0A) {
                let line = String(decoding: text[..<lf], as: UTF8.self)
                text.removeSubrange(...lf)
                return line
            }
            guard !ended else { return nil }
            do {
                let chunk = try await connection.readChunk()
                if chunk.isEmpty { ended = true }
                text += chunk
            } catch is GatewayConnection.Closed {
                ended = true
            }
        }
    }

    package func startReading() async throws { try await connection.startReading() }

    package func close() async { await connection.close() }
}
