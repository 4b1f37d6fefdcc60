import Foundation
import ScanBridgeClient
import ScanBridgeModel
import ScanBridgeRPC
import ScanBridgeTesting
import Synchronization
import Testing

/// seq is gap-free and durable: restarts, `since` replays, and kill -9 lose nothing answered.
@Suite("Durability end to end", .heavy, .timeLimit(.minutes(5)))
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

    /// kill -9 at a till's busiest (about 1,000 scans a second): every injection that was
    /// answered is there after the restart under the seq it was answered with, the journal's
    /// seqs have no gap, and the seqs that follow the restart reuse none of them.
    @Test func killNineAtAThousandScansASecondLosesNothingAnswered() async throws {
        let daemon = try await startDaemon(["--mock", "barcode:till-1"])
        let client = try await daemon.connect()
        let answered = Shared<[UInt64: String]>([:])
        // Eight paced workers, interleaved a millisecond apart, so the daemon is killed under a
        // steady 1,000 injections a second rather than under a burst: the sleeps set that pace.
        let started = ContinuousClock.now
        let injectors = Task {
            await withTaskGroup(of: Void.self) { group in
                for worker in 0..<8 {
                    group.addTask {
                        for n in 0..<100_000 {
                            try? await Task.sleep(until: started + .milliseconds(8 * n + worker), clock: .continuous)
                            guard let event = try? await client.inject(device: "mock:till-1", text: "w\(worker)-\(n)") else {
                                return
                            }
                            answered.withLock { $0[event.seq] = event.text }
                        }
                    }
                }
            }
        }
        try await waitUntil("2,000 answered injects", timeout: .seconds(60)) { answered.withLock { $0.count } >= 2_000 }
        try await daemon.crash()
        try await within("the injectors to stop after the crash") { await injectors.value }
        await client.close()
        let before = answered.value

        try await daemon.start()
        let reader = try await daemon.connect()
        // The journal's head may lie past the last answer: an event committed whose answer the
        // kill cut off. It is kept too, and the seqs after the restart follow it.
        let head = UInt64(try #require(try await reader.call("events.subscribe", ["since": 0])["seq"]?.intValue))
        #expect(head >= before.keys.max()!, "the journal holds every answered event")
        var notifications = reader.notifications.makeAsyncIterator()
        var replayed: [UInt64: String] = [:]
        var expected: UInt64 = 1
        while expected <= head {
            let event = try #require(try await next("scan", from: &notifications).scanEvent())
            #expect(event.seq == expected, "replay is gap-free and in order")
            replayed[event.seq] = event.text
            expected = event.seq + 1
        }
        for (seq, text) in before {
            #expect(replayed[seq] == text, "answered event \(seq) survived kill -9 under its seq")
        }
        #expect(Set(replayed.values).count == replayed.count, "no event journaled twice")
        var after: [UInt64] = []
        for n in 0..<3 { after.append(try await reader.inject(device: "mock:till-1", text: "after-restart-\(n)").seq) }
        #expect(after == [head + 1, head + 2, head + 3], "the seqs go on from the journal's head, none reused")
        await reader.close()
    }
}

/// Retention drops old events; a replay from before them says so with `events.gap`.
@Suite("Retention end to end", .heavy, .timeLimit(.minutes(5)))
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
