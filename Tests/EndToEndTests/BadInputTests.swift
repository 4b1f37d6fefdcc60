import Foundation
import ScanBridgeClient
import ScanBridgeModel
import ScanBridgeRPC
import ScanBridgeTesting
import Testing

/// Every error code of docs/protocol.md, and bad input that must not close the connection.
@Suite("Bad input end to end", .heavy, .timeLimit(.minutes(5)))
struct BadInputTests {
    @Test func malformedLinesGetErrorsAndTheConnectionStays() async throws {
        let daemon = try await startDaemon(["--mock", "barcode:till-1"])
        let raw = try await RawConnection.connect(socketPath: daemon.socketPath)
        let cases: [(String, Int64)] = [
            ("this is not json", -32700),
            ("{\"jsonrpc\":\"2.0\",\"id\":1,\"method\":\"devices.list\"", -32700),
            ("[1, 2", -32700),
            ("42", -32600),
            ("[]", -32600),
            ("{\"id\":1,\"method\":\"devices.list\"}", -32600),
            ("{\"jsonrpc\":\"1.0\",\"id\":1,\"method\":\"devices.list\"}", -32600),
            ("{\"jsonrpc\":\"2.0\",\"id\":1,\"method\":7}", -32600),
            ("{\"jsonrpc\":\"2.0\",\"id\":{},\"method\":\"devices.list\"}", -32600),
            ("{\"jsonrpc\":\"2.0\",\"id\":1,\"method\":\"devices.list\",\"params\":3}", -32600),
            ("{\"jsonrpc\":\"2.0\",\"id\":1,\"method\":\"no.such\"}", -32601),
            ("{\"jsonrpc\":\"2.0\",\"id\":1,\"method\":\"events.recent\",\"params\":{\"limit\":5000}}", -32602),
            ("{\"jsonrpc\":\"2.0\",\"id\":1,\"method\":\"events.recent\",\"params\":[1]}", -32602),
        ]
        for (line, code) in cases {
            try await raw.send(line)
            let answer = try await raw.nextJSON()
            #expect(answer.errorCode == code, "\(line) → \(answer)")
            #expect(answer["error"]?["message"]?.stringValue?.isEmpty == false)
        }
        try await raw.send([0xFF, 0xFE, 0x7B, 0x0A])
        #expect(try await raw.nextJSON().errorCode == -32700, "invalid UTF-8 is a parse error")
        try await raw.send("{\"jsonrpc\":\"2.0\",\"id\":\"still-here\",\"method\":\"bridge.hello\"}\r")
        let hello = try await raw.nextJSON()
        #expect(hello["id"] == "still-here" && hello["result"]?["name"] == "scanbridge", "CRLF accepted, connection usable")
        await raw.close()
    }

    @Test func batchesAndNotifications() async throws {
        let daemon = try await startDaemon(["--mock", "barcode:till-1"])
        let raw = try await RawConnection.connect(socketPath: daemon.socketPath)
        try await raw.send(
            """
            [{"jsonrpc":"2.0","id":1,"method":"devices.list"},{"jsonrpc":"2.0","method":"devices.list"},{"jsonrpc":"2.0","id":2,"method":"nope"},5]
            """)
        let batch = try #require(try await raw.nextJSON().arrayValue)
        #expect(batch.count == 3, "the notification gets no answer")
        #expect(batch[0]["id"] == 1 && batch[0]["result"]?["devices"] != nil)
        #expect(batch[1]["id"] == 2 && batch[1].errorCode == -32601)
        #expect(batch[2]["id"] == .null && batch[2].errorCode == -32600)
        // A batch of notifications only gets nothing; the next answer is for the next request.
        try await raw.send("[{\"jsonrpc\":\"2.0\",\"method\":\"bridge.hello\"}]")
        try await raw.send("{\"jsonrpc\":\"2.0\",\"method\":\"no.such\"}")
        try await raw.send("{\"jsonrpc\":\"2.0\",\"id\":3,\"method\":\"bridge.hello\"}")
        #expect(try await raw.nextJSON()["id"] == 3)
        await raw.close()
    }

