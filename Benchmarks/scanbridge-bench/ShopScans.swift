import Foundation
import Histogram
import ScanBridgeTesting

/// Several counters scanning at once on one shop's store, and their events' copies in
/// `scan_events`: how long after an event's journal time its row became visible there, and
/// whether every event is there exactly once.
enum ShopScans {
    /// One counter's injections: the answers, by request id (`InjectionAnswers`).
    struct Injected: Sendable {
        let counter: String
        /// The workload's index of this counter's first read.
        let firstIndex: Int
        let answers: InjectionAnswers
    }

    struct Figures {
        /// Per copied event: its row's commit in PostgreSQL − the event's `time` (the journal's,
        /// in milliseconds), clamped at 0.
        var lag = Histogram<UInt64>.nanoseconds()
        /// Lags below 0 (clamped): the clocks disagree, or `time` is not the journal's.
        var negative = 0
        var sent = 0
        /// Answered with an event (a seq).
        var journaled = 0
        /// Events answered whose row is not in `scan_events`.
        var lost = 0
        /// Rows of these counters beyond one per answered event: a seq no answer named, or an
        /// event id held twice.
        var doubled = 0
        var rows = 0
        /// Scans resolved otherwise than the workload says, or answered with an error.
        var misresolved = 0
        var outcomes: [String: Int] = [:]
        var firstError: String?
    }

    /// Each counter gets `perSecond` `scan.inject` calls a second for `seconds`, on a thread
    /// of its own, paced by the clock and answers read as they come (as the `latency`
    /// scenario injects); the counters' reads are consecutive stretches of `workload`.
    static func inject(
        into counters: [(name: String, daemon: DaemonHarness)], perSecond: Int, seconds: Int, workload: CounterWorkload
    ) async throws -> [Injected] {
        let count = perSecond * seconds
        let interval = UInt64(1_000_000_000 / perSecond)
        return try await withThrowingTaskGroup(of: Injected.self) { group in
            for (offset, counter) in counters.enumerated() {
                let socket = try LineSocket(path: counter.daemon.socketPath)
                let firstIndex = offset * count
                let lines = (0..<count).map { Array(workload.injectLine(id: $0, index: firstIndex + $0).utf8) + [0x0A] }
                group.addTask {
                    try await onAThread("shop-scans-\(counter.name)") {
                        var answers = InjectionAnswers(count: count)
                        let start = Nanos.now() + 10_000_000
                        for (index, line) in lines.enumerated() {
                            Nanos.wait(until: start + UInt64(index) * interval)
                            try socket.write(line)
                            socket.readAvailableLines { answers.record($0) }
                        }
                        try socket.readLines(idle: .seconds(10)) { line in
                            answers.record(line)
                            return answers.isComplete
                        }
                        return Injected(counter: counter.name, firstIndex: firstIndex, answers: answers)
                    }
                }
            }
            return try await group.reduce(into: []) { $0.append($1) }
        }
    }

    /// Waits until `scan_events` holds as many rows of each counter as it journaled events
    /// (two minutes at most: a shortfall is then counted as lost), then reads every row's
    /// commit time and checks each event is there once.
    static func copies(of injected: [Injected], workload: CounterWorkload, on server: ShopServer) async throws -> Figures {
        let expected = Dictionary(uniqueKeysWithValues: injected.map { ($0.counter, $0.answers.count) })
        let deadline = ContinuousClock.now + .seconds(120)
        while ContinuousClock.now < deadline {
            let counts = try await server.sql("SELECT counter_id, count(*) FROM scan_events GROUP BY counter_id")
            let held = Dictionary(
                counts.split(separator: "\n").compactMap { line -> (String, Int)? in
                    let columns = line.split(separator: "|")
                    return columns.count == 2 ? (String(columns[0]), Int(columns[1]) ?? 0) : nil
                }, uniquingKeysWith: +)
            if expected.allSatisfy({ held[$0.key, default: 0] >= $0.value }) { break }
            try await Task.sleep(for: .milliseconds(250))
        }
        let names = injected.map { "'\($0.counter)'" }.joined(separator: ", ")
        let rows = try await server.sql(
            """
            SELECT counter_id, seq, event->>'id',
                (extract(epoch FROM pg_xact_commit_timestamp(xmin) - time) * 1000000)::bigint
            FROM scan_events WHERE counter_id IN (\(names)) ORDER BY counter_id, seq
            """)
        var figures = Figures()
        var held: [String: [Int: Int]] = [:]
        var ids = Set<Substring>()
        for line in rows.split(separator: "\n") {
            let columns = line.split(separator: "|", omittingEmptySubsequences: false)
            guard columns.count == 4, let seq = Int(columns[1]) else { continue }
            guard let lag = Int(columns[3]) else {
                throw BenchmarkFailure(description: "scan_events has no commit time for \(line): track_commit_timestamp is off")
            }
            figures.rows += 1
            if !ids.insert(columns[2]).inserted { figures.doubled += 1 }
            held[String(columns[0]), default: [:]][seq] = lag
        }
        for counter in injected {
            let answers = counter.answers
            figures.sent += answers.seqs.count
            figures.journaled += answers.count
            figures.misresolved += answers.errors
            figures.firstError = figures.firstError ?? answers.firstError
            let answered = Set(answers.seqs.compactMap { $0 })
            let rows = held[counter.counter, default: [:]]
            figures.doubled += rows.keys.filter { !answered.contains($0) }.count
            for seq in answered {
                guard let lag = rows[seq] else {
                    figures.lost += 1
                    continue
                }
                if lag < 0 { figures.negative += 1 }
                _ = figures.lag.record(UInt64(max(0, lag)) * 1_000)
            }
            for (index, outcome) in answers.outcomes.enumerated() {
                let outcome = outcome ?? "no resolution"
                figures.outcomes[outcome, default: 0] += 1
                if answers.seqs[index] != nil, outcome != workload.read(counter.firstIndex + index).outcome.rawValue {
                    figures.misresolved += 1
                }
            }
        }
        // A scan answered with an error, or not answered, was not journaled: not in the table
        // either, so lost too, since the count must be the scans sent.
        figures.lost += figures.sent - figures.journaled
        return figures
    }
}
