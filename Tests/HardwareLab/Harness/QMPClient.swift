import Foundation
import ScanBridgeTesting
import Synchronization

/// A QEMU Machine Protocol client on QEMU's Unix socket. Each command carries an `id` that
/// QEMU echoes in its answer; asynchronous events (`DEVICE_DELETED`, …) are kept in order.
final class QMPClient: Sendable {
    /// What the reader has received: answers by id and events, as the JSON lines they came in.
    private final class Inbox: Sendable {
        struct State {
            var answers: [Int: String] = [:]
            var events: [String] = []
            var closed = false
            var nextID = 1
        }
        let state = Mutex(State())
    }

    private let connection: RawConnection
    private let inbox: Inbox
    private let reader: Task<Void, Never>

    private init(connection: RawConnection) {
        let inbox = Inbox()
        self.connection = connection
        self.inbox = inbox
        self.reader = Task { [lines = connection.lines, inbox] in
            for await line in lines {
                guard let object = Self.object(line) else { continue }
                inbox.state.withLock { state in
                    if let id = object["id"] as? Int {
                        state.answers[id] = line
                    } else if object["event"] != nil {
                        state.events.append(line)
                    }
                }
            }
            inbox.state.withLock { $0.closed = true }
        }
    }

    private static func object(_ line: String) -> [String: Any]? {
        try? JSONSerialization.jsonObject(with: Data(line.utf8)) as? [String: Any]
    }

    /// Connects (retrying until QEMU has made the socket) and leaves capabilities negotiation mode.
    static func connect(path: String, timeout: Duration = .seconds(30)) async throws -> QMPClient {
        var lastError: (any Error)?
        return try await LabFailure.timing("connect to QMP") {
            try await waitFor("QMP on \(path); the last try: \(lastError.map { "\($0)" } ?? "none")", timeout: timeout) {
                () async throws -> QMPClient? in
                do {
                    let client = QMPClient(connection: try await RawConnection.connect(socketPath: path))
                    try await client.execute("qmp_capabilities")
                    return client
                } catch let failure as LabFailure {
                    throw failure
                } catch {
                    lastError = error  // QEMU has not made the socket yet
                    return nil
                }
            }
        }
    }

    deinit { reader.cancel() }

    /// Runs one command and returns its `return` value; a QMP error throws, naming the command.
    @discardableResult
    func execute(_ command: String, _ arguments: [String: any Sendable] = [:], timeout: Duration = .seconds(20))
        async throws -> String
    {
        let id = inbox.state.withLock { state in
            defer { state.nextID += 1 }
            return state.nextID
        }
        var message: [String: Any] = ["execute": command, "id": id]
        if !arguments.isEmpty { message["arguments"] = arguments }
        let data = try JSONSerialization.data(withJSONObject: message)
        try await connection.send(String(decoding: data, as: UTF8.self))
        return try await LabFailure.timing("QMP \(command)") {
            try await waitFor("QEMU's answer", timeout: timeout) { () throws -> String? in
                let (line, closed) = inbox.state.withLock { state in (state.answers.removeValue(forKey: id), state.closed) }
                if let line, let answer = Self.object(line) {
                    if let error = answer["error"] as? [String: Any] {
                        throw LabFailure(step: "QMP \(command)", reason: "\(error["desc"] ?? error)")
                    }
                    let value = answer["return"] ?? [:]
                    let text = (try? JSONSerialization.data(withJSONObject: value, options: [.fragmentsAllowed])) ?? Data()
                    return String(decoding: text, as: UTF8.self)
                }
                if closed { throw LabFailure(step: "QMP \(command)", reason: "QEMU closed the QMP socket") }
                return nil
            }
        }
    }

    /// Waits for an event named `name` whose `data` has `key` equal to `value`.
    func waitForEvent(_ name: String, where key: String, is value: String, timeout: Duration = .seconds(20)) async throws {
        try await LabFailure.timing("QMP event \(name)") {
            try await waitUntil("\(name) with \(key)=\(value)", timeout: timeout) {
                let events = inbox.state.withLock { $0.events }
                return events.compactMap(Self.object).contains { event in
                    event["event"] as? String == name && (event["data"] as? [String: Any])?[key] as? String == value
                }
            }
        }
    }

    func close() async {
        await connection.close()
    }
}