    /// A batch is bounded in elements, and its notifications count against the pending limit
    /// like its requests: a line of tiny elements cannot start work without bound.
    @Test func aBatchPastItsLimitIsRefusedWholeAndNotificationsCountAsPending() async throws {
        let daemon = try await startDaemon(
            ["--mock", "barcode:till-1"], config: "server:\n  max_batch: 10\n  pending_requests: 4\n")
        let raw = try await RawConnection.connect(socketPath: daemon.socketPath)
        let hello = #"{"jsonrpc":"2.0","id":1,"method":"bridge.hello"}"#
        try await raw.send("[" + Array(repeating: "1", count: 11).joined(separator: ",") + "]")
        let refused = try await raw.nextJSON()
        #expect(refused["id"] == .null && refused.errorCode == -32600)
        #expect(refused["error"]?["message"]?.stringValue?.contains("at most 10") == true)
        try await raw.send("[" + Array(repeating: hello, count: 10).joined(separator: ",") + "]")
        let answers = try #require(try await raw.nextJSON().arrayValue)
        #expect(answers.count == 10, "a batch at the limit is answered")
        #expect(answers.filter { $0["result"] != nil }.count == 4 && answers.filter { $0.errorCode == -32005 }.count == 6)

        // Ten injections sent as notifications: the first four run, the others are dropped.
        let inject = #"{"jsonrpc":"2.0","method":"scan.inject","params":{"device":"mock:till-1","text":"4006381333931"}}"#
        try await raw.send("[" + Array(repeating: inject, count: 10).joined(separator: ",") + "]")
        let client = try await daemon.connect()
        try await waitUntil("the admitted injections journaled") {
            try await client.call("events.recent", ["limit": 100])["events"]?.arrayValue?.count == 4
        }
        // The connection stays usable once the batch's slots are released.
        try await waitUntil("a hello answered after the batch") { [raw] in
            try await raw.send(hello)
            return try await raw.nextJSON()["result"] != nil
        }
        #expect(try await client.call("events.recent", ["limit": 100])["events"]?.arrayValue?.count == 4)
        await raw.close()
    }

    /// A line too long to parse on the event loop is parsed on a thread of its own; the lines
    /// after it wait for it, so requests are still taken in the order they were sent, and a
    /// client that shuts its side right after a long line still gets every answer.
    @Test func longLinesKeepTheirPlaceAmongShortOnes() async throws {
        let daemon = try await startDaemon(["--mock", "barcode:till-1"])
        let raw = try await RawConnection.connect(socketPath: daemon.socketPath)
        // Whitespace between tokens is valid JSON: the same request, as long a line as wanted.
        func inject(_ text: String, padding: Int) -> String {
            #"{"jsonrpc":"2.0","id":"\#(text)","method":"scan.inject","params":{"device":"mock:till-1","text":"\#(text)"}"#
                + String(repeating: " ", count: padding) + "}"
        }
        let texts = ["L1", "S2", "L3", "S4", "L5"]
        let lines = texts.map { inject($0, padding: $0.hasPrefix("L") ? 20_000 : 0) }
        try await raw.send(Array((lines.joined(separator: "\n") + "\n").utf8))
        try await raw.finishSending()
        var answered: [String] = []
        for _ in texts { answered.append(try await raw.nextJSON()["result"]?["event"]?["text"]?.stringValue ?? "none") }
        #expect(answered.sorted() == texts.sorted(), "every request answered: \(answered)")
        let recent = try #require(try await daemon.connect().call("events.recent", ["limit": 10])["events"]?.arrayValue)
        #expect(recent.map { $0["text"]?.stringValue } == texts, "journaled in the order sent")
        await raw.close()
    }

