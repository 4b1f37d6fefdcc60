import Foundation
import ScanBridgeClient
import ScanBridgeModel
import ScanBridgeRPC
import ScanBridgeTesting
import Synchronization
import Testing

/// seq is gap-free and durable: restarts, `since` replays, and kill -9 lose nothing answered.
@Suite("Durability end to end", .timeLimit(.minutes(5)))
struct DurabilityTests {
    @Test func restartThenReplaySince() async throws {
        let daemon = try await startDaemon(["--mock", "barcode:till-1"])
        var client = try await daemon.connect()
        for code in ["4006381333931", "5901234123457", "96385074"] {
            _ = try await client.inject(device: "mock:till-1", text: code)
        }
        await client.close()
        #expect(try await daemon.stop() == 0, "SIGTERM is a clean exit")
        #expect(!FileManager.default.fileExists(atPath: daemon.socketPath), "the socket file is removed")

        try await daemon.start()
        client = try await daemon.connect()
        let fourth = try await client.inject(device: "mock:till-1", text: "036000291452")
        #expect(fourth.seq == 4, "seq continues across restarts")
        let subscribed = try await client.call("events.subscribe", ["since": 1])
        #expect(subscribed["seq"] == 4)
        var notifications = client.notifications.makeAsyncIterator()
        var seqs: [UInt64] = []
        for _ in 0..<3 { seqs.append(try #require(try await next("scan", from: &notifications).scanEvent()).seq) }
        #expect(seqs == [2, 3, 4])
        let live = try await client.inject(device: "mock:till-1", text: "5901234123457")
        let delivered = try #require(try await next("scan", from: &notifications).scanEvent())
        #expect(delivered.seq == live.seq && live.seq == 5, "live events follow the replay with no gap or duplicate")
        await client.close()
    }

    @Test func killNineLosesNothingAnswered() async throws {
        let daemon = try await startDaemon(["--mock", "barcode:till-1"])
        let client = try await daemon.connect()
        let answered = Shared<[UInt64: String]>([:])
        // Keep injecting from several tasks while the daemon is killed under them.
        let injectors = Task {
            await withTaskGroup(of: Void.self) { group in
                for worker in 0..<8 {
                    group.addTask {
                        for n in 0..<100_000 {
                            guard let event = try? await client.inject(device: "mock:till-1", text: "w\(worker)-\(n)") else {
                                return
                            }
                            answered.withLock { $0[event.seq] = event.text }
                        }
                    }
                }
            }
        }
        try await waitUntil("200 answered injects", timeout: .seconds(30)) { answered.withLock { $0.count } >= 200 }
        try await daemon.crash()
        try await within("the injectors to stop after the crash") { await injectors.value }
        await client.close()
        let before = answered.value

        try await daemon.start()
        let reader = try await daemon.connect()
        _ = try await reader.call("events.subscribe", ["since": 0])
        var notifications = reader.notifications.makeAsyncIterator()
        let head = before.keys.max()!
        var replayed: [UInt64: String] = [:]
        var expected: UInt64 = 1
        while expected <= head {
            let event = try #require(try await next("scan", from: &notifications).scanEvent())
            #expect(event.seq == expected, "replay is gap-free and in order")
            replayed[event.seq] = event.text
            expected = event.seq + 1
        }
        for (seq, text) in before {
            #expect(replayed[seq] == text, "answered event \(seq) survived kill -9")
        }
        let after = try await reader.inject(device: "mock:till-1", text: "after-restart")
        #expect(after.seq > head)
        await reader.close()
    }
}

/// Retention drops old events; a replay from before them says so with `events.gap`.
@Suite("Retention end to end", .timeLimit(.minutes(5)))
struct RetentionTests {
    @Test func replayFromBeforeRetentionReportsAGap() async throws {
        let daemon = try await startDaemon(["--mock", "barcode:till-1"], config: "journal:\n  retention_events: 5\n")
        let client = try await daemon.connect()
        for n in 1...20 { _ = try await client.inject(device: "mock:till-1", text: "item-\(n)") }
        _ = try await client.call("events.subscribe", ["since": 0])
        var notifications = client.notifications.makeAsyncIterator()
        let gap = try await next("events.gap", from: &notifications)
        let from = try #require(gap.params["from"]?.intValue)
        let to = try #require(gap.params["to"]?.intValue)
        #expect(from == 1)
        #expect(to >= 14 && to < 20, "at most 5 events (and a tenth more) are kept")
        var seqs: [UInt64] = []
        while seqs.last != 20 {
            seqs.append(try #require(try await next("scan", from: &notifications).scanEvent()).seq)
        }
        #expect(seqs == Array(UInt64(to + 1)...20), "the kept events follow the gap, in order")
        let recent = try await client.call("events.recent", ["limit": 1000])
        #expect(recent["events"]?.arrayValue?.count == seqs.count)
        await client.close()
    }
}
