import Foundation
import ScanBridgeClient
import ScanBridgeModel
import ScanBridgeRPC
import ScanBridgeTesting
import Synchronization
import Testing

/// Out-of-process handlers: `handlers.register` and `handler.resolve`, through the socket.
@Suite("Out-of-process handlers end to end", .heavy, .timeLimit(.minutes(5)))
struct RemoteHandlerTests {
    /// The repository's root, where `examples/` lives.
    static let root = URL(fileURLWithPath: #filePath).deletingLastPathComponent().deletingLastPathComponent()
        .deletingLastPathComponent()

    @Test func thePythonExampleRefusesASocketInAFolderEveryoneMayWriteIn() async throws {
        let daemon = try await startDaemon(["--mock", "barcode:till"])
        #expect(chmod(daemon.directory.path, 0o777) == 0)
        let result = try await Spawned(command: [
            "/usr/bin/env", "python3", Self.root.appendingPathComponent("examples/loyalty_handler.py").path,
            "--socket", daemon.socketPath,
        ]).finish(timeout: .seconds(20))
        #expect(result.status == 1)
        #expect(result.err.contains("refusing to connect to \(daemon.socketPath)"), "\(result.err)")
        #expect(result.err.contains("`chmod o-w \(daemon.directory.path)`"), "\(result.err)")
    }

    @Test func thePythonExampleResolvesItsCodesAndIsUnregisteredWhenItGoes() async throws {
        let daemon = try await startDaemon(["--mock", "barcode:till"])
        let plugin = try Spawned(command: [
            "/usr/bin/env", "python3", Self.root.appendingPathComponent("examples/loyalty_handler.py").path,
            "--socket", daemon.socketPath,
        ])
        #expect(try await plugin.firstLine(timeout: .seconds(20)).hasPrefix("registered as h"), "the example registered")
        let client = try await daemon.connect()
        #expect(try await client.call("bridge.hello")["handlers"]?.arrayValue?.first == "loyalty", "priority 10 goes first")

        let member = try await client.inject(device: "mock:till", text: "LOYALTY-0042", symbology: "code-128")
        #expect(member.resolution.handler == "loyalty" && member.resolution.status == "found")
        #expect(member.resolution.details["member"]?["name"] == "Ada Lovelace")
        let stranger = try await client.inject(device: "mock:till", text: "loyalty-9999", symbology: "code-128")
        #expect(stranger.resolution.handler == "loyalty" && stranger.resolution.status == "not_found")
        // Codes the plugin's match refuses still go to the built-in handlers.
        #expect(try await client.inject(device: "mock:till", text: "5901234123457").resolution.handler == "product-lookup")

        plugin.killNow()
        try await waitUntil("the handler to be unregistered") {
            try await client.call("bridge.hello")["handlers"]?.arrayValue?.contains("loyalty") == false
        }
        let after = try await client.inject(device: "mock:till", text: "LOYALTY-0042", symbology: "code-128")
        #expect(after.resolution.handler == "product-lookup", "a label nobody else claims is looked up as a SKU")
        await client.close()
    }

    /// A batch of injections is resolved together, but an out-of-process handler is asked about
    /// all of them at once: one after another, each could wait out its whole timeout.
    @Test func aBatchAsksAnOutOfProcessHandlerAboutEveryEventAtOnce() async throws {
        let daemon = try await startDaemon(["--mock", "barcode:till"], config: "handlers:\n  timeout_ms: 5000\n")
        let plugin = try await daemon.connect()
        final class Count: Sendable { let value = Mutex(0) }
        let asked = Count()
        plugin.setRequestHandler { request in
            // Answers only once all four requests are in: asked one at a time, each would time out.
            asked.value.withLock { $0 += 1 }
            try await waitUntil("all four requests to reach the handler") { asked.value.withLock { $0 } >= 4 }
            return .value(["status": "found", "text": request.params["event"]?["text"] ?? .null])
        }
        _ = try await plugin.call("handlers.register", ["name": "batch-plugin", "match": ["kinds": ["barcode"]], "priority": 5])
        let raw = try await RawConnection.connect(socketPath: daemon.socketPath)
        try await raw.send(
            "["
                + (1...4).map {
                    #"{"jsonrpc":"2.0","id":\#($0),"method":"scan.inject","params":{"device":"mock:till","text":"B\#($0)"}}"#
                }.joined(separator: ",") + "]")
        let answers = try #require(try await raw.nextJSON(timeout: .seconds(60)).arrayValue)
        #expect(answers.map { $0["result"]?["event"]?["resolution"]?["status"] } == Array(repeating: "found", count: 4))
        #expect(answers.map { $0["result"]?["event"]?["text"] } == ["B1", "B2", "B3", "B4"])
        await raw.close()
        await plugin.close()
    }

    @Test func silenceGivesTimeoutAndGarbageGivesErrorButTheEventIsPublished() async throws {
        // A timeout long enough for an answer on a loaded machine: the handler that must time
        // out never answers, so the timeout alone decides, not the machine's speed.
        let daemon = try await startDaemon(["--mock", "barcode:till"], config: "handlers:\n  timeout_ms: 8000\n")
        let plugin = try await daemon.connect()
        plugin.setRequestHandler { request in
            switch request.params["event"]?["text"]?.stringValue {
            case "SLOW":
                try await Task.sleep(for: .seconds(600))
                return .emptyObject
            case "GARBAGE": return .value(.array([1, 2]))
            case "NOSTATUS": return .value(["member": "x"])
            case "FAIL": throw RPCError(code: -32603, message: "database is down")
            default:
                return .value([
                    "status": "found", "handler": "liar", "note": .string(request.params["handler"]?.stringValue ?? ""),
                ])
            }
        }
        let registered = try await plugin.call(
            "handlers.register",
            [
                "name": "test-plugin", "match": ["kinds": ["barcode"], "pattern": "^[A-Z]+$"], "priority": 5,
            ])
        let id = try #require(registered["handler"]?.stringValue)
        let client = try await daemon.connect()
        _ = try await client.call("events.subscribe", ["kinds": ["barcode"]])
        var notifications = client.notifications.makeAsyncIterator()

        let ok = try await client.inject(device: "mock:till", text: "GOOD", symbology: "code-128")
        #expect(ok.resolution.handler == "test-plugin" && ok.resolution.status == "found")
        #expect(ok.resolution.details["note"] == .string(id), "the request names the registration")
        let slow = try await client.inject(device: "mock:till", text: "SLOW", symbology: "code-128")
        #expect(slow.resolution == Resolution(handler: "test-plugin", status: "timeout"))
        for text in ["GARBAGE", "NOSTATUS", "FAIL"] {
            let event = try await client.inject(device: "mock:till", text: text, symbology: "code-128")
            #expect(event.resolution.handler == "test-plugin" && event.resolution.status == "error", "\(text)")
            #expect(event.resolution.details["message"]?.stringValue?.isEmpty == false)
        }
        var published: [String] = []
        for _ in 0..<5 { published.append(try #require(try await next("scan", from: &notifications).scanEvent()).text) }
        #expect(published == ["GOOD", "SLOW", "GARBAGE", "NOSTATUS", "FAIL"])

        await expectRPCError(RPCError.invalidParams) {
            _ = try await plugin.call("handlers.register", ["name": "bad", "match": ["pattern": "(unclosed"]])
        }
        await plugin.close()
        await client.close()
    }

    /// A plugin cannot pass for a built-in handler, nor register without bound.
    @Test func registrationsAreCappedAndBuiltInNamesAreTaken() async throws {
        let daemon = try await startDaemon([], config: "server:\n  handlers_per_connection: 3\n")
        let plugin = try await daemon.connect()
        for name in ["product-lookup", "card-link", "order-lookup"] {
            await expectRPCError(RPCError.invalidParams) {
                _ = try await plugin.call("handlers.register", ["name": .string(name), "match": ["kinds": ["qr"]]])
            }
        }
        for index in 1...3 {
            _ = try await plugin.call("handlers.register", ["name": .string("plugin-\(index)"), "match": ["kinds": ["qr"]]])
        }
        await expectRPCError(RPCError.overloaded) {
            _ = try await plugin.call("handlers.register", ["name": "plugin-4", "match": ["kinds": ["qr"]]])
        }
        // The cap is per connection: another one may register its own.
        let other = try await daemon.connect()
        _ = try await other.call("handlers.register", ["name": "plugin-4", "match": ["kinds": ["qr"]]])
        await other.close()
        await plugin.close()
    }
}