    /// A batch's injections are journaled together: each still gets its own answer, in the
    /// batch's order, and a bad one fails alone.
    @Test func aBatchOfInjectionsAnswersEachInOrder() async throws {
        let daemon = try await startDaemon(["--mock", "barcode:till-1"])
        let raw = try await RawConnection.connect(socketPath: daemon.socketPath)
        func inject(_ id: Int?, _ params: String) -> String {
            let head = id.map { "\"id\":\($0)," } ?? ""
            return "{\"jsonrpc\":\"2.0\",\(head)\"method\":\"scan.inject\",\"params\":\(params)}"
        }
        try await raw.send(
            "["
                + [
                    inject(1, #"{"device":"mock:till-1","text":"A1"}"#),
                    inject(2, #"{"device":"mock:nowhere","text":"lost"}"#),
                    inject(nil, #"{"device":"mock:till-1","text":"N1"}"#),
                    inject(3, #"{"device":"mock:till-1"}"#),
                    #"{"jsonrpc":"2.0","id":4,"method":"devices.list"}"#,
                    inject(5, "[1]"),
                    inject(6, #"{"device":"mock:till-1","text":"A2","symbology":"morse"}"#),
                    inject(7, #"{"device":"mock:till-1","text":"A3"}"#),
                ].joined(separator: ",") + "]")
        let answers = try #require(try await raw.nextJSON().arrayValue)
        #expect(answers.map { $0["id"] } == [1, 2, 3, 4, 5, 6, 7], "one answer a request, in order; none for the notification")
        #expect(answers[1].errorCode == -32001)
        #expect(answers[2].errorCode == -32602 && answers[2]["error"]?["data"]?["field"] == "text")
        #expect(answers[3]["result"]?["devices"] != nil)
        #expect(answers[4].errorCode == -32602)
        #expect(answers[5].errorCode == -32602 && answers[5]["error"]?["data"]?["field"] == "symbology")
        let first = try #require(answers[0]["result"]?["event"]?["seq"]?.intValue)
        #expect(answers[0]["result"]?["event"]?["text"] == "A1")
        #expect(answers[6]["result"]?["event"]?["seq"]?.intValue == first + 2, "the notification's event between them")
        let recent = try #require(try await daemon.connect().call("events.recent", ["limit": 10])["events"]?.arrayValue)
        #expect(recent.map { $0["text"]?.stringValue } == ["A1", "N1", "A3"])
        #expect(recent.map { $0["seq"]?.intValue } == [first, first + 1, first + 2])
        await raw.close()
    }

    @Test func domainErrorCodes() async throws {
        let daemon = try await startDaemon(
            ["--mock", "barcode:till-1", "--mock", "nfc:reader"],
            config: "server:\n  subscriptions_per_connection: 2\n")
        let client = try await daemon.connect()
        let missing = await expectRPCError(RPCError.invalidParams) {
            _ = try await client.call("scan.inject", ["text": "123"])
        }
        #expect(missing?.data?["field"] == "device")
        let badUID = await expectRPCError(RPCError.invalidParams) {
            _ = try await client.inject(device: "mock:reader", uid: "04A1B2")
        }
        #expect(badUID?.data?["field"] == "uid")
        let noUID = await expectRPCError(RPCError.invalidParams) { _ = try await client.inject(device: "mock:reader") }
        #expect(noUID?.data?["field"] == "uid")
        let badSymbology = await expectRPCError(RPCError.invalidParams) {
            _ = try await client.inject(device: "mock:till-1", text: "x", symbology: "morse")
        }
        #expect(badSymbology?.data?["field"] == "symbology")
        await expectRPCError(RPCError.invalidParams) {
            _ = try await client.inject(device: "mock:till-1", text: String(repeating: "9", count: 10_000))
        }
        await expectRPCError(RPCError.invalidParams) { _ = try await client.call("mock.attach", ["kind": "laser"]) }
        await expectRPCError(RPCError.invalidParams) { _ = try await client.call("events.subscribe", ["since": -1]) }
        await expectRPCError(RPCError.notFound) { _ = try await client.inject(device: "mock:nowhere", text: "1") }
        await expectRPCError(RPCError.notFound) { _ = try await client.call("mock.detach", ["id": "mock:nowhere"]) }
        await expectRPCError(RPCError.notFound) { _ = try await client.call("events.unsubscribe", ["subscription": "s9"]) }
        await expectRPCError(RPCError.conflict) { _ = try await client.call("mock.attach", ["kind": "barcode", "id": "till-1"]) }
        _ = try await client.call("mock.detach", ["id": "mock:till-1"])
        await expectRPCError(RPCError.unavailable) { _ = try await client.inject(device: "mock:till-1", text: "1") }
        _ = try await client.call("events.subscribe")
        _ = try await client.call("events.subscribe")
        await expectRPCError(RPCError.overloaded) { _ = try await client.call("events.subscribe") }
        _ = try await client.call("events.unsubscribe", ["subscription": "s1"])
        _ = try await client.call("events.subscribe")
        // The connection survived all of it.
        #expect(try await client.call("bridge.hello")["name"] == "scanbridge")
        await client.close()
    }

    @Test func tooLargeLineIsRefusedAndClosed() async throws {
        let daemon = try await startDaemon([], config: "server:\n  max_line_bytes: 4096\n")
        let raw = try await RawConnection.connect(socketPath: daemon.socketPath)
        let padding = String(repeating: "x", count: 5000)
        try await raw.send("{\"jsonrpc\":\"2.0\",\"id\":1,\"method\":\"bridge.hello\",\"params\":{\"pad\":\"\(padding)\"}}")
        let answer = try await raw.nextJSON()
        #expect(answer.errorCode == -32600)
        #expect(answer["error"]?["message"]?.stringValue?.contains("too large") == true)
        try await within("the connection to close", timeout: .seconds(10)) {
            var lines = raw.lines.makeAsyncIterator()
            while await lines.next() != nil {}
        }
        // Others are still served.
        let client = try await daemon.connect()
        #expect(try await client.call("bridge.hello")["name"] == "scanbridge")
        await client.close()
    }

    @Test func endlessLineWithoutNewlineIsCutOff() async throws {
        let daemon = try await startDaemon([], config: "server:\n  max_line_bytes: 4096\n")
        let raw = try await RawConnection.connect(socketPath: daemon.socketPath)
        try await raw.send(Array(repeating: UInt8(ascii: "["), count: 10_000))
        #expect(try await raw.nextJSON().errorCode == -32600)
        await raw.close()
    }
}

/// Garbage of every kind on one connection: the daemon answers what it must and keeps serving.
@Suite("Garbage end to end", .heavy, .timeLimit(.minutes(5)))
struct GarbageTests {
    @Test func randomLinesNeverStopTheDaemon() async throws {
        let daemon = try await startDaemon(["--mock", "barcode:till-1"])
        let raw = try await RawConnection.connect(socketPath: daemon.socketPath)
        var generator = SeededRandom(printingSeedFor: "GarbageTests.randomLinesNeverStopTheDaemon")
        var lines: [[UInt8]] = [
            Array(repeating: UInt8(ascii: "["), count: 500_000),
            Array(repeating: UInt8(ascii: "{"), count: 100_000),
            Array(
                #"{"jsonrpc":"2.0","id":1,"method":"scan.inject","params":{"device":"mock:till-1","text":"\u0000\ud83d\ude00"}}"#
                    .utf8),
            Array(#"{"jsonrpc":"2.0","id":[],"method":"x"}"#.utf8),
            Array(#"{"jsonrpc":"2.0","id":2,"method":"events.subscribe","params":{"since":1e300}}"#.utf8),
            Array(#"{"jsonrpc":"2.0","id":3,"method":"events.subscribe","params":{"kinds":["nfc",7]}}"#.utf8),
        ]
        for _ in 0..<500 {
            lines.append(
                (0..<Int.random(in: 1...300, using: &generator)).map { _ in
                    var byte = UInt8.random(in: 0...255, using: &generator)
                    if byte == 0x0A { byte = 0x20 }
                    return byte
                })
        }
        for line in lines { try await raw.send(line + [0x0A]) }
        try await raw.send(#"{"jsonrpc":"2.0","id":"alive","method":"bridge.hello"}"#)
        let alive = try await within("the answer after the garbage", timeout: .seconds(30)) { () async throws -> Bool in
            var iterator = raw.lines.makeAsyncIterator()
            while let line = await iterator.next() {
                if line.contains("\"alive\"") { return line.contains("\"scanbridge\"") }
            }
            return false
        }
        #expect(alive, "the connection survived every bad line (seed \(generator.seed))")
        let client = try await daemon.connect()
        #expect(try await client.devices().count == 1, "and so did the daemon (seed \(generator.seed))")
        await client.close()
        await raw.close()
    }
}
