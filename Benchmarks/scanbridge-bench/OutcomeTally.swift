import Synchronization

/// The resolutions (`handler status`) in the lines a connection receives, counted as they
/// come: the daemon's answers to batches of `scan.inject`, or the `scan` notifications of a
/// subscription replaying the journal once a timed run is over (counting on a subscriber of
/// the run would slow it, and the figure with it). So a throughput or memory row fails when
/// the daemon answered fast but wrong, which counting lines alone would take for a faster
/// daemon.
final class OutcomeTally: Sendable {
    private struct State {
        var counts: [String: Int] = [:]
        /// The start of a line whose end has not arrived yet.
        var partial: [UInt8] = []
    }

    private let state = Mutex(State())

    var counts: [String: Int] { state.withLock { $0.counts } }

    /// Takes the bytes a read brought, counting the resolutions of every line they complete.
    func consume(_ bytes: UnsafeRawBufferPointer) {
        guard let last = bytes.lastIndex(of: 0x0A) else {
            state.withLock { $0.partial += bytes }
            return
        }
        state.withLock { state in
            var whole = state.partial
            whole += bytes[...last]
            state.partial = Array(bytes[(last + 1)...])
            JSONScan.resolutions(in: whole[...]) { state.counts[$0, default: 0] += 1 }
        }
    }

    /// The resolutions of the first `events` events in the journal of the daemon at
    /// `socketPath`, replayed from the start by a subscriber of its own.
    static func replay(socketPath: String, events: Int) async throws -> OutcomeTally {
        let tally = OutcomeTally()
        let reader = try await LineCounter.connect(socketPath: socketPath, tally: tally)
        reader.send(Array(#"{"jsonrpc":"2.0","id":1,"method":"events.subscribe","params":{"since":0}}"#.utf8) + [0x0A])
        await reader.wait(forLines: events + 1, idle: .seconds(10))
        await reader.close()
        return tally
    }

    /// The counts beside those `workload` makes in its reads `0..<events`.
    func check(against workload: CounterWorkload, events: Int) -> OutcomeCheck {
        let expected = workload.expectedOutcomes(count: events)
        return OutcomeCheck(
            counted: counts, expected: Dictionary(uniqueKeysWithValues: expected.map { ($0.key.rawValue, $0.value) }))
    }
}

/// What a run's scans resolved to, counted, beside what its workload says they must.
struct OutcomeCheck: Sendable {
    var counted: [String: Int]
    var expected: [String: Int]

    var isWhole: Bool { counted == expected }

    /// `product-lookup found 16000, …`, and where it differs, what was expected.
    var summary: String {
        let counts = counted.sorted { $0.key < $1.key }.map { "\($0.key) \($0.value)" }.joined(separator: ", ")
        guard !isWhole else { return counts }
        let wanted = expected.sorted { $0.key < $1.key }.map { "\($0.key) \($0.value)" }.joined(separator: ", ")
        return "resolved \(counts.isEmpty ? "nothing" : counts), where the workload says \(wanted)"
    }
}

/// A throughput run: the rate, the daemon's CPU per event (µs, from `/proc`, the daemon
/// alone; nil when its process was not known), the events some subscriber never got, and the
/// resolutions.
struct Throughput: Sendable {
    var eventsPerSecond: Double
    var cpuPerEvent: Double?
    var lost: Int
    var outcomes: OutcomeCheck
}
