import Foundation
import ScanBridgeClient
import ScanBridgeModel
import ScanBridgeRPC
import ScanBridgeTesting
import Synchronization
import Testing

/// Starts a daemon for one test; it is killed and its folder removed when the harness goes.
func startDaemon(_ arguments: [String] = [], config: String? = nil) async throws -> DaemonHarness {
    let harness = try DaemonHarness(arguments: arguments)
    if let config {
        let path = try harness.write("scanbridge.yaml", config)
        let withConfig = try DaemonHarness.reusing(harness, arguments: arguments + ["--config", path])
        try await withConfig.start()
        return withConfig
    }
    try await harness.start()
    return harness
}

struct TimedOut: Error, CustomStringConvertible {
    let what: String
    var description: String { "timed out waiting for \(what)" }
}

/// Runs `body`, failing instead of hanging when it takes longer than `seconds`.
func within<T: Sendable>(_ seconds: Double = 20, _ what: String, _ body: @escaping @Sendable () async throws -> T)
    async throws -> T
{
    try await withThrowingTaskGroup(of: T?.self) { group in
        group.addTask { try await body() }
        group.addTask {
            try await Task.sleep(for: .seconds(seconds))
            return nil
        }
        guard let first = try await group.next(), let value = first else {
            group.cancelAll()
            throw TimedOut(what: what)
        }
        group.cancelAll()
        return value
    }
}

/// Reads notifications until one with `method` arrives (others are skipped); fails after
/// `seconds` instead of waiting forever for a notification that never comes.
func next(
    _ method: String, from iterator: inout AsyncStream<ClientNotification>.Iterator, seconds: Double = 20
) async throws -> ClientNotification {
    let box = UncheckedBox(iterator)
    defer { iterator = box.value }
    return try await within(seconds, method) {
        while true {
            guard let notification = await box.value.next() else { throw TimedOut(what: "\(method) (connection closed)") }
            if notification.method == method { return notification }
        }
    }
}

/// Lets a test's notification iterator cross into the timeout task; only one task uses it at a time.
final class UncheckedBox<Value>: @unchecked Sendable {
    var value: Value
    init(_ value: Value) { self.value = value }
}

/// Expects `body` to fail with the JSON-RPC error `code`; returns the error.
@discardableResult
func expectRPCError(
    _ code: Int, sourceLocation: SourceLocation = #_sourceLocation, _ body: () async throws -> Void
) async -> RPCError? {
    do {
        try await body()
        Issue.record("expected error \(code), the call succeeded", sourceLocation: sourceLocation)
    } catch let error as RPCError {
        #expect(error.code == code, "\(error.message)", sourceLocation: sourceLocation)
        #expect(!error.message.isEmpty, sourceLocation: sourceLocation)
        return error
    } catch {
        Issue.record("expected RPC error \(code), got \(error)", sourceLocation: sourceLocation)
    }
    return nil
}

extension RawConnection {
    /// The next line as JSON.
    func nextJSON(seconds: Double = 20) async throws -> JSONValue {
        let lines = self.lines
        return try await within(seconds, "a line from the daemon") {
            var iterator = lines.makeAsyncIterator()
            guard let line = await iterator.next() else { throw TimedOut(what: "a line (connection closed)") }
            return try JSONDecoder().decode(JSONValue.self, from: Data(line.utf8))
        }
    }
}

extension JSONValue {
    var errorCode: Int64? { self["error"]?["code"]?.intValue }

    /// The element at `index` of an array.
    subscript(index: Int) -> JSONValue? {
        guard let elements = arrayValue, elements.indices.contains(index) else { return nil }
        return elements[index]
    }
}

/// A value shared by concurrent test tasks.
final class Shared<Value: Sendable>: Sendable {
    private let state: Mutex<Value>
    init(_ value: Value) { state = Mutex(value) }
    func withLock<R: Sendable>(_ body: (inout Value) -> R) -> R { state.withLock { body(&$0) } }
    var value: Value { state.withLock { $0 } }
}
