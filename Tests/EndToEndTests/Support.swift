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

/// The connection closed while a test waited for something on it.
struct ConnectionClosed: Error, CustomStringConvertible {
    let awaited: String
    var description: String { "the connection closed while waiting for \(awaited)" }
}

/// Reads notifications until one with `method` arrives (others are skipped), and when given
/// `condition` (said in words by `what`), one it accepts; fails after `timeout` instead of
/// waiting forever for a notification that never comes.
func next(
    _ method: String, from iterator: inout AsyncStream<ClientNotification>.Iterator, timeout: Duration = .seconds(20),
    where what: String? = nil, _ condition: @escaping @Sendable (ClientNotification) -> Bool = { _ in true }
) async throws -> ClientNotification {
    let box = UncheckedBox(iterator)
    defer { iterator = box.value }
    let awaited = "a \(method) notification" + (what.map { " where \($0)" } ?? "")
    return try await within(awaited, timeout: timeout) {
        while true {
            guard let notification = await box.value.next() else { throw ConnectionClosed(awaited: awaited) }
            if notification.method == method, condition(notification) { return notification }
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

/// Injects `count` scans, `<text>-0`, `<text>-1`…, on `device`, eight at a time through one
/// connection, and returns once every one was answered.
func injectConcurrently(
    _ count: Int, into daemon: DaemonHarness, device: String = "mock:till-1", text: String = "item"
) async throws {
    let injector = try await daemon.connect()
    let answered = AnswerCount()
    // A deadline, so that a daemon that stops answering fails the test with how far it got.
    let timeout = Duration.seconds(180)
    do {
        try await within("\(count) scans injected", timeout: timeout) {
            try await withThrowingTaskGroup(of: Void.self) { group in
                for worker in 0..<8 {
                    group.addTask {
                        for n in stride(from: worker, to: count, by: 8) {
                            _ = try await injector.inject(device: device, text: "\(text)-\(n)")
                            answered.value.add(1, ordering: .relaxed)
                        }
                    }
                }
                try await group.waitForAll()
            }
        }
    } catch is TimedOut {
        throw TimedOut("\(count) scans injected (\(answered.value.load(ordering: .relaxed)) answered)", after: timeout)
    }
    await injector.close()
}

private final class AnswerCount: Sendable {
    let value = Atomic(0)
}

extension RawConnection {
    /// The next line as JSON.
    func nextJSON(timeout: Duration = .seconds(20)) async throws -> JSONValue {
        let lines = self.lines
        return try await within("a line from the daemon", timeout: timeout) {
            var iterator = lines.makeAsyncIterator()
            guard let line = await iterator.next() else { throw ConnectionClosed(awaited: "a line from the daemon") }
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

/// Runs `body` with a headless browser window of its own, on the run's one chromedriver, and
/// ends the browser whatever `body` does, so that a failing test leaves no browser running.
func withBrowser<T>(
    width: Int = 1024, height: Int = 768, extraArguments: [String] = [],
    isolation: isolated (any Actor)? = #isolation, _ body: (WebDriverSession) async throws -> T
) async throws -> T {
    let driver = try await WebDriver.shared()
    let session = try await driver.newSession(width: width, height: height, extraArguments: extraArguments)
    let result: T
    do {
        result = try await body(session)
    } catch {
        try? await session.delete()
        throw error
    }
    try await session.delete()
    return result
}

/// The repository's folder, for files a test writes into it (the screenshot in docs/).
let repositoryRoot = URL(fileURLWithPath: #filePath).deletingLastPathComponent().deletingLastPathComponent()
    .deletingLastPathComponent()
