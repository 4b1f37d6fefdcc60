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
        let deadline = ContinuousClock.now + timeout
        while true {
            do {
                let client = QMPClient(connection: try await RawConnection.connect(socketPath: path))
                try await client.execute("qmp_capabilities")
                return client
            } catch let failure as LabFailure {
                throw failure
            } catch {
                guard ContinuousClock.now < deadline else {
                    throw LabFailure(step: "connect to QMP", reason: "\(path): \(error)")
                }
                try await Task.sleep(for: .milliseconds(50))
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
        let deadline = ContinuousClock.now + timeout
        while true {
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
            guard ContinuousClock.now < deadline else {
                throw LabFailure(step: "QMP \(command)", reason: "no answer within \(timeout)")
            }
            try await Task.sleep(for: .milliseconds(2))
        }
    }

    /// Waits for an event named `name` whose `data` has `key` equal to `value`.
    func waitForEvent(_ name: String, where key: String, is value: String, timeout: Duration = .seconds(20)) async throws {
        let deadline = ContinuousClock.now + timeout
        while true {
            let events = inbox.state.withLock { $0.events }
            let seen = events.compactMap(Self.object).contains { event in
                event["event"] as? String == name && (event["data"] as? [String: Any])?[key] as? String == value
            }
            if seen { return }
            guard ContinuousClock.now < deadline else {
                throw LabFailure(step: "QMP event \(name)", reason: "no \(name) with \(key)=\(value) within \(timeout)")
            }
            try await Task.sleep(for: .milliseconds(10))
        }
    }

    func close() async {
        await connection.close()
    }
}
